"""The CPU out-kernels of the GEMM ops (structured kernels, pe_cli/shapes/structured.py): ``MUL``, ``MUL_GRAD``,
``FUSED_GEMM`` and ``FUSED_GEMM_GRAD``, ``out(ins, outs, attrs, meta)``. Each computes the products its meta
rule decided (pe_cli/shapes/gemm.py: ``Meta.args`` is (the ``Product``s, the bias gradient's ``BiasSum`` or
None)) into the buffers it is handed: product_into over the operands viewed as the rule says, by the
path it chose (a large GEMM in blocks on the device's threads, each block calling BLAS single-threaded; a small
one numpy's BLAS; an inner dimension of 1 the outer product's loop; other dtypes numpy's product), with the
bias and relu, or relu's gradient, applied to each block by the thread that computed it (fused_gemm_epilogue:
the numbers of mul, elementwise_add and relu run one by one, to the bit).

Their ``launches(op, table, meta)``: a planned step's launches of the same loops (pe_cli/executor/step_plan.py),
made by ``gemm``, the blocks and loop of a product as product_into runs them.

The 2-D product itself (``product_into``; ``matmul2d`` into a new array, which matmul's kernels run,
linalg.py): a GEMM of at least ``threads.SPLIT_GEMM_MACS`` multiply-adds is split into as many blocks of
rows, of columns or of its inner dimension (split_mode) as its device has threads on a quiet machine
(threads.work_parts), run over the threads free now, each block calling BLAS single-threaded (_blas_loops.py;
numpy's BLAS, or MKL where runtime/cblas.py chose it, then on one thread too); other GEMMs are numpy's, with
BLAS sized by ``threads.for_gemm``; an inner dimension of 1 is numpy's outer product."""

import numpy as np

from ...shapes.gemm import COLS, GEMM, INNER, NO_ACT, ONE_PRODUCT, OUTER, PRODUCTS, RELU, RELU_GRAD, ROWS  # noqa: F401
from ...shapes.gemm import product_dtype, product_path
from . import _replicas, elementwise
from .launches import FLOATS, Launch, one, twin_launch
from .runtime import cblas, threads
from .runtime.loops import is_float, lazy, loop_or, parallel_threads, twin


_loops = lazy("_blas_loops")


# -- the 2-D product: its split over the device's threads, its paths ---------------------------------------


