"""pe on a GPU, side by side with pe on the CPU and PyTorch on the same GPU.

    python benchmarks/gpu.py                       # MLP at batch 128 and 1024, LeNet-5 at batch 256
    python benchmarks/gpu.py --steps 100 --warmup 10
    python benchmarks/gpu.py --skip-cpu            # the CPU column takes the longest
    python benchmarks/gpu.py --profile             # and where pe's CUDA steps go (host side)
    python benchmarks/gpu.py --peak-tflops 66.9    # if the device's float32 peak cannot be derived
    PE_CUDA_SYNC=1 python benchmarks/gpu.py --models lenet:256 --skip-cpu --profile --matmul-size 0
                                                   # ops timed with their GPU time (each op waits)
    PE_CUDA_LAUNCH=numba python benchmarks/gpu.py  # kernels launched through numba's own path

One training step = the batch copied from host memory to the device, forward, backward, SGD update
of every parameter, and the loss copied back (the same work for every column: PyTorch copies its
batch with .to("cuda") and reads the loss with .item()). Times are medians over --steps steps after
--warmup steps (pe's first CUDA steps compile its kernels). Then the matrix product kernel alone
(pe_cli/kernels/cuda/_matmul.py) on N x N float32 matrices, as TFLOP/s and as a fraction of the
device's float32 peak (SMs x FP32 lanes per SM x 2 x clock, read through numba.cuda), next to
torch.mm in float32 (TF32 off).

Needs a CUDA GPU, pe installed with the [cuda] extra, and (for its column) torch.
"""
import argparse
import os
import statistics
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import call_times  # noqa: E402

MODELS = [("mlp", 128), ("mlp", 1024), ("lenet", 256)]

# FP32 lanes per SM by compute capability (major, minor); major alone as the fallback.
_FP32_LANES = {(6, 0): 64, (7, 0): 64, (7, 2): 64, (7, 5): 64, (8, 0): 64}
_FP32_LANES_MAJOR = {3: 192, 5: 128, 6: 128, 7: 64, 8: 128, 9: 128, 10: 128, 12: 128}


# -- the models, in pe (the Fluid API) and in PyTorch -------------------------------------------

def pe_program(model, lr=0.01):
    import pe_cli.fluid as fluid
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        shape = [1, 28, 28] if model == "lenet" else [784]
        image = fluid.layers.data(name="image", shape=shape)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        if model == "lenet":
            conv1 = fluid.layers.conv2d(image, num_filters=6, filter_size=5, padding=2, act="relu")
            pool1 = fluid.layers.pool2d(conv1, pool_size=2, pool_stride=2)
            conv2 = fluid.layers.conv2d(pool1, num_filters=16, filter_size=5, act="relu")
            pool2 = fluid.layers.pool2d(conv2, pool_size=2, pool_stride=2)
            fc1 = fluid.layers.fc(pool2, size=120, act="relu")
            hidden = fluid.layers.fc(fc1, size=84, act="relu")
        else:
            hidden = fluid.layers.fc(image, size=512, act="relu")
            hidden = fluid.layers.fc(hidden, size=512, act="relu")
        logits = fluid.layers.fc(hidden, size=10)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    return main, startup, loss


