"""The CPU out-kernels of the matmul family (structured kernels, pe_cli/shapes/structured.py): ``MATMUL`` (matmul,
matmul_v2, bmm) and ``MATMUL_GRAD`` (matmul_grad, matmul_grad_x, matmul_grad_y, bmm_grad), ``out(ins, outs, attrs,
meta)``. Each computes the products its meta rule decided (pe_cli/shapes/matmul.py: ``Meta.args``, one
``MatmulProduct`` an output) into the buffers it is handed, by the form the rule chose:

- ROWS and MATRIX: gemm.product_into (a large GEMM in blocks on the device's threads, each block calling BLAS
  single-threaded; other GEMMs numpy's, with BLAS sized by ``threads.for_gemm``; an inner dimension of 1 numpy's
  outer product), each operand handed as BLAS reads it: a transposed view as its C-contiguous base with the flag
  flipped, not copied (numpy's matmul reads strides the same way);
- STACKED: float stacks of one batch shape, split over the device's threads where at least
  ``threads.SPLIT_GEMM_MACS`` and the device has more than one free now (_blas_loops.gemm_batch, one BLAS call a
  product, as numpy's matmul; the same bits on any number of threads), else numpy's matmul;
- NUMPY: numpy's matmul into the buffer.

Then alpha, in place; a product the rule gave a scratch buffer (``temp``) is summed over broadcast dims, swapped
back or moved (Fluid's fused transpose) and cast as it is written into the output. HEADS (Fluid 1.8's multi-head
matmul) is a numpy form (``fresh``: _matmul_forms.matmul_heads's new arrays)."""

import math

import numpy as np

from ...shapes.gemm import GEMM, OUTER
from ...shapes.matmul import ADDMM, HEADS, MATRIX, NUMPY, PRODUCTS, ROWS, STACKED
from ...shapes.reshaping import SWAP_LOOP_MIN
from ..structured import fresh_output
from ._matmul_forms import matmul_heads
from .gemm import gemm, numpy_calls_gemm, product_into
from .elementwise_binary import unbroadcast
from .launches import by_variant, floats, one, parts_launch, twin_launch
from .runtime import cblas, threads
from .runtime.loops import lazy, parallel_parts, parallel_threads, twin

_loops = lazy("_blas_loops")
_transpose_loops = lazy("_transpose_loops")


def _operand(ins, o):
    """The input ``o.slot`` as the product reads it (shapes/matmul.Operand)."""
    v = ins[o.slot]
    if o.moved is not None:  # (Fluid's fused transpose undone: [B, M, H, N] -> [B, H, M, N])
        v = np.ascontiguousarray(v.reshape(o.moved).transpose(0, 2, 1, 3))
    if o.shape is not None:
        v = v.reshape(o.shape)
    if o.swap:
        v = v.swapaxes(-1, -2)
    if o.conj:
        v = np.conj(v)
    if o.scale is not None:
        v = v * o.scale
    if o.flat is not None:
        v = v.reshape(o.flat)
    return v


def _blas_view(a, trans):
    """A transposed view of a C-contiguous matrix as that matrix with the flag flipped (not copied)."""
    if not a.flags.c_contiguous and a.T.flags.c_contiguous:
        return a.T, not trans
    return a, trans


def _matrix(s, a, b, out):
    """Two matrices: gemm.product_into by the rule's path."""
    a, ta = _blas_view(a, s.trans_a)
    b, tb = _blas_view(b, s.trans_b)
    product_into(s.path, a, b, out, ta, tb)


def _rows(s, a, b, out):
    """A stack times one matrix: one product of the stack's rows."""
    _matrix(s, a.reshape(-1, a.shape[-1]), b, out)


def _numpy(s, a, b, out):
    a, b = (a.swapaxes(-1, -2) if s.trans_a else a), (b.swapaxes(-1, -2) if s.trans_b else b)
    threads.for_gemm(a.shape[-2] * a.shape[-1] * b.shape[-1])
    np.matmul(a, b, out=out)


def _stack_parts(s):
    """The blocks _stacked splits a stack's products into: the device's threads (at most one a product) where
    large, else 1 (numpy's matmul)."""
    batch, m, n, k = s.mnk
    return min(parallel_threads(), batch) if batch * m * n * k >= threads.SPLIT_GEMM_MACS else 1