def split_mode(m, n, k, weight_rows=None):
    """How a GEMM with an [m, n] result and inner dimension k splits over the threads: into blocks
    of rows of the result (ROWS), of its columns (COLS) or of k (INNER). ``weight_rows``: where op(b)
    is a weight, which of those blocks are blocks of the weight's rows: INNER for mul's forward
    (op(b) is the weight), COLS for its input gradient (op(b) is the weight transposed).

    - COLS where the result is at least 4x wider than tall. BLAS packs both operands; each block
      of rows packs all of op(b) again ([k, n]), each block of columns all of op(a) ([m, k]).
      Columns where op(b) is the much larger: the wide MLP's [256, 4096] x [4096, 4096] took
      0.91-0.93 of the rows' time by columns, its input gradient 0.88-0.92 (1 and 2 threads); at
      the MLP's n = 2m the two splits are within +-8% of each other, either way (2-core Zen 4 VM,
      2026-11-24, ``benchmarks/gemm_shapes.py --split``).
    - Blocks of the weight's rows where it has at least half as many rows as the batch (2k >= m
      for the forward, 2n >= m for the input gradient). For the forward, INNER: block p multiplies
      columns k_p of x by rows k_p of the weight, and a second pass adds the partial products.
      Each thread then reads its own rows of the weight and no other, the rows its input gradient
      (by blocks of columns), its weight gradient (by rows) and its update (optimizer.py: a
      parameter split into as many contiguous blocks) also give to that thread. Split by rows of
      x, both threads read the whole weight, and the update then writes lines that sit in the
      other core's cache: on the 2-core Xeon VM (2026-11-25) the MLP's first-layer momentum took
      174 us against 41 (a numba loop reading the weight on both cores: 107 against 26 us), and
      blocks of columns of the weight do not help (the hardware prefetcher pulls the other half of
      each row in: 177 us). The partial sums cost an [m, n] pass, which the update's saving pays
      for up to m = 2k. Forward, weight gradient and momentum of one layer, us, by rows / by blocks
      of k (``benchmarks/weight_rows.py --shape m,k,n``):

      | m, k, n | 128, 784, 256 | 512, 784, 256 | 512, 256, 256 | 64, 400, 120 | 1024, 256, 256 | 2048, 128, 256 |
      |---|---|---|---|---|---|---|
      | rows | 536 | 1411 | 532 | 130 | 997 | 996 |
      | k | 391 | 1312 | 513 | 86 | 1017 | 1162 |

      The input gradient by the weight's rows too made the second [256, 256] weight's update
      61 -> 23 us in the MLP's step, the step's median 1.08 -> 0.97-1.05 ms (three alternating runs).
    - Not INNER for a result 4x wider than tall of ``WIDE_PARTIALS`` values or more: the beam's
      [256, 256] x [256, 10,000] took 13.3-15.4 ms by blocks of k (two [256, 10,000] partial products)
      against 11.3-11.5 by columns; the wide MLP's first layer 58.9-63.9 either way (2026-11-27).
    - Not for a weight of fewer than ``WEIGHT_ROWS_MIN`` values (the MLP's last layer, [256, 10]):
      its update is a few microseconds however the threads share it, and the other splits are
      faster. Over [512, 256] by [256, 10] on 2 threads (2026-11-25, the Xeon VM): the forward by
      rows 27 us against 36 by blocks of k (the partial sums' extra pass), and the input gradient
      with relu's gate by rows 20-27 us against 54-80 by blocks of columns (each thread's epilogue
      then reads and writes half of every row of the result, and the cores pull each other's
      lines).
    """
    if k * n >= WEIGHT_ROWS_MIN:
        if weight_rows == INNER and 2 * k >= m and (n < 4 * m or m * n < WIDE_PARTIALS):
            return INNER
        if weight_rows == COLS and 2 * n >= m:
            return COLS
    return COLS if n >= 4 * m else ROWS


WEIGHT_ROWS_MIN = 1 << 15  # values of a weight (k * n) below which split_mode ignores weight_rows
WIDE_PARTIALS = 1 << 18  # values of a wide result (m * n) from which it is not split by k (1 MiB of float32)


def matmul2d(a, b, trans_a=False, trans_b=False, weight_rows=None, bias=None, act=NO_ACT, gate=None):
    """op(a) @ op(b) for 2-D arrays, op being a transpose where asked; ``weight_rows``: see
    split_mode. Then the epilogue, on each block as its thread computes it: + ``bias`` (a row of
    n values), then ``act``: RELU, or RELU_GRAD (zero where ``gate``, [m, n], is not > 0). A new array,
    by the path shapes/gemm.product_path chooses (product_into)."""
    m, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
    n = b.shape[0] if trans_b else b.shape[1]
    path = product_path(m, n, k, a.dtype, b.dtype)
    out = np.empty((m, n), dtype=product_dtype(path, a.dtype, b.dtype))
    product_into(path, a, b, out, trans_a, trans_b, weight_rows, bias, act, gate)
    return out


