"""A model's training step with conv2d on pe's own paths (``PE_ONEDNN=0``) and on oneDNN's
(kernels/cpu/runtime/onednn.py), each in its own process, alternating, on the same weights and batch.

    .venv/bin/python benchmarks/onednn_ab.py [--model resnet] [--rounds 2] [--threads 1] [--fused]

A measurement is the best of 3 x 8 steps after warm-up; compare the two columns of one run (the
machine is shared and noisy).
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def warmed(model, fused):
    """pe's ``model`` on 1 device (with ``fused``, bench_cpu.py's fused BuildStrategy) after warm-up
    steps, its kernels compiled."""
    sys.path.insert(0, HERE)
    from bench_cpu import FUSED
    from bench_models import MODELS, PeModel, strategy_of

    m = PeModel(model, MODELS[model], 1, strategy_of(FUSED) if fused else None)
    for _ in range(4):
        m.step()
    from pe_cli.kernels import finish_compiling

    finish_compiling()
    m.step()
    return m


def child(model, fused):
    m = warmed(model, fused)
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(8):
            m.step()
        best = min(best, (time.perf_counter() - start) / 8)
    print(json.dumps({"step_ms": best * 1e3}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="resnet")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=None, help="PE_DEVICE_THREADS (default: pe's rule)")
    parser.add_argument("--fused", action="store_true", help="the bench's fused BuildStrategy")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.model, args.fused)
    env = dict(os.environ)
    if args.threads:
        env["PE_DEVICE_THREADS"] = str(args.threads)
    cmd = [sys.executable, __file__, "--child", "--model", args.model] + (["--fused"] if args.fused else [])
    times = {"pe's own paths": [], "oneDNN": []}
    for _ in range(args.rounds):
        for label, flag in (("pe's own paths", "0"), ("oneDNN", "1")):
            out = subprocess.run(cmd, env=dict(env, PE_ONEDNN=flag), check=True, capture_output=True, text=True)
            times[label].append(json.loads(out.stdout.strip().splitlines()[-1])["step_ms"])
    own, dnn = min(times["pe's own paths"]), min(times["oneDNN"])
    print(
        f"{args.model}, {'fused, ' if args.fused else ''}threads {args.threads or 'default'}: ms a step, "
        f"best of {args.rounds} processes each"
    )
    for label, values in times.items():
        print(f"  {label:<15} " + "  ".join(f"{v:.2f}" for v in values))
    print(f"  oneDNN / own paths: {dnn / own:.3f}")


if __name__ == "__main__":
    sys.exit(main())