def torch_model(torch, model):
    nn = torch.nn
    if model == "lenet":
        return nn.Sequential(nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2, 2),
                             nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Flatten(),
                             nn.Linear(400, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def batch(model, n, seed=0):
    rng = np.random.default_rng(seed)
    shape = (n, 1, 28, 28) if model == "lenet" else (n, 784)
    return rng.standard_normal(shape).astype("float32"), rng.integers(0, 10, (n, 1)).astype("int64")


# -- timing ---------------------------------------------------------------------------------------

def timed(step, steps, warmup):
    return statistics.median(call_times(step, steps, warmup))


def time_pe(model, n, place, steps, warmup):
    import pe_cli.fluid as fluid
    main, startup, loss = pe_program(model)
    scope = fluid.Scope()
    exe = fluid.Executor(place)
    exe.run(startup, scope=scope)
    x, y = batch(model, n)
    feed = {"image": x, "label": y}

    def step():
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    median = timed(step, steps, warmup)
    return median, step


def profile_pe(step, steps=10):
    """Where a warm pe step's host time goes (pe_cli.base.profiler): kernels are timed as the host sees
    them (a CUDA launch returns before the GPU is done; copies back to the host wait for it)."""
    from pe_cli.base import profiler
    with profiler.collect() as prof:
        for _ in range(steps):
            step()
    return prof.summary(), prof.table("total")


def time_torch(torch, model, n, steps, warmup):
    torch.manual_seed(1)
    net = torch_model(torch, model).cuda()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = batch(model, n)
    x, y = torch.from_numpy(x), torch.from_numpy(y.reshape(-1))

    def step():
        xd, yd = x.to("cuda"), y.to("cuda")
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(net(xd), yd)
        loss.backward()
        opt.step()
        loss.item()
    return timed(step, steps, warmup)


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
        except Exception:       # noqa: BLE001 - the attribute is gone from newer drivers
            peak = None
    return name, cc, sms, lanes, peak


def time_matmul(size, steps):
    from numba import cuda

    from pe_cli.kernels.cuda import _matmul
    from pe_cli.kernels.cuda import runtime as rt
    rng = np.random.default_rng(0)
    with rt.device(0) as dev:
        a = rt.to_device(rng.standard_normal((size, size)).astype("float32"))
        b = rt.to_device(rng.standard_normal((size, size)).astype("float32"))
        out = rt.empty((size, size), "float32")
        _matmul.matmul(a, b, out=out)          # compile
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
    return 2.0 * size ** 3 / (start.elapsed_time(end) / 1e3 / steps) / 1e12


# -- the report -------------------------------------------------------------------------------------

def ms(seconds):
    return "n/a" if seconds is None else f"{seconds * 1e3:9.2f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--cpu-steps", type=int, default=10, help="steps timed for the (slow) pe CPU column")
    parser.add_argument("--skip-cpu", action="store_true")
    parser.add_argument("--profile", action="store_true", help="also print where pe's CUDA steps go")
    parser.add_argument("--models", default=",".join(f"{m}:{n}" for m, n in MODELS),
                        help="model:batch pairs to time, comma-separated")
    parser.add_argument("--matmul-size", type=int, default=4096, help="0 skips the matrix product kernel")
    parser.add_argument("--peak-tflops", type=float, default=None,
                        help="the device's float32 peak, if it cannot be derived from numba.cuda")
    args = parser.parse_args(argv)

    from pe_cli.base.errors import PeError
    from pe_cli.kernels.cuda import runtime
    from pe_cli.base.places import CPUPlace, CUDAPlace
    if runtime.simulated():
        print("gpu.py: NUMBA_ENABLE_CUDASIM=1 is set; this benchmark needs a real GPU (unset it)")
        return 2
    try:
        runtime.require(CUDAPlace(0))
    except PeError as e:
        print(f"gpu.py: {e}")
        return 2
    try:
        import torch
        if not torch.cuda.is_available():
            print("gpu.py: torch is installed but sees no GPU; its column is n/a")
            torch = None
    except ImportError:
        print("gpu.py: torch is not installed; its column is n/a")
        torch = None

    name, cc, sms, lanes, peak = device_info(args.peak_tflops)
    print(f"device: {name} (compute capability {cc[0]}.{cc[1]}, {sms} SMs x {lanes} FP32 lanes)")
    print(f"timing: median of {args.steps} steps after {args.warmup} warm-up steps "
          f"(pe CPU: {args.cpu_steps} steps); batch copied in and loss copied out every step\n")

    header = f"{'model':<8}{'batch':>6}  {'pe CUDA ms':>10}  {'pe CPU ms':>10}  {'torch CUDA ms':>13}  " \
             f"{'pe CUDA / torch':>15}  {'pe CPU / pe CUDA':>16}"
    print(header)
    print("-" * len(header))
    ratios, profiles = {}, {}
    models = [(m, int(n)) for m, n in (pair.split(":") for pair in args.models.split(","))]
    for model, n in models:
        gpu, gpu_step = time_pe(model, n, CUDAPlace(0), args.steps, args.warmup)
        if args.profile:
            profiles[(model, n)] = profile_pe(gpu_step)
        cpu = None if args.skip_cpu else time_pe(model, n, CPUPlace(), args.cpu_steps, 1)[0]
        ref = None if torch is None else time_torch(torch, model, n, args.steps, args.warmup)
        ratio = None if ref is None else gpu / ref
        ratios[(model, n)] = ratio
        print(f"{model:<8}{n:>6}  {ms(gpu):>10}  {ms(cpu):>10}  {ms(ref):>13}  "
              f"{'n/a' if ratio is None else f'{ratio:.2f}x':>15}  "
              f"{'n/a' if cpu is None else f'{cpu / gpu:.1f}x':>16}")

    for (model, n), (summary, table) in profiles.items():
        print(f"\npe CUDA, {model} batch {n}: step {summary['step_ms']:.3f} ms = kernels (host side) "
              f"{summary['kernel_ms']:.3f} + dispatch {summary['dispatch_ms']:.3f} "
              f"({summary['dispatch_us_per_op']:.1f} us/op x {summary['ops_per_run']:.0f} ops) "
              f"+ data {summary['data_ms']:.3f}")
        for line in table.splitlines()[:10]:
            print("    " + line)

    if not args.matmul_size:
        return 0
    tflops, error = time_matmul(args.matmul_size, 20)
    size = args.matmul_size
    print(f"\nmatrix product kernel, {size}x{size} @ {size}x{size} float32: {tflops:.2f} TFLOP/s "
          f"(max relative error {error:.1e})")
    if peak:
        print(f"  = {tflops / peak:.1%} of the device's float32 peak ({peak:.1f} TFLOP/s)")
    else:
        print("  the device's float32 peak is unknown here: pass --peak-tflops")
    if torch is not None:
        ref = time_torch_mm(torch, size, 20)
        print(f"  torch.mm (cuBLAS, TF32 off): {ref:.2f} TFLOP/s"
              + (f" = {ref / peak:.1%} of peak" if peak else ""))

    target = ratios.get(("mlp", 1024))
    if target is not None:
        verdict = "met" if target <= 2.0 else "NOT met"
        print(f"\ntarget (pe CUDA within 2x of PyTorch CUDA, MLP batch 1024): {target:.2f}x, {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
