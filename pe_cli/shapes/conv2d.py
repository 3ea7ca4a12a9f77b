"""conv2d's and depthwise_conv2d's meta rules and their gradients' (structured kernels, shapes/structured.py):
from the attributes and the shapes and dtypes of Input, Filter (and Output@GRAD), once per shape signature, the
outputs' shapes and dtypes (NCHW: an NHWC op's values are transposed around its step, kernels/layout.py), the
geometry (ConvGeometry: its checks refuse what the kernels refused) and the path that computes them, in the order
it is tried:

- "onednn": oneDNN's direct convolution, for float32 values with ``ONEDNN_MIN_CHANNELS`` or more input channels a
  group (kernels/cpu/runtime/onednn.py). The host may have no oneDNN (the ``onednn`` extra not installed,
  ``PE_ONEDNN=0``) or oneDNN no primitive for the geometry: the out-kernel then takes the path after it, which
  this rule decides too (``ConvPlan.fallback``);
- "winograd": Winograd's F(2x2, 3x3) (kernels/cpu/_winograd.py) where ``winograd_applies``;
- "per_sample": im2col (or the wide columns) and a GEMM per sample in one numba loop (kernels/cpu/_conv.py);
  float32 or float64 values of one dtype take one of these two, or "columns" (the batch's columns and one
  numpy.matmul) on a host whose numpy BLAS the loops cannot call (kernels/cpu/runtime/cblas.py: the out-kernel
  reads that fact of the host);
- "numpy": any other dtypes, one strided im2col copy and one GEMM.

The variant is that path, or "zeros" where no output reads Input (every value 0), or "mapped" where the geometry
is one Fluid runs unchecked (negative paddings, dilations of 0 or below: mapped onto a regular one,
shapes/conv_regular.py) or the op convolves relu(Input) (``fuse_relu_before_depthwise_conv``). ``Meta.args`` is
one ConvPlan."""

from typing import NamedTuple

import numpy as np

from . import conv_pool
from .conv_plans import ConvGeometry
from .conv_regular import plan as regular_plan
from .structured import Meta

ONEDNN, WINOGRAD, PER_SAMPLE, COLUMNS, NUMPY = "onednn", "winograd", "per_sample", "columns", "numpy"
ZEROS, MAPPED = "zeros", "mapped"
RELU_FIRST = "fuse_relu_before_depthwise_conv"
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

# Winograd's F(2x2, 3x3) pays from these many channels (in and out) and 2x2 output tiles a sample: with fewer
# its 16 GEMMs [M, C] x [C, tiles] are too thin to beat the wide columns' one (benchmarks/conv_paths.py)
WINOGRAD_MIN_CHANNELS = 8
WINOGRAD_MIN_TILES = 64


class ConvPlan(NamedTuple):
    """How a conv2d op's out-kernel computes: ``geo``, the geometry of the regular convolution it runs;
    ``path`` its path, ``fallback`` the path after oneDNN; ``regular``: the Regular plan mapping the op's
    geometry onto that one (None: it is one); ``relu``: Input goes through relu first; ``op_geo``: the op's own
    geometry (oneDNN's two gradients at once run on it)."""

    geo: object
    path: str
    fallback: str
    regular: object
    relu: bool
    op_geo: object


