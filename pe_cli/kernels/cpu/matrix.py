"""The matrix family's CPU out-kernels (structured kernels, shapes/structured.py; meta rules:
shapes/matrix.py; addmm's and bmm's are matmul's, kernels/cpu/matmul.py): dot, cross, kron, trace,
bilinear_tensor_product and their gradients, ``out(ins, outs, attrs, meta)``. The "out" variants write numpy's
ufuncs, reductions and einsum through their ``out=``; the "fresh" variants (values of more than one dtype; cross's
numpy form, which has no ``out=``) put the array numpy made, cast to the output's dtype (kernels/structured.py
fresh_output). The kernels by name are the same through kernels/structured.adapter, for CUDA's host fallbacks."""

import numpy as np

from ...shapes import matrix as metas
from ..common import conj
from ..structured import adapter, fresh_output
from .launches import by_variant


def _fresh(outs, meta, ins, **results):
    for slot, result in results.items():
        if slot in meta.outputs:
            outs[slot] = fresh_output(result, meta.outputs[slot], tuple(ins.values()))


# -- dot --------------------------------------------------------------------------------------------------------


def _dot(ins, outs, attrs, meta):
    product = np.multiply(ins["X"], ins["Y"])
    np.add.reduce(product, axis=-1, dtype=product.dtype, keepdims=meta.args[0], out=outs["Out"])


def _dot_fresh(ins, outs, attrs, meta):
    x, y = ins["X"], ins["Y"]
    _fresh(outs, meta, ins, Out=np.asarray((x * y).sum(axis=-1, keepdims=meta.args[0], dtype=x.dtype)))


def _dot_grad(ins, outs, attrs, meta):
    dout = ins["Out@GRAD"].reshape(meta.args[0])  # complex: the other factor's conjugate, as Paddle 2.6's
    np.multiply(dout, conj(ins["Y"]), out=outs["X@GRAD"])
    np.multiply(dout, conj(ins["X"]), out=outs["Y@GRAD"])


def _dot_grad_fresh(ins, outs, attrs, meta):
    dout = ins["Out@GRAD"].reshape(meta.args[0])
    _fresh(outs, meta, ins, **{"X@GRAD": dout * conj(ins["Y"]), "Y@GRAD": dout * conj(ins["X"])})


# -- cross ------------------------------------------------------------------------------------------------------


def _cross(ins, outs, attrs, meta):
    _fresh(outs, meta, ins, Out=np.cross(ins["X"], ins["Y"], axis=meta.args[0]))


def _cross_grad(ins, outs, attrs, meta):
    x, y, dout, axis = ins["X"], ins["Y"], ins["Out@GRAD"], meta.args[0]
    _fresh(outs, meta, ins, **{"X@GRAD": np.cross(y, dout, axis=axis), "Y@GRAD": np.cross(dout, x, axis=axis)})


# -- kron -------------------------------------------------------------------------------------------------------


def _kron(ins, outs, attrs, meta):
    xs, ys, inter = meta.args
    np.multiply(ins["X"].reshape(xs), ins["Y"].reshape(ys), out=outs["Out"].reshape(inter))


def _kron_fresh(ins, outs, attrs, meta):
    xs, ys, inter = meta.args
    out = ins["X"].reshape(xs) * ins["Y"].reshape(ys)
    _fresh(outs, meta, ins, Out=out.reshape(meta.outputs["Out"][0]))


def _kron_parts(ins, meta):
    """(dOut times Y, dOut times X, the axes each sums over); of complex values the other factor's conjugate, as
    Paddle 2.6's gradient (dX = sum dOut * conj(Y))."""
    inter, (xs, ys), axes, _ = meta.args
    d, x, y = ins["Out@GRAD"].reshape(inter), ins["X"].reshape(xs), ins["Y"].reshape(ys)
    if np.iscomplexobj(x) or np.iscomplexobj(y):
        x, y = np.conj(x), np.conj(y)
    return d * y, d * x, axes


