"""Where a model's step time goes, pe against PyTorch, kind of op by kind of op.

    .venv/bin/python benchmarks/op_gap.py [--model resnet] [--threads 1] [--steps 5] [--fused]

Each side runs in its own process on the same model, batch, weights and thread count
(bench_models.py): pe under its profiler (kernel times by op type), PyTorch under
``torch.profiler`` (self CPU time by aten op), both after warm-up steps. The ops are grouped into
kinds (convolution forward, convolution backward, batch norm, ...; ``KINDS``) and printed as ms per
step side by side, with pe minus PyTorch: the kinds where pe's step loses its time. Profilers add
their own cost (pe's ~1 us an op, PyTorch's more), so the totals run above bench_cpu.py's step times;
compare kinds, not totals. ``--fused`` builds pe's program with bench_cpu.py's fused BuildStrategy.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_models import MODELS, PeModel, TorchModel, strategy_of  # noqa: E402
from bench_cpu import FUSED  # noqa: E402

# kind -> (pe op types, PyTorch aten ops): an op of neither list counts under "other"
KINDS = {
    "convolution forward": (
        ("conv2d",),
        ("aten::mkldnn_convolution", "aten::thnn_conv2d", "aten::_slow_conv2d_forward"),
    ),
    "convolution backward": (
        ("conv2d_grad", "conv2d_grad_input", "conv2d_grad_filter"),
        ("aten::convolution_backward", "aten::_slow_conv2d_backward"),
    ),
    "batch norm (+ relu) forward": (("batch_norm", "fused_batch_norm_act"), ("aten::native_batch_norm",)),
    "batch norm (+ relu) backward": (
        ("batch_norm_grad", "fused_batch_norm_act_grad"),
        ("aten::native_batch_norm_backward",),
    ),
    "relu forward and backward": (("relu", "relu_grad"), ("aten::clamp_min", "aten::threshold_backward")),
    "adds, gradient sums, copies": (
        (
            "elementwise_add",
            "elementwise_add_grad",
            "sum",
            "fused_elemwise_activation",
            "fused_elemwise_activation_grad",
            "assign",
        ),
        ("aten::add", "aten::add_", "aten::copy_", "aten::sum"),
    ),
    "GEMMs (fc)": (
        ("mul", "mul_grad_x", "mul_grad_y", "fused_gemm_epilogue", "fused_gemm_epilogue_grad"),
        ("aten::addmm", "aten::mm"),
    ),
    "pooling": (
        ("pool2d", "pool2d_grad"),
        (
            "aten::adaptive_avg_pool2d",
            "aten::_adaptive_avg_pool2d",
            "aten::_adaptive_avg_pool2d_backward",
            "aten::max_pool2d_with_indices",
            "aten::max_pool2d_with_indices_backward",
        ),
    ),
    "optimizer": (
        ("momentum",),
        ("aten::_foreach_mul_", "aten::_foreach_add_", "aten::mul_", "aten::zero_", "Optimizer.step#SGD.step"),
    ),
}


def side(kind, model, threads, steps, fused):
    """This process's measurement: {op: ms per step} for ``kind`` ("pe" or "torch")."""
    batch = MODELS[model]
    if kind == "pe":
        os.environ["PE_DEVICE_THREADS"] = str(threads)
        from pe_cli.base import profiler
        from pe_cli.kernels import finish_compiling

        m = PeModel(model, batch, 1, strategy_of(FUSED if fused else None))
        for _ in range(3):
            m.step()
        finish_compiling()
        m.step()
        with profiler.collect() as prof:
            for _ in range(steps):
                m.step()
        return {op: 1e3 * total / steps for op, (_, total, _, _) in prof.ops.items()}
    from torch.profiler import ProfilerActivity, profile

    m = TorchModel(model, batch, threads)
    for _ in range(3):
        m.step()
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(steps):
            m.step()
    return {e.key: e.self_cpu_time_total / 1e3 / steps for e in prof.key_averages() if e.self_cpu_time_total > 0}


def by_kind(times, which):
    """{kind: ms per step} (which: 0 for pe's op names, 1 for PyTorch's); the unlisted under "other"."""
    out = dict.fromkeys(list(KINDS) + ["other"], 0.0)
    for op, ms in times.items():
        kind = next((k for k, names in KINDS.items() if op in names[which]), "other")
        out[kind] += ms
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="resnet", choices=sorted(MODELS))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--fused", action="store_true", help="pe with bench_cpu.py's fused BuildStrategy")
    parser.add_argument("--others", type=int, default=5, help="list this many of each side's largest ops of no kind")
    parser.add_argument("--side", choices=("pe", "torch"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        print(json.dumps(side(args.side, args.model, args.threads, args.steps, args.fused)))
        return 0
    times = {}
    for kind in ("pe", "torch"):
        cmd = [
            sys.executable,
            __file__,
            "--side",
            kind,
            "--model",
            args.model,
            "--threads",
            str(args.threads),
            "--steps",
            str(args.steps),
        ] + (["--fused"] if args.fused else [])
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"op_gap: the {kind} side failed:\n{done.stderr[-2000:]}")
        times[kind] = json.loads(done.stdout.strip().splitlines()[-1])
    pe, torch = by_kind(times["pe"], 0), by_kind(times["torch"], 1)
    print(
        f"{args.model} (batch {MODELS[args.model]}), {args.threads} thread(s), ms per step "
        f"(profiled, {args.steps} steps){', pe fused' if args.fused else ''}"
    )
    print(f"{'kind of op':<32}{'pe':>10}{'PyTorch':>10}{'pe - PyTorch':>14}")
    for kind in pe:
        print(f"{kind:<32}{pe[kind]:>10.2f}{torch[kind]:>10.2f}{pe[kind] - torch[kind]:>+14.2f}")
    print(
        f"{'total':<32}{sum(pe.values()):>10.2f}{sum(torch.values()):>10.2f}"
        f"{sum(pe.values()) - sum(torch.values()):>+14.2f}"
    )
    for which, name in enumerate(("pe", "torch")):
        listed = {op for names in KINDS.values() for op in names[which]}
        others = sorted(((ms, op) for op, ms in times[name].items() if op not in listed), reverse=True)
        if others and args.others:
            print(
                f"{name}'s largest ops of no kind: " + ", ".join(f"{op} {ms:.2f}" for ms, op in others[: args.others])
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