def winograd_applies(geo, x_shape, w_shape):
    """A 3x3 filter at stride 1, without dilation or groups, each padding 0 to 2, between
    ``WINOGRAD_MIN_CHANNELS`` or more channels, with ``WINOGRAD_MIN_TILES`` or more 2x2 output tiles a sample."""
    if not (
        (geo.kh, geo.kw, geo.sh, geo.sw, geo.dh, geo.dw, geo.groups) == (3, 3, 1, 1, 1, 1, 1)
        and all(0 <= p <= 2 for p in geo.pads)
    ):
        return False
    channels, tiles = min(x_shape[1], w_shape[0]), ((geo.ho + 1) // 2) * ((geo.wo + 1) // 2)
    return channels >= WINOGRAD_MIN_CHANNELS and tiles >= WINOGRAD_MIN_TILES


def is_float(*dtypes):
    """Every dtype float32, or every one float64: the types the loops are compiled for."""
    return dtypes[0] in _FLOATS and all(d == dtypes[0] for d in dtypes[1:])


def conv_path(geo, x_shape, w_shape, dtypes):
    """(the path, the path after oneDNN) of a regular convolution of those shapes over values of ``dtypes``."""
    if not is_float(*dtypes):
        return NUMPY, NUMPY
    after = WINOGRAD if winograd_applies(geo, x_shape, w_shape) else PER_SAMPLE
    onednn = dtypes[0] == np.float32 and w_shape[1] >= conv_pool.ONEDNN_MIN_CHANNELS
    return (ONEDNN if onednn else after), after


def plan(attrs, x_shape, w_shape, dtypes):
    """(the ConvPlan, the op's variant, its geometry) of a conv2d op over Input of ``x_shape`` and Filter of
    ``w_shape``."""
    geo = ConvGeometry(x_shape, w_shape, attrs)
    reg = regular_plan(x_shape[2:], w_shape[2:], (geo.sh, geo.sw), geo.pads, (geo.dh, geo.dw), (geo.ho, geo.wo))
    relu = bool(attrs.get(RELU_FIRST))
    inner, inner_x, inner_w = geo, x_shape, w_shape
    if reg is not None:
        inner_x = tuple(x_shape[:2]) + tuple(hi - lo for lo, hi in reg.windows)
        inner_w = tuple(w_shape[:2]) + tuple(1 if f == "sum" else k for f, k in zip(reg.folds, w_shape[2:]))
        if not reg.empty():
            inner = ConvGeometry(inner_x, inner_w, reg.attrs(attrs))
    path, fallback = conv_path(inner, inner_x, inner_w, dtypes)
    if reg is not None and reg.empty():
        variant = ZEROS
    else:
        variant = MAPPED if reg is not None or relu else path
    return ConvPlan(inner, path, fallback, reg, relu, geo), variant, geo


def _shapes(ins):
    return tuple(ins["Input"].shape), tuple(ins["Filter"].shape)


def conv2d_meta(attrs, ins, facts):
    """conv2d, depthwise_conv2d: Output [N, M, Ho, Wo] of Input's dtype."""
    x, w = _shapes(ins)
    dtype = np.dtype(ins["Input"].dtype)
    conv, variant, geo = plan(attrs, x, w, (dtype, np.dtype(ins["Filter"].dtype)))
    return Meta({"Output": ((x[0], w[0], geo.ho, geo.wo), dtype)}, variant, args=conv)


def _grad_meta(attrs, ins, slots):
    x, w = _shapes(ins)
    dtypes = tuple(np.dtype(ins[s].dtype) for s in ("Input", "Filter", "Output@GRAD"))
    conv, variant, _ = plan(attrs, x, w, dtypes)
    outputs = {"Input@GRAD": (x, dtypes[0]), "Filter@GRAD": (w, dtypes[1])}
    return Meta({s: outputs[s] for s in ("Input@GRAD", "Filter@GRAD") if s in slots}, variant, args=conv)


def conv2d_grad_meta(attrs, ins, facts):
    """conv2d_grad, depthwise_conv2d_grad: the gradients the op writes (``facts.wanted``), Input@GRAD of Input's
    shape and dtype, Filter@GRAD of Filter's."""
    return _grad_meta(attrs, ins, facts.wanted(("Input@GRAD", "Filter@GRAD")))


def conv2d_grad_input_meta(attrs, ins, facts):
    return _grad_meta(attrs, ins, ("Input@GRAD",))


def conv2d_grad_filter_meta(attrs, ins, facts):
    return _grad_meta(attrs, ins, ("Filter@GRAD",))