def _kron_grad(ins, outs, attrs, meta):
    dys, dxs, (x_axes, y_axes) = _kron_parts(ins, meta)
    xr, yr = meta.args[3]
    np.add.reduce(dys, axis=x_axes, dtype=dys.dtype, out=outs["X@GRAD"].reshape(xr))
    np.add.reduce(dxs, axis=y_axes, dtype=dxs.dtype, out=outs["Y@GRAD"].reshape(yr))


def _kron_grad_fresh(ins, outs, attrs, meta):
    dys, dxs, (x_axes, y_axes) = _kron_parts(ins, meta)
    dx, dy = dys.sum(axis=x_axes), dxs.sum(axis=y_axes)
    shapes = meta.outputs["X@GRAD"][0], meta.outputs["Y@GRAD"][0]
    _fresh(outs, meta, ins, **{"X@GRAD": dx.reshape(shapes[0]), "Y@GRAD": dy.reshape(shapes[1])})


# -- trace ------------------------------------------------------------------------------------------------------


def _trace(ins, outs, attrs, meta):
    x = ins["Input"]
    dims, rows, cols, rest = meta.args
    values = np.moveaxis(x, dims, (-2, -1))[..., rows, cols]
    np.add.reduce(values, axis=-1, dtype=x.dtype, out=outs["Out"].reshape(rest))


def _trace_grad(ins, outs, attrs, meta):
    dims, rows, cols, rest = meta.args
    dx = outs["Input@GRAD"]
    dx.fill(0)
    np.moveaxis(dx, dims, (-2, -1))[..., rows, cols] = ins["Out@GRAD"].reshape(rest + (1,))


# -- bilinear_tensor_product ------------------------------------------------------------------------------------

_BILINEAR_GRADS = {
    "X@GRAD": ("bk,kmn,bn->bm", "Y"),
    "Y@GRAD": ("bk,kmn,bm->bn", "X"),
    "Weight@GRAD": ("bk,bm,bn->kmn", None),
}


def _bilinear_fresh(ins, outs, attrs, meta):
    out = np.einsum("bm,kmn,bn->bk", ins["X"], ins["Weight"], ins["Y"])
    if ins.get("Bias") is not None:
        out = out + ins["Bias"].reshape(1, -1)
    _fresh(outs, meta, ins, Out=out)


def _bilinear_operands(ins, slot):
    spec, other = _BILINEAR_GRADS[slot]
    d = ins["Out@GRAD"]
    return spec, (d, ins["Weight"], ins[other]) if other else (d, ins["X"], ins["Y"])


def _bilinear_grad_fresh(ins, outs, attrs, meta):
    for slot in meta.outputs:
        if slot == "Bias@GRAD":
            result = ins["Out@GRAD"].sum(axis=0, keepdims=True)
        else:
            spec, operands = _bilinear_operands(ins, slot)
            result = np.einsum(spec, *operands)
        _fresh(outs, meta, ins, **{slot: result})


DOT = by_variant("dot_out", None, out=_dot, fresh=_dot_fresh)
DOT_GRAD = by_variant("dot_grad_out", None, out=_dot_grad, fresh=_dot_grad_fresh)
CROSS = by_variant("cross_out", None, fresh=_cross)
CROSS_GRAD = by_variant("cross_grad_out", None, fresh=_cross_grad)
KRON = by_variant("kron_out", None, out=_kron, fresh=_kron_fresh)
KRON_GRAD = by_variant("kron_grad_out", None, out=_kron_grad, fresh=_kron_grad_fresh)
TRACE = by_variant("trace_out", None, out=_trace)
TRACE_GRAD = by_variant("trace_grad_out", None, out=_trace_grad)
BILINEAR = by_variant("bilinear_tensor_product_out", None, fresh=_bilinear_fresh)
BILINEAR_GRAD = by_variant("bilinear_tensor_product_grad_out", None, fresh=_bilinear_grad_fresh)

# (by name: CUDA's host fallbacks, kernels/cuda/matrix.py's HOST_OPS)
bilinear_tensor_product = adapter(metas.bilinear_meta, BILINEAR, "bilinear_tensor_product")
bilinear_tensor_product_grad = adapter(metas.bilinear_grad_meta, BILINEAR_GRAD, "bilinear_tensor_product_grad")