def product_into(path, a, b, out, trans_a=False, trans_b=False, weight_rows=None, bias=None, act=NO_ACT, gate=None):
    """matmul2d's product into ``out`` ([m, n], C-contiguous, of the product's dtype) by ``path``
    (shapes/gemm.py: GEMM, OUTER or NUMPY): a GEMM of at least SPLIT_GEMM_MACS in blocks on the device's
    threads (blocked_gemm), a smaller one numpy's (BLAS sized by ``threads.for_gemm``); an inner dimension
    of 1 numpy's outer product's bits; then the epilogue."""
    m, n = out.shape
    k = a.shape[0] if trans_a else a.shape[1]
    macs = m * n * k
    if path == GEMM and macs >= threads.SPLIT_GEMM_MACS:
        mode, parts, gemm = blocked_gemm(m, n, k, a.dtype, weight_rows)
        if gemm is not None:
            # the same blocks on however many threads are free now (the serial twin on one)
            a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
            ta, tb = cblas.TRANS if trans_a else cblas.NO_TRANS, cblas.TRANS if trans_b else cblas.NO_TRANS
            epilogue = _epilogue_args(a.dtype, bias, act, gate)
            loops, parallel = _loops(), parallel_threads() > 1
            if mode == INNER and parts > 1:
                args = (gemm, ta, tb, a, b, out, np.empty((parts, m, n), dtype=a.dtype), *epilogue, parts)
                twin(
                    loops.gemm_k_blocks, loops.gemm_k_blocks_parallel, parallel, *args, replica=_replicas.gemm_k_blocks
                )(*args)
            else:
                args = (gemm, ta, tb, a, b, out, *epilogue, parts, mode == COLS)
                twin(loops.gemm_blocks, loops.gemm_blocks_parallel, parallel, *args, replica=_replicas.gemm_blocks)(
                    *args
                )
            return
    threads.for_gemm(macs)
    if path == OUTER:  # an outer product: 4x faster than BLAS's GEMM ([2,560] x [256]), same bits
        args = (np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1), out)
        loop_or(_outer_numpy, _loops().outer, *args)(*args)  # the loop a planned step launches
    else:
        np.matmul(a.T if trans_a else a, b.T if trans_b else b, out=out)
    if (bias is not None or act != NO_ACT) and is_float(out):
        # the loops' epilogue on the whole result (its numpy replica while it compiles: the same bits)
        args = (out, 0, m, 0, n, *_epilogue_args(out.dtype, bias, act, gate))
        loop_or(_replicas.epilogue_rect, _loops()._epilogue, *args)(*args)
    elif bias is not None or act != NO_ACT:
        _replicas.epilogue(out, *_epilogue_args(out.dtype, bias, act, gate))


def blocked_gemm(m, n, k, dtype, weight_rows=None):
    """(mode, parts, gemm) of a float GEMM of at least SPLIT_GEMM_MACS: how matmul2d splits it
    (split_mode, into threads.work_parts() blocks at most) and the CBLAS GEMM its loop calls, None
    where numpy's product runs it (one part, numpy's BLAS). A planned step's launch (the out-kernels' ``launches``)
    makes the same choice."""
    mode = split_mode(m, n, k, weight_rows)
    parts = min(threads.work_parts(), {ROWS: m, COLS: n, INNER: k}[mode])
    # on one thread too where the loops' GEMM is MKL (faster than numpy's OpenBLAS: runtime/cblas.py)
    gemm = cblas.gemm(dtype) if parts > 1 or cblas.source() == cblas.MKL else None
    return mode, parts, gemm


def _outer_numpy(a, b, out):
    """_blas_loops.outer's bits by numpy (while the loop compiles)."""
    np.multiply(a.reshape(-1, 1), b.reshape(1, -1), out=out)


_NONE = {}  # dtype -> (an empty bias, an empty gate): the epilogue that does nothing


def _epilogue_args(dtype, bias, act, gate):
    """(bias, gate, act) as the loops take them: empty arrays of ``dtype`` for those not given."""
    empty = _NONE.get(dtype)
    if empty is None:
        empty = _NONE[dtype] = (np.empty(0, dtype), np.empty((0, 0), dtype))
    bias = empty[0] if bias is None else np.ascontiguousarray(bias, dtype=dtype).reshape(-1)
    gate = empty[1] if gate is None else np.ascontiguousarray(gate, dtype=dtype)
    return bias, gate, act


# -- the out-kernels ----------------------------------------------------------------------------------------


def _products(ins, outs, attrs, meta):
    specs, bias_sum = meta.args
    if bias_sum is not None:  # as elementwise_add_grad sums the bias's gradient
        d, dbias = ins[bias_sum.d].reshape(bias_sum.rows, bias_sum.n), outs[bias_sum.out]
        if bias_sum.loop:
            elementwise.bias_grad(d, (bias_sum.rows, bias_sum.n, 1), dbias.shape, out=dbias)
        else:
            np.copyto(dbias, d.sum(axis=0), casting="unsafe")
    for s in specs:
        a, b = ins[s.a].reshape(s.a_shape), ins[s.b].reshape(s.b_shape)
        if s.conj_a:
            a = np.conj(a)
        if s.conj_b:
            b = np.conj(b)
        bias = None if s.bias is None else ins[s.bias]
        gate = None if s.gate is None else ins[s.gate].reshape(s.mn)
        product_into(s.path, a, b, outs[s.out].reshape(s.mn), s.trans_a, s.trans_b, s.rows, bias, s.act, gate)


