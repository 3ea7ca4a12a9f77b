"""conv2d's two CPU paths side by side: im2col + GEMM against Winograd F(2x2, 3x3)
(pe_cli/kernels/cpu/_winograd.py), forward, input gradient and filter gradient, on 1 and 2 threads,
on the small ResNet's 3x3 stride-1 shapes (batch 64) and a few thinner ones, each path forced
(pe's rule, _winograd.applies, picks Winograd where these numbers said it gains on the machine it was
measured on: docs/PERFORMANCE.md). Each time is the best of ``--reps`` calls, the two paths
alternating in one process (the machine is shared: compare the ratios).

    .venv/bin/python benchmarks/conv_paths.py [--reps 8] [--shapes 16,16,32 8,8,32]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import call_times  # noqa: E402

SHAPES = [(16, 16, 32), (32, 32, 16), (64, 64, 8), (8, 8, 32), (4, 16, 32)]    # (C, M, H = W)


def best_ms(fn, reps):
    return call_times(fn, reps)[0] * 1e3


def measure(c, m, hw, reps, batch=64):
    from pe_cli.kernels.cpu import _winograd, nn, threads
    from pe_cli.ops import registry
    rng = np.random.default_rng(0)
    x = rng.normal(size=(batch, c, hw, hw)).astype(np.float32)
    w = rng.normal(size=(m, c, 3, 3)).astype(np.float32)
    ins = {"Input": x, "Filter": w, "Output@GRAD": rng.normal(size=(batch, m, hw, hw)).astype(np.float32)}
    attrs = registry.get("conv2d").default_attrs()
    attrs.update(strides=[1, 1], paddings=[1, 1])
    kernels = (nn.conv2d, nn.conv2d_grad_input, nn.conv2d_grad_filter)
    rows, rule, share_before = {}, (_winograd.MIN_CHANNELS, _winograd.MIN_TILES), threads._share
    for share in (1, 2):
        threads._share = share
        for path, least in (("im2col", 10 ** 9), ("winograd", 1)):     # each path forced, whatever the rule
            _winograd.MIN_CHANNELS = _winograd.MIN_TILES = least
            rows[path, share] = [best_ms(lambda k=k: k(ins, attrs), reps) for k in kernels]
    _winograd.MIN_CHANNELS, _winograd.MIN_TILES = rule
    threads._share = share_before
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--shapes", nargs="*", default=[",".join(map(str, s)) for s in SHAPES],
                        help="C,M,H triples (3x3 filter, stride 1, padding 1, batch 64)")
    args = parser.parse_args()
    import threadpoolctl
    from pe_cli.kernels.cpu import _numba
    _numba.EAGER = True                                  # compile the loops now, not in a helper
    threadpoolctl.threadpool_limits(1)
    print("ms, best of %d: forward / input gradient / filter gradient (winograd / im2col)" % args.reps)
    for text in args.shapes:
        c, m, hw = map(int, text.split(","))
        rows = measure(c, m, hw, args.reps)
        for share in (1, 2):
            wino, im2col = rows["winograd", share], rows["im2col", share]
            print(f"C {c:3d} M {m:3d} {hw:2d}x{hw:<2d} {share} thr   winograd "
                  + " / ".join(f"{t:6.2f}" for t in wino) + "   im2col "
                  + " / ".join(f"{t:6.2f}" for t in im2col) + "   ratio "
                  + " / ".join(f"{a / b:4.2f}" for a, b in zip(wino, im2col)))


if __name__ == "__main__":
    main()
