"""conv2d's three CPU paths for a stride-1 filter side by side: im2col + GEMM, wide columns + GEMM
(pe_cli/kernels/cpu/_wide_loops.py) and Winograd F(2x2, 3x3) (_winograd.py), forward, input
gradient and filter gradient, on 1 and 2 threads, on the small ResNet's 3x3 shapes and LeNet-5's
5x5 ones (batch 64) and a few thinner ones, each path forced (pe's rules, _conv.wide_applies and
shapes/conv2d.winograd_applies, pick a path where these numbers said it gains on the machine they were measured
on: docs/PERFORMANCE.md). Each time is the best of ``--reps`` calls, the paths alternating in one
process (the machine is shared: compare the ratios, which are over im2col's time).

    .venv/bin/python benchmarks/conv_paths.py [--reps 8] [--shapes 16,16,32 8,8,32 6,16,14,5,0]
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import call_times  # noqa: E402

SHAPES = [
    (16, 16, 32),
    (32, 32, 16),
    (64, 64, 8),
    (8, 8, 32),
    (4, 16, 32),  # (C, M, H = W[, k, padding])
    (1, 6, 28, 5, 2),
    (6, 16, 14, 5, 0),
    (3, 16, 32),
]
PATHS = ("im2col", "wide", "winograd")


def best_ms(fn, reps):
    return call_times(fn, reps)[0] * 1e3


def measure(c, m, hw, reps, k=3, padding=1, batch=64):
    from pe_cli.kernels.cpu import _conv, convolution
    from pe_cli.shapes import conv2d as rules
    from pe_cli.kernels.cpu.runtime import threads
    from pe_cli.ops import registry

    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch, c, hw, hw)).astype(np.float32)
    w = rng.normal(size=(m, c, k, k)).astype(np.float32)
    ho = hw + 2 * padding - k + 1
    ins = {"Input": x, "Filter": w, "Output@GRAD": rng.normal(size=(batch, m, ho, ho)).astype(np.float32)}
    attrs = registry.get("conv2d").default_attrs()
    attrs.update(strides=[1, 1], paddings=[padding, padding])
    kernels = (convolution.conv2d, convolution.conv2d_grad_input, convolution.conv2d_grad_filter)
    rule = (rules.WINOGRAD_MIN_CHANNELS, rules.WINOGRAD_MIN_TILES, _conv.WIDE_MAX_SPAN)
    rows, share_before = {}, threads._share
    for share in (1, 2):
        threads._share = share
        for path in PATHS if k == 3 else PATHS[:2]:  # each path forced, whatever the rules
            rules.WINOGRAD_MIN_CHANNELS = rules.WINOGRAD_MIN_TILES = 1 if path == "winograd" else 10**9
            _conv.WIDE_MAX_SPAN = 10.0 if path == "wide" else 0.0
            rows[path, share] = [best_ms(lambda f=f: f(ins, attrs), reps) for f in kernels]
    rules.WINOGRAD_MIN_CHANNELS, rules.WINOGRAD_MIN_TILES, _conv.WIDE_MAX_SPAN = rule
    threads._share = share_before
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument(
        "--shapes",
        nargs="*",
        default=[",".join(map(str, s)) for s in SHAPES],
        help="C,M,H[,k,padding]: channels in and out, input size, the filter (3) and padding (1); stride 1, batch 64",
    )
    args = parser.parse_args()
    import threadpoolctl
    from pe_cli.kernels.cpu.runtime import loops as _numba

    _numba.EAGER = True  # compile the loops now, not in a helper
    threadpoolctl.threadpool_limits(1)
    print("ms, best of %d: forward / input gradient / filter gradient; in parentheses, over im2col's" % args.reps)
    for text in args.shapes:
        c, m, hw, *rest = map(int, text.split(","))
        rows = measure(c, m, hw, args.reps, *rest)
        k = rest[0] if rest else 3
        for share in (1, 2):
            base = rows["im2col", share]
            cells = []
            for path in PATHS:
                if (path, share) in rows:
                    times = rows[path, share]
                    cells.append(
                        f"{path} "
                        + " / ".join(f"{t:6.2f}" for t in times)
                        + " ("
                        + " / ".join(f"{t / b:4.2f}" for t, b in zip(times, base))
                        + ")"
                    )
            print(f"C {c:3d} M {m:3d} {hw:2d}x{hw:<2d} {k}x{k} {share} thr   " + "   ".join(cells))


if __name__ == "__main__":
    main()
