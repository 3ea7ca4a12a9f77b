"""pe's GEMM (what mul and its gradients call: pe_cli/kernels/cpu/gemm.py) against PyTorch's
``torch.mm`` on the MLP's shapes, same operands, same thread count, alternating in one process.

It answers one question behind bench_cpu.py's MLP rows: when pe's step is not much faster than
PyTorch's there, is it because pe's GEMMs are slower? Each line gives both times (the 25th
percentile of ``--reps`` calls), their GFLOP/s and pe's time over PyTorch's. Needs torch (``make
bench`` installs it into .venv).

    .venv/bin/python benchmarks/gemm_shapes.py --threads 2

``--split`` asks another question, without PyTorch: on the MLP's and the wide MLP's shapes, how long
pe's GEMM takes split by rows of the result and split by columns (two of ``linalg.split_mode``'s
choices; benchmarks/weight_rows.py measures the third, by blocks of the inner dimension), alternating,
and which one pe takes.

    .venv/bin/python benchmarks/gemm_shapes.py --split --threads 2

``--model ctr``: the same on the sparse CTR model's dense tower (bench_ctr.py: 128-400-400-400-2, batch
512; the first layer's input gradient too, which the embeddings' gradients need), each shape as often
as a step runs it, with the step's total and its GFLOP/s against numpy's 1024^3 matmul on as many
threads (the ceiling bench_cpu.py reports).

    .venv/bin/python benchmarks/gemm_shapes.py --model ctr --threads 2
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import call_times  # noqa: E402

# (rows, inner, columns, transpose the first, transpose the second) of the MLP 784-256-256-10's
# forward GEMMs, weight gradients (Xᵀ dY) and input gradients (dY Wᵀ), at batch 128 and 512
SHAPES = (
    [(b, i, o, False, False) for b in (128, 512) for i, o in ((784, 256), (256, 256), (256, 10))]
    + [(i, b, o, True, False) for b in (128, 512) for i, o in ((784, 256), (256, 256), (256, 10))]
    + [(b, o, i, False, True) for b in (128, 512) for i, o in ((256, 256), (256, 10))]
)

# the sparse CTR's dense tower at batch 512 (bench_ctr.py): (rows, inner, columns, transposes, calls a step)
_CTR_DIMS = (128, 400, 400, 400, 2)
CTR_SHAPES = (
    [(512, i, o, False, False) for i, o in zip(_CTR_DIMS, _CTR_DIMS[1:])]
    + [(i, 512, o, True, False) for i, o in zip(_CTR_DIMS, _CTR_DIMS[1:])]
    + [(512, o, i, False, True) for i, o in zip(_CTR_DIMS, _CTR_DIMS[1:])]
)

# the wide MLP 4096-4096-4096-10's large GEMMs at batch 256: forward, weight and input gradients
WIDE = [(256, 4096, 4096, False, False), (4096, 256, 4096, True, False), (256, 4096, 4096, False, True)]


def p25(fn, reps):
    return call_times(fn, reps)[reps // 4]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--split", action="store_true", help="rows against columns, pe alone")
    parser.add_argument("--model", choices=("mlp", "ctr"), default="mlp", help="whose shapes (default: the MLP's)")
    args = parser.parse_args()
    os.environ["PE_DEVICE_THREADS"] = str(args.threads)
    if args.split:
        return split_main(args)
    import numpy as np
    import torch
    from pe_cli.kernels.cpu import gemm as pe_math
    from pe_cli.kernels.cpu.runtime import threads

    threads.use_devices(1)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    print(f"{args.threads} thread(s); p25 of {args.reps} calls; pe / torch")
    total = {"pe": 0.0, "torch": 0.0}
    for m, k, n, ta, tb in CTR_SHAPES if args.model == "ctr" else SHAPES:
        a = rng.random((k, m) if ta else (m, k), dtype=np.float32)
        b = rng.random((n, k) if tb else (k, n), dtype=np.float32)
        ta_, tb_ = torch.from_numpy(a), torch.from_numpy(b)
        left, right = (ta_.T if ta else ta_), (tb_.T if tb else tb_)
        np.testing.assert_allclose(pe_math.matmul2d(a, b, ta, tb), torch.mm(left, right).numpy(), rtol=1e-4)
        pe = p25(lambda: pe_math.matmul2d(a, b, ta, tb), args.reps)
        pt = p25(lambda: torch.mm(left, right), args.reps)
        total["pe"] += pe
        total["torch"] += pt
        flop = 2 * m * k * n
        shape = f"[{m}, {k}] x [{k}, {n}]" + (
            " (A stored transposed)" if ta else " (B stored transposed)" if tb else ""
        )
        print(
            f"{shape:<45} pe {1e6 * pe:8.1f} us {flop / pe / 1e9:5.1f} GFLOP/s   "
            f"torch {1e6 * pt:8.1f} us {flop / pt / 1e9:5.1f} GFLOP/s   {pe / pt:5.2f}"
        )
    print(
        f"all shapes: pe {1e3 * total['pe']:.3f} ms, torch {1e3 * total['torch']:.3f} ms, "
        f"{total['pe'] / total['torch']:.2f}"
    )
    if args.model == "ctr":
        from bench_cpu import matmul_gflops

        flop = sum(2 * m * k * n for m, k, n, _, _ in CTR_SHAPES)
        ceiling = matmul_gflops(args.threads)
        print(
            f"a step's dense tower: {flop / 1e9:.3f} GFLOP; at numpy's 1024^3 ceiling ({ceiling:.0f} GFLOP/s on "
            f"{args.threads} thread(s)) {1e3 * flop / ceiling / 1e9:.3f} ms; pe's GEMMs alone "
            f"{flop / total['pe'] / 1e9:.0f} GFLOP/s ({100 * flop / total['pe'] / 1e9 / ceiling:.0f}%), "
            f"torch's {flop / total['torch'] / 1e9:.0f} GFLOP/s"
        )


def split_main(args):
    import numpy as np
    from pe_cli.kernels.cpu import _blas_loops, gemm as pe_math
    from pe_cli.kernels.cpu.runtime import cblas, threads
    from pe_cli.kernels.cpu.runtime.loops import parallel_threads

    threads.use_devices(1)
    loop = _blas_loops.gemm_blocks_parallel if parallel_threads() > 1 else _blas_loops.gemm_blocks
    rng = np.random.default_rng(0)
    print(f"{args.threads} thread(s); p25 of the calls (--reps, a tenth for the wide MLP); by columns / by rows")
    for m, k, n, ta, tb in SHAPES + WIDE:
        if m * k * n < threads.SPLIT_GEMM_MACS:
            continue  # pe does not split these
        a = rng.random((k, m) if ta else (m, k), dtype=np.float32)
        b = rng.random((n, k) if tb else (k, n), dtype=np.float32)
        out = np.empty((m, n), dtype=np.float32)
        gemm, flags = (
            cblas.gemm(a.dtype),
            (cblas.TRANS if ta else cblas.NO_TRANS, cblas.TRANS if tb else cblas.NO_TRANS),
        )
        none = pe_math._epilogue_args(a.dtype, None, pe_math.NO_ACT, None)  # no bias, no activation
        reps = args.reps // 10 if (m, k, n, ta, tb) in WIDE else args.reps
        for by_cols in (False, True):
            loop(gemm, *flags, a, b, out, *none, 2, by_cols)
            np.testing.assert_allclose(out, (a.T if ta else a) @ (b.T if tb else b), rtol=1e-4)
        rows, cols = [], []
        for _ in range(reps):  # alternating, so that a busy moment hits both
            rows.append(call_times(lambda: loop(gemm, *flags, a, b, out, *none, 2, False), 1, warmup=0)[0])
            cols.append(call_times(lambda: loop(gemm, *flags, a, b, out, *none, 2, True), 1, warmup=0)[0])
        times = {"rows": sorted(rows)[reps // 4], "columns": sorted(cols)[reps // 4]}
        shape = f"[{m}, {k}] x [{k}, {n}]" + (
            " (A stored transposed)" if ta else " (B stored transposed)" if tb else ""
        )
        # mul's forward (neither stored transposed) and input gradient (B, the weight, transposed)
        weight_rows = pe_math.COLS if tb else None if ta else pe_math.INNER
        print(
            f"{shape:<45} rows {1e6 * times['rows']:9.1f} us   columns {1e6 * times['columns']:9.1f} us   "
            f"{times['columns'] / times['rows']:5.2f}   pe takes {pe_math.split_mode(m, n, k, weight_rows)}"
        )


if __name__ == "__main__":
    main()