def _product(ins, outs, attrs, meta):
    """One product, no epilogue, no bias sum (mul's forward, a gradient op's one output): the same, shorter (a
    value viewed only where its shape is not the view's: a reshape costs a microsecond)."""
    s = meta.args[0][0]
    a, b, out = ins[s.a], ins[s.b], outs[s.out]
    if a.shape != s.a_shape:
        a = a.reshape(s.a_shape)
    if b.shape != s.b_shape:
        b = b.reshape(s.b_shape)
    product_into(s.path, a, b, out if out.shape == s.mn else out.reshape(s.mn), s.trans_a, s.trans_b, s.rows)


def numpy_calls_gemm(m, n, gram):
    """Whether numpy's matmul of an [m, k] by [k, n] product (k > 1, C-contiguous operands) calls its BLAS's
    GEMM, whose bits a launch of that GEMM gives: not for a row or a column (m or n 1: numpy calls GEMV or its
    dot, other sums), nor for one array by its own transpose (``gram``: numpy calls SYRK)."""
    return m > 1 and n > 1 and not gram


def gemm(table, a, a_shape, b, b_shape, c, trans_a=False, trans_b=False, weight_rows=None, epilogue=None):
    """The launches of product_into(a viewed as a_shape, b as b_shape) into c on the GEMM or outer
    path, or None; ``epilogue``: (bias name or None, act, gate name or None), its bias, act and gate."""
    m, k = (a_shape[1], a_shape[0]) if trans_a else a_shape
    n = b_shape[0] if trans_b else b_shape[1]
    dtype = table[a][1]
    if dtype not in FLOATS or table[b][1] != dtype or not m * n * k:
        return None
    bias, act, gate = epilogue or (None, NO_ACT, None)
    if any(name is not None and table[name][1] != dtype for name in (bias, gate)):
        return None
    ends = [
        ("var", bias, (n,)) if bias is not None else ("array", np.empty(0, dtype)),
        ("var", gate, (m, n)) if gate is not None else ("array", np.empty((0, 0), dtype)),
        ("const", act),
    ]
    if k == 1:  # numpy's outer product, then the epilogue on all of c (product_into)
        launch = Launch(_loops().outer, [("var", a, (m,)), ("var", b, (n,)), ("var", c, (m, n))], writes=[c])
        return _with_epilogue(launch, c, m, n, ends, bias is not None or act != NO_ACT)
    fn = None
    if m * n * k >= threads.SPLIT_GEMM_MACS:
        mode, parts, fn = blocked_gemm(m, n, k, dtype, weight_rows)
    if fn is None and (m == 1) != (n == 1):  # numpy's matmul of a row or a column: its GEMV
        launch = _gemv_launch(table, a, a_shape, b, b_shape, c, trans_a, trans_b)
        return launch and _with_epilogue(launch, c, m, n, ends, bias is not None or act != NO_ACT)
    if fn is None:  # numpy's product: one call of numpy's own BLAS (np.matmul's GEMM, whatever the loops' source)
        if not numpy_calls_gemm(m, n, a == b and trans_a != trans_b):
            return None
        mode, parts, fn = ROWS, 1, cblas.numpy_gemm(dtype)
        if fn is None:
            return None
    ta = cblas.TRANS if trans_a else cblas.NO_TRANS
    tb = cblas.TRANS if trans_b else cblas.NO_TRANS
    head = [("const", fn), ("const", ta), ("const", tb), ("var", a, a_shape), ("var", b, b_shape), ("var", c, (m, n))]
    twin = parts > 1 and parallel_threads() > 1  # product_into's choice: its blocks on the device's threads
    if mode == INNER and parts > 1:
        partial = ("array", np.empty((parts, m, n), dtype))
        args = [*head, partial, *ends, ("const", parts)]
        return [twin_launch(_loops().gemm_k_blocks, _loops().gemm_k_blocks_parallel, twin, args, writes=[c])]
    args = [*head, *ends, ("const", parts), ("const", mode == COLS)]
    return [twin_launch(_loops().gemm_blocks, _loops().gemm_blocks_parallel, twin, args, writes=[c])]