def _stacked(s, a, b, out):
    """Float stacks of one batch shape: the products split over the device's threads (one BLAS call a product,
    as numpy's matmul) where large and the device has threads free, else numpy's matmul."""
    batch, m, n, k = s.mnk
    parts = _stack_parts(s)
    gemm_fn = cblas.gemm(a.dtype) if parts > 1 else None
    if gemm_fn is None:
        return _numpy(s, a, b, out)
    ta, tb = s.trans_a, s.trans_b
    # a transposed view goes as its C-contiguous base with the flag flipped
    if not a.flags.c_contiguous and a.swapaxes(-1, -2).flags.c_contiguous:
        a, ta = a.swapaxes(-1, -2), not ta
    if not b.flags.c_contiguous and b.swapaxes(-1, -2).flags.c_contiguous:
        b, tb = b.swapaxes(-1, -2), not tb
    a3 = np.ascontiguousarray(a).reshape((batch,) + a.shape[-2:])
    b3 = np.ascontiguousarray(b).reshape((batch,) + b.shape[-2:])
    ta, tb = cblas.TRANS if ta else cblas.NO_TRANS, cblas.TRANS if tb else cblas.NO_TRANS
    args, loops = (gemm_fn, ta, tb, a3, b3, out.reshape(batch, m, n), parts), _loops()
    twin(loops.gemm_batch, loops.gemm_batch_parallel, True, *args)(*args)


_FORMS = {ROWS: _rows, MATRIX: _matrix, STACKED: _stacked, NUMPY: _numpy}


def _written(s, product, out):
    """The product in its scratch buffer written into the output: summed over broadcast dims, swapped back or
    moved, cast."""
    if s.summed is not None:
        product = product.sum(axis=s.sum_axes).reshape(s.summed) if s.sum_axes else product.reshape(s.summed)
    if s.swap:
        product = product.swapaxes(-1, -2)
    if s.fused is not None:
        np.copyto(out.reshape(s.fused), product.transpose(0, 2, 1, 3))
    else:
        np.copyto(out, product.reshape(out.shape), casting="unsafe")


def _products(ins, outs, attrs, meta):
    _compute(ins, outs, meta.args)


def _compute(ins, outs, specs):
    """Each MatmulProduct of ``specs`` into its output."""
    for s in specs:
        dst = outs[s.out] if s.temp is None else outs[s.temp]
        view = dst if dst.shape == s.view else dst.reshape(s.view)
        _FORMS[s.form](s, _operand(ins, s.a), _operand(ins, s.b), view)
        if s.alpha is not None:
            np.multiply(dst, s.alpha, out=dst)
        if s.temp is not None:
            _written(s, dst, outs[s.out])


def _heads(ins, outs, attrs, meta):
    """Fluid 1.8's multi-head matmul (a numpy form): each output _matmul_forms.matmul_heads's new array."""
    x, y = ins["X"], ins["Y"]
    xm = x.reshape(1, -1) if x.ndim == 1 else x
    ym = y.reshape(-1, 1) if y.ndim == 1 else y
    operands = (
        xm.swapaxes(-1, -2) if attrs["transpose_X"] else xm,
        ym.swapaxes(-1, -2) if attrs["transpose_Y"] else ym,
    )
    for slot, spec in meta.outputs.items():
        result = matmul_heads(ins, attrs, slot.split("@")[0], operands)
        outs[slot] = fresh_output(result, spec, tuple(ins.values()))


def _stored(o, shape, trans):
    """(the 2-D shape a planned step reads the value of Operand ``o`` as, BLAS's transpose flag), as _blas_view
    hands a C-contiguous value to BLAS; None where the product reads anything but the value itself (conjugated,
    scaled, moved). A swapped view of a row or a column, which _blas_view does not flip (C-contiguous too), is read
    in its swapped shape: its values lie as they do."""
    if o.conj or o.scale is not None or o.moved is not None:
        return None
    shape = tuple(o.shape or shape)
    if o.swap:
        if o.flat is not None or len(shape) != 2:
            return None
        return (shape, not trans) if 1 not in shape else (shape[::-1], trans)
    shape = tuple(o.flat or shape)
    return ((math.prod(shape[:-1]), shape[-1]) if len(shape) != 2 else shape), trans


