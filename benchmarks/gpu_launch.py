"""Where the host time of one pe CUDA op goes: the parts of a kernel launch, timed alone.

    python benchmarks/gpu_launch.py              # on a machine with a GPU
    python benchmarks/gpu_launch.py --profile    # and a cProfile of a warm MLP step (batch 1024)

pe's CUDA step is bound by host time (docs/CUDA.md: 150-300 us an op while the GPU idles). Each
row is the median host time of one call, in microseconds, after warm-up: making the device's context
current, leasing an output from the pool, a 1-D view, launches of an empty kernel through numba's
dispatcher with one to eight arguments (arrays, scalars, a tuple), and pe's whole elementwise_add
and mul kernels (what an op costs before the executor adds its dispatch), with pe's launcher
(pe_cli/kernels/cuda/launcher.py) unless PE_CUDA_LAUNCH=numba.
"""

import argparse
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import call_times  # noqa: E402


def us(fn, reps=2000, warmup=20):
    return statistics.median(call_times(fn, reps, warmup)) * 1e6


def launch_rows(batch=1024, width=512):
    from numba import cuda
    from pe_cli.kernels.cuda import runtime as rt
    from pe_cli.kernels.cuda import elementwise, linalg
    from pe_cli.kernels.cuda._launch import flat, grid
    from pe_cli.kernels.cuda.launcher import jit_kernel

    @cuda.jit
    def one(a):
        pass

    @cuda.jit
    def four(a, b, c, n):
        pass

    @cuda.jit
    def eight(a, b, c, n, shape, xs, ys, p):
        pass

    def one_short(a):
        pass

    def four_short(a, b, c, n):
        pass

    def eight_short(a, b, c, n, shape, xs, ys, p):
        pass

    one_short, four_short, eight_short = (jit_kernel(f) for f in (one_short, four_short, eight_short))

    dev = rt.device(0)
    rows = []
    with dev:
        a = rt.empty((batch, width), np.float32)
        b = rt.empty((batch, width), np.float32)
        w = rt.empty((width, width), np.float32)
        bias = rt.empty((width,), np.float32)
        fa = flat(a)
        stream = rt.stream()
        rows.append(
            (
                "with device: (context made current and released)",
                us(lambda: dev.__enter__() or dev.__exit__(None, None, None)),
            )
        )
        rows.append(
            (
                "cuda.gpus[0] enter + exit (numba-cuda)",
                us(lambda: cuda.gpus[0].__enter__() or cuda.gpus[0].__exit__(None, None, None)),
            )
        )
        rows.append(
            (
                f"pool lease of a {batch}x{width} float32 array, released",
                us(lambda: rt.empty((batch, width), np.float32)),
            )
        )
        rows.append(("flat(a): 1-D view of a device array", us(lambda: flat(a))))
        rows.append(("grid(n): launch configuration", us(lambda: grid(fa.size))))
        rows.append(("empty kernel, 1 array argument", us(lambda: one[1, 32, stream](fa))))
        rows.append(("empty kernel, 3 arrays + int", us(lambda: four[1, 32, stream](fa, fa, fa, 7))))
        rows.append(
            (
                "empty kernel, 3 arrays, int, 3 tuples, float",
                us(lambda: eight[1, 32, stream](fa, fa, fa, 7, (2, 3), (3, 1), (0, 1), 1.5)),
            )
        )
        cfg = one[1, 32, stream]
        rows.append(("empty kernel, 1 array, configuration made once", us(lambda: cfg(fa))))
        spec = one.specialize(fa)
        rows.append(("empty kernel, 1 array, specialized dispatcher", us(lambda: spec[1, 32, stream](fa))))
        rows.append(
            (
                f"pe elementwise_add ({batch}x{width} + {width}, broadcast)",
                us(lambda: elementwise.elementwise_add({"X": a, "Y": bias}, {"axis": -1}), 500),
            )
        )
        rows.append(("empty kernel, 1 array argument, pe's launcher", us(lambda: one_short[1, 32, stream](fa))))
        rows.append(
            ("empty kernel, 3 arrays + int, pe's launcher", us(lambda: four_short[1, 32, stream](fa, fa, fa, 7)))
        )
        rows.append(
            (
                "empty kernel, 3 arrays, int, 3 tuples, float, pe's launcher",
                us(lambda: eight_short[1, 32, stream](fa, fa, fa, 7, (2, 3), (3, 1), (0, 1), 1.5)),
            )
        )
        rows.append(
            (
                "pe elementwise_add (same shapes)",
                us(lambda: elementwise.elementwise_add({"X": a, "Y": b}, {"axis": -1}), 500),
            )
        )
        rows.append(
            (
                f"pe mul ({batch}x{width} @ {width}x{width})",
                us(lambda: linalg.mul({"X": a, "Y": w}, {"x_num_col_dims": 1, "y_num_col_dims": 1}), 500),
            )
        )
        dev.synchronize()
    bound = rt.bind_kernel(elementwise.elementwise_add, rt._IdPlace(0))
    rows.append(
        ("pe elementwise_add through bind_kernel (with device)", us(lambda: bound({"X": a, "Y": b}, {"axis": -1}), 500))
    )
    dev.synchronize()
    return rows


def profile_step(top):
    import cProfile
    import pstats
    import pe_cli.fluid as fluid
    from gpu import batch, pe_program

    main, startup, loss = pe_program("mlp")
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CUDAPlace(0))
    exe.run(startup, scope=scope)
    x, y = batch("mlp", 1024)
    feed = {"image": x, "label": y}
    for _ in range(10):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(30):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    prof.disable()
    stats = pstats.Stats(prof, stream=sys.stdout)
    print("\ncProfile of 30 warm MLP steps (batch 1024), by own time:")
    stats.sort_stats("tottime").print_stats(top)
    print("\nby cumulative time:")
    stats.sort_stats("cumulative").print_stats(top)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--width", type=int, default=512)
    args = parser.parse_args()
    for name, t in launch_rows(args.batch, args.width):
        print(f"{t:9.1f} us  {name}")
    if args.profile:
        profile_step(args.top)


if __name__ == "__main__":
    main()
