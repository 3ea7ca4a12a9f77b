"""pe on a GPU, side by side with pe on the CPU and PyTorch on the same GPU, eager and CUDA-graphed.

    python benchmarks/gpu.py                       # MLP 128 and 1024, LeNet-5 256, ResNet 64, Transformer 32
    python benchmarks/gpu.py --steps 100 --warmup 10
    python benchmarks/gpu.py --skip-cpu            # the CPU column takes the longest
    python benchmarks/gpu.py --profile             # and where pe's CUDA steps go (host side)
    python benchmarks/gpu.py --peak-tflops 66.9    # if the device's float32 peak cannot be derived
    PE_CUDA_SYNC=1 python benchmarks/gpu.py --models lenet:256 --skip-cpu --profile --matmul-size 0
                                                   # ops timed with their GPU time (each op waits)
    PE_CUDA_LAUNCH=numba python benchmarks/gpu.py  # kernels launched through numba's own path
    python benchmarks/gpu.py --models mlp:128 --steps 2 --cpu-steps 2   # no GPU: the pe CPU column alone

The models are gpu_models.py's. One training step = the batch copied from host memory to the device,
forward, backward, the optimizer's update of every parameter, and the loss copied back (the same work
for every column: PyTorch copies its batch with .to("cuda"), or into its graph's static inputs, and
reads the loss with .item()). Columns: pe on the GPU with its matrix products on cuBLAS and on pe's
own kernel (PE_CUDA_GEMM=cublas / numba, timed in alternating rounds in one process; the cuBLAS
column is n/a, with one line saying why, where nvmath-python is not installed), pe on the CPU,
PyTorch CUDA eager and with the whole step captured as one CUDA graph (torch.cuda.CUDAGraph), and
pe's better GPU column over each PyTorch column. Times are medians over --steps steps after --warmup
steps (pe's first CUDA steps compile its kernels). Then the matrix product alone on N x N float32
matrices, pe's kernel (pe_cli/kernels/cuda/_matmul.py) and cuBLAS through the same call, as TFLOP/s
and as a fraction of the device's float32 peak (SMs x FP32 lanes per SM x 2 x clock, read through
numba.cuda), next to torch.mm in float32 (TF32 off).

Needs a CUDA GPU, pe installed with the [cuda] extra (cuBLAS: [cuda-libs]), and (for its columns)
torch. Without a GPU it says why in one line and times the pe CPU column alone.
"""

import argparse
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_models import pe_program, torch_step  # noqa: E402
from timing import call_times  # noqa: E402

MODELS = [("mlp", 128), ("mlp", 1024), ("lenet", 256), ("resnet", 64), ("transformer", 32)]

# FP32 lanes per SM by compute capability (major, minor); major alone as the fallback.
_FP32_LANES = {(6, 0): 64, (7, 0): 64, (7, 2): 64, (7, 5): 64, (8, 0): 64}
_FP32_LANES_MAJOR = {3: 192, 5: 128, 6: 128, 7: 64, 8: 128, 9: 128, 10: 128, 12: 128}


# -- timing ---------------------------------------------------------------------------------------


def timed(step, steps, warmup):
    return statistics.median(call_times(step, steps, warmup))


def pe_step(model, n, place):
    import pe_cli.fluid as fluid

    main, startup, loss, feed = pe_program(model, n)
    scope = fluid.Scope()
    exe = fluid.Executor(place)
    exe.run(startup, scope=scope)
    return lambda: exe.run(main, feed=feed, fetch_list=[loss], scope=scope)