def _stack_launch(s, op, table):
    """The launch of a STACKED product written straight into its output (or into scratch, then swapped back into
    it by _transpose_loops.swap_middle or its twin, a copy as _written's): _stacked's gemm_batch (its parallel
    twin where _stacked splits the stack), or the serial loop, one BLAS GEMM a product, where _stacked runs
    numpy's matmul and numpy calls that GEMM (numpy's BLAS; no row, column or Gram product: numpy_calls_gemm);
    None for the rest (a stored operand _stacked would not hand BLAS as it lies)."""
    a, b, c = one(op, s.a.slot), one(op, s.b.slot), one(op, s.out, "outputs")
    if not floats(table, a, b, c):
        return None
    batch, m, n, k = s.mnk
    stored = []
    for o, name, trans in ((s.a, a, s.trans_a), (s.b, b, s.trans_b)):
        if o.conj or o.scale is not None or o.moved is not None or o.flat is not None:
            return None
        shape = tuple(o.shape or table[name][0])
        if math.prod(shape[:-2]) != batch or (o.swap and 1 in shape[-2:]):
            return None
        stored.append(((batch, *shape[-2:]), trans != o.swap))
    (a_shape, ta), (b_shape, tb) = stored
    parts = _stack_parts(s)
    if parts == 1 and (k < 2 or not numpy_calls_gemm(m, n, a == b and ta != tb)):
        return None
    # (one part: numpy's own GEMM, the one _stacked's np.matmul calls)
    fn = cblas.gemm(table[a][1]) if parts > 1 else cblas.numpy_gemm(table[a][1])
    if fn is None:
        return None
    loops = _loops()
    flags = [("const", cblas.TRANS if t else cblas.NO_TRANS) for t in (ta, tb)]
    if not s.temp:
        args = [("const", fn), *flags, ("var", a, a_shape), ("var", b, b_shape), ("var", c, (batch, m, n))]
        return [
            twin_launch(loops.gemm_batch, loops.gemm_batch_parallel, parts > 1, [*args, ("const", parts)], writes=[c])
        ]
    # into scratch the plan keeps, then swapped back into the output (_written's copy: the same bits)
    temp = np.empty((batch, m, n), table[a][1])
    args = [("const", fn), *flags, ("var", a, a_shape), ("var", b, b_shape), ("array", temp)]
    swap = [("array", temp.reshape(batch, m, n, 1)), ("var", c, (batch, n, m, 1))]
    product = twin_launch(loops.gemm_batch, loops.gemm_batch_parallel, parts > 1, [*args, ("const", parts)])
    swaps, parts = _transpose_loops(), parallel_parts(batch * m * n, SWAP_LOOP_MIN)  # (transpose's rule: a copy)
    return [product, parts_launch(swaps.swap_middle, swaps.swap_middle_parallel, parts, swap, writes=[c])]


def _launches(op, table, meta):
    """A planned step's launches of the products (gemm.gemm: the loops product_into runs; a STACKED one's:
    _stack_launch), or None where one is not two matrices (ROWS, MATRIX) on the GEMM or outer path or a stack
    (STACKED), written straight into its output (a row or a column, swapped back or not: the same values in the
    same order) with no alpha (a row or a column: numpy's GEMV, as its matmul calls it, gemm._gemv_launch); the op
    then runs as a Python launch, its out-kernel."""
    if meta.variant != PRODUCTS:
        return None
    launches = []
    for s in meta.args:
        swapped_back = s.temp and s.swap and s.summed is None and s.fused is None  # (a transposed Y's gradient)
        if s.form == STACKED and (not s.temp or swapped_back) and s.alpha is None:
            part = _stack_launch(s, op, table)
            if part is None:
                return None
            launches += part
            continue
        row_swapped = swapped_back and 1 in s.view  # (a row or a column swapped back: the same values in order)
        if s.form not in (ROWS, MATRIX) or s.path not in (GEMM, OUTER) or s.alpha is not None:
            return None
        if s.temp and not row_swapped:
            return None
        a, b, c = one(op, s.a.slot), one(op, s.b.slot), one(op, s.out, "outputs")
        if None in (a, b, c) or any(n not in table for n in (a, b, c)):
            return None
        a_view, b_view = _stored(s.a, table[a][0], s.trans_a), _stored(s.b, table[b][0], s.trans_b)
        if a_view is None or b_view is None:
            return None
        part = gemm(table, a, a_view[0], b, b_view[0], c, a_view[1], b_view[1])
        if part is None:
            return None
        launches += part
    return launches


MATMUL = by_variant("matmul_out", _launches, **{PRODUCTS: _products, HEADS: _heads})
MATMUL_GRAD = by_variant("matmul_grad_out", _launches, **{PRODUCTS: _products, HEADS: _heads})


def _addmm(ins, outs, attrs, meta):
    """addmm: the product Alpha * X @ Y into Out, then Beta * Input added to it (``meta.args``: the product,
    Beta)."""
    _compute(ins, outs, meta.args[:-1])
    out = outs["Out"]
    np.add(out, meta.args[-1] * ins["Input"], out=out, casting="unsafe")


def _addmm_grad(ins, outs, attrs, meta):
    """addmm_grad: X@GRAD and Y@GRAD, the products; Input@GRAD, Out@GRAD summed to Input's shape times Beta."""
    _compute(ins, outs, meta.args[:-1])
    dout = unbroadcast(ins["Out@GRAD"], outs["Input@GRAD"].shape)
    np.multiply(dout, meta.args[-1], out=outs["Input@GRAD"], casting="unsafe")


ADDMM_OUT = by_variant("addmm_out", None, **{ADDMM: _addmm})
ADDMM_GRAD = by_variant("addmm_grad_out", None, **{ADDMM: _addmm_grad})