def _with_epilogue(launch, c, m, n, ends, any_epilogue):
    """[launch], then the loops' epilogue on all of c where it has a bias or an activation (product_into's)."""
    if not any_epilogue:
        return [launch]
    args = [("var", c, (m, n)), ("const", 0), ("const", m), ("const", 0), ("const", n), *ends]
    return [launch, Launch(_loops()._epilogue, args)]


def _gemv_launch(table, a, a_shape, b, b_shape, c, trans_a, trans_b):
    """The launch of numpy's own GEMV as np.matmul calls it for op(a) [m, k] @ op(b) [k, n], n 1 (a matrix by a
    column) or m 1 (a row by a matrix: numpy's product of op(b)'s transpose by the row), k > 1, below
    SMALL_GEMM_MACS multiply-adds (one BLAS thread, as product_into sets it): _blas_loops.gemv_column on the matrix
    as it is stored, or None."""
    m, k = (a_shape[1], a_shape[0]) if trans_a else a_shape
    n = b_shape[0] if trans_b else b_shape[1]
    fn = cblas.numpy_gemv(table[a][1])
    if fn is None or m * n * k >= threads.SMALL_GEMM_MACS or a == b:
        return None
    if n == 1:  # the matrix a ([m, k], or [k, m] where transposed) by b's k values
        matrix, shape, flag, vector = a, a_shape, cblas.TRANS if trans_a else cblas.NO_TRANS, b
    else:  # the matrix b ([k, n] read transposed: row-major; [n, k] where op transposes it) by a's k values
        matrix, shape, flag, vector = b, b_shape, cblas.NO_TRANS if trans_b else cblas.TRANS, a
    args = [("const", fn), ("const", flag), ("var", matrix, shape), ("var", vector, (k,)), ("var", c, (m * n,))]
    return Launch(_loops().gemv_column, args, writes=[c])


def _launches(op, table, meta):
    """A planned step's launches of the products (and bias sum) the Meta names, or None where one of them
    takes numpy's path or a value is not one variable (the op then runs as a Python launch, its out-kernel)."""
    specs, bias_sum = meta.args
    launches = []
    if bias_sum is not None:
        d, dbias = one(op, bias_sum.d), one(op, bias_sum.out, "outputs")
        if not bias_sum.loop or None in (d, dbias):
            return None
        run = (bias_sum.rows, bias_sum.n, 1)
        launches.append(elementwise.bias_grad_launch(d, run, ("var", dbias, (bias_sum.n,)), dbias))
    for s in specs:
        a, b, c = one(op, s.a), one(op, s.b), one(op, s.out, "outputs")
        bias, gate = (None if slot is None else one(op, slot) for slot in (s.bias, s.gate))
        if s.path not in (GEMM, OUTER) or s.conj_a or s.conj_b or None in (a, b, c):
            return None
        if (s.bias is not None and bias is None) or (s.gate is not None and gate is None):
            return None
        part = gemm(table, a, s.a_shape, b, s.b_shape, c, s.trans_a, s.trans_b, s.rows, (bias, s.act, gate))
        if part is None:
            return None
        launches += part
    return launches


def _out_kernel(name):
    """The out-kernel running the Meta's variant (``out.variants``: variant -> its function, which a step binds
    once per Meta): PRODUCTS, or ONE_PRODUCT (shapes/gemm.py)."""
    variants = {PRODUCTS: _products, ONE_PRODUCT: _product}

    def out(ins, outs, attrs, meta):
        variants[meta.variant](ins, outs, attrs, meta)

    out.__name__ = out.__qualname__ = name
    out.launches, out.variants = _launches, variants
    return out


MUL = _out_kernel("mul_out")
MUL_GRAD = _out_kernel("mul_grad_out")
FUSED_GEMM = _out_kernel("fused_gemm_epilogue_out")
FUSED_GEMM_GRAD = _out_kernel("fused_gemm_epilogue_grad_out")