def time_pe_gemms(step, steps, warmup, modes, rounds=4):
    """{PE_CUDA_GEMM mode: median step} for one pe CUDA step, the modes timed in alternating rounds
    (so that a change of the machine's state falls on each)."""
    from pe_cli.kernels.cuda import _blas

    old = _blas.mode()
    times = {m: [] for m in modes}
    try:
        for m in modes:  # compiles each path's kernels
            _blas.set_mode(m)
            call_times(step, 0, warmup)
        for _ in range(rounds):
            for m in modes:
                _blas.set_mode(m)
                times[m] += call_times(step, max(1, steps // rounds), 1)
    finally:
        _blas.set_mode(old)
    return {m: statistics.median(t) for m, t in times.items()}


def profile_pe(step, steps=10):
    """Where a warm pe step's host time goes (pe_cli.base.profiler): kernels are timed as the host sees
    them (a CUDA launch returns before the GPU is done; copies back to the host wait for it)."""
    from pe_cli.base import profiler

    with profiler.collect() as prof:
        for _ in range(steps):
            step()
    return prof.summary(), prof.table("total")


# -- the matrix product kernel -------------------------------------------------------------------


def device_info(peak_override=None):
    from numba import cuda

    dev = cuda.get_current_device()
    name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
    cc = tuple(dev.compute_capability)
    sms = dev.MULTIPROCESSOR_COUNT
    lanes = _FP32_LANES.get(cc, _FP32_LANES_MAJOR.get(cc[0], 128))
    peak = peak_override
    if peak is None:
        try:
            clock_khz = dev.CLOCK_RATE
            peak = sms * lanes * 2 * clock_khz * 1e3 / 1e12
        except Exception:  # noqa: BLE001 - the attribute is gone from newer drivers
            peak = None
    return name, cc, sms, lanes, peak


def time_matmul(size, steps, mode="numba"):
    """(TFLOP/s, max relative error) of _matmul.matmul on size x size float32 matrices with
    PE_CUDA_GEMM=``mode`` (numba: pe's kernel; cublas: the library through pe's path)."""
    from numba import cuda

    from pe_cli.kernels.cuda import _blas, _matmul
    from pe_cli.kernels.cuda import runtime as rt

    rng = np.random.default_rng(0)
    old = _blas.mode()
    _blas.set_mode(mode)
    with rt.device(0) as dev:
        a = rt.to_device(rng.standard_normal((size, size)).astype("float32"))
        b = rt.to_device(rng.standard_normal((size, size)).astype("float32"))
        out = rt.empty((size, size), "float32")
        _matmul.matmul(a, b, out=out)  # compile
        dev.synchronize()
        start, end = cuda.event(), cuda.event()
        start.record(dev.stream)
        for _ in range(steps):
            _matmul.matmul(a, b, out=out)
        end.record(dev.stream)
        end.synchronize()
        seconds = cuda.event_elapsed_time(start, end) / 1e3 / steps
        host = rt.to_host(out)
        want = rt.to_host(a)[:64] @ rt.to_host(b)
        error = float(np.max(np.abs(host[:64] - want)) / np.max(np.abs(want)))
    _blas.set_mode(old)
    return _matmul.flops(size, size, size) / seconds / 1e12, error


def time_torch_mm(torch, size, steps):
    torch.backends.cuda.matmul.allow_tf32 = False
    a = torch.randn(size, size, device="cuda")
    b = torch.randn(size, size, device="cuda")
    torch.mm(a, b)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(steps):
        torch.mm(a, b)
    end.record()
    end.synchronize()
    return 2.0 * size**3 / (start.elapsed_time(end) / 1e3 / steps) / 1e12


# -- the report -------------------------------------------------------------------------------------


def ms(seconds):
    return "n/a" if seconds is None else f"{seconds * 1e3:9.2f}"


def _arguments(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--cpu-steps", type=int, default=10, help="steps timed for the (slow) pe CPU column")
    parser.add_argument("--skip-cpu", action="store_true")
    parser.add_argument("--profile", action="store_true", help="also print where pe's CUDA steps go")
    parser.add_argument(
        "--models", default=",".join(f"{m}:{n}" for m, n in MODELS), help="model:batch pairs to time, comma-separated"
    )
    parser.add_argument("--matmul-size", type=int, default=4096, help="0 skips the matrix product kernel")
    parser.add_argument(
        "--peak-tflops",
        type=float,
        default=None,
        help="the device's float32 peak, if it cannot be derived from numba.cuda",
    )
    return parser.parse_args(argv)


def cuda_columns():
    """(why the CUDA columns cannot run here or None, torch or None, the GEMM modes pe is timed in)."""
    from pe_cli.base.errors import PeError
    from pe_cli.base.places import CUDAPlace
    from pe_cli.kernels.cuda import _blas, runtime

    if runtime.simulated():
        return "NUMBA_ENABLE_CUDASIM=1 is set (the simulator is no GPU)", None, ()
    try:
        runtime.require(CUDAPlace(0))
    except PeError as e:
        return str(e), None, ()
    modes = ("cublas", "numba")
    if _blas.unavailable_reason() is not None:
        print(f"gpu.py: cuBLAS column n/a: {_blas.unavailable_reason()}")
        modes = ("numba",)
    try:
        import torch

        if not torch.cuda.is_available():
            print("gpu.py: torch is installed but sees no GPU; its columns are n/a")
            torch = None
    except ImportError:
        print("gpu.py: torch is not installed; its columns are n/a")
        torch = None
    return None, torch, modes


COLUMNS = [
    ("pe cuBLAS", 10),
    ("pe numba", 9),
    ("pe CPU", 9),
    ("torch", 8),
    ("torch graph", 11),
    ("pe/torch", 8),
    ("pe/graph", 8),
]


def _row(model, n, args, torch, modes):
    """One model's cells (seconds or ratios, None for n/a) and pe's CUDA step for the profile."""
    from pe_cli.base.places import CPUPlace, CUDAPlace

    pe, gpu_step = {}, None
    if modes:
        gpu_step = pe_step(model, n, CUDAPlace(0))
        pe = time_pe_gemms(gpu_step, args.steps, args.warmup, modes)
    cpu = None if args.skip_cpu else timed(pe_step(model, n, CPUPlace()), args.cpu_steps, 1)
    eager = graph = None
    if torch is not None:
        eager = timed(torch_step(torch, model, n), args.steps, args.warmup)
        try:
            graph = timed(torch_step(torch, model, n, graphed=True), args.steps, args.warmup)
        except Exception as e:  # noqa: BLE001 - a capture PyTorch refuses: say so, keep the row
            print(f"gpu.py: {model}: torch CUDA graph failed: {type(e).__name__}: {str(e)[:200]}")
    best = min(pe.values()) if pe else None
    ratio = lambda a, b: None if a is None or b is None else a / b  # noqa: E731
    return [pe.get("cublas"), pe.get("numba"), cpu, eager, graph, ratio(best, eager), ratio(best, graph)], gpu_step


def _cell(value, width, is_ratio):
    if value is None:
        return f"{'n/a':>{width}}"
    return f"{value:>{width - 1}.2f}x" if is_ratio else f"{value * 1e3:>{width}.2f}"


def main(argv=None):
    args = _arguments(argv)
    why, torch, modes = cuda_columns()
    if why:
        print(f"gpu.py: the CUDA columns are skipped: {why}")
        if args.skip_cpu:
            return 2
    else:
        name, cc, sms, lanes, peak = device_info(args.peak_tflops)
        print(f"device: {name} (compute capability {cc[0]}.{cc[1]}, {sms} SMs x {lanes} FP32 lanes)")
    print(
        f"timing: median of {args.steps} steps after {args.warmup} warm-up steps (pe CPU: {args.cpu_steps} "
        f"steps; pe's GEMM paths in alternating rounds); batch copied in and loss copied out every step; ms\n"
    )
    header = f"{'model':<12}{'batch':>6}" + "".join(f"  {c:>{w}}" for c, w in COLUMNS)
    print(header + "\n" + "-" * len(header))
    ratios, profiles = {}, {}
    for model, n in [(m, int(b)) for m, b in (pair.split(":") for pair in args.models.split(","))]:
        cells, gpu_step = _row(model, n, args, torch, modes)
        ratios[(model, n)] = cells[5]
        print(
            f"{model:<12}{n:>6}"
            + "".join(f"  {_cell(v, w, i >= 5)}" for i, (v, (_, w)) in enumerate(zip(cells, COLUMNS)))
        )
        if args.profile and gpu_step is not None:
            profiles[(model, n)] = profile_pe(gpu_step)
    for (model, n), (summary, table) in profiles.items():
        print(
            f"\npe CUDA, {model} batch {n}: step {summary['step_ms']:.3f} ms = kernels (host side) "
            f"{summary['kernel_ms']:.3f} + dispatch {summary['dispatch_ms']:.3f} "
            f"({summary['dispatch_us_per_op']:.1f} us/op x {summary['ops_per_run']:.0f} ops) "
            f"+ data {summary['data_ms']:.3f}"
        )
        for line in table.splitlines()[:10]:
            print("    " + line)
    if why is None and args.matmul_size:
        report_matmul(args.matmul_size, torch, peak, modes)
    target = ratios.get(("mlp", 1024))
    if target is not None:
        verdict = "met" if target <= 2.0 else "NOT met"
        print(f"\ntarget (pe CUDA within 2x of PyTorch CUDA, MLP batch 1024): {target:.2f}x, {verdict}")
    return 0


def report_matmul(size, torch, peak, modes):
    for mode in reversed(modes):
        tflops, error = time_matmul(size, 20, mode)
        what = "pe's matrix product kernel" if mode == "numba" else "cuBLAS through pe's matmul"
        print(f"\n{what}, {size}x{size} @ {size}x{size} float32: {tflops:.2f} TFLOP/s (max relative error {error:.1e})")
        if peak:
            print(f"  = {tflops / peak:.1%} of the device's float32 peak ({peak:.1f} TFLOP/s)")
        else:
            print("  the device's float32 peak is unknown here: pass --peak-tflops")
    if torch is not None:
        ref = time_torch_mm(torch, size, 20)
        print(f"  torch.mm (cuBLAS, TF32 off): {ref:.2f} TFLOP/s" + (f" = {ref / peak:.1%} of peak" if peak else ""))


if __name__ == "__main__":
    sys.exit(main())
