"""im2sequence's geometry and the meta rules of im2sequence and its gradient (ops/sequence_image.py): without Y,
the patch grid and Out's LoD (one sequence of oh * ow rows per image) from X's shape and the attributes; given Y
(each image's real size, values), a ``fresh`` variant whose rows and LoD the out-kernel makes
(kernels/cpu/sequence_image.py)."""

import numpy as np

from ..base.errors import PeError
from .conv_pool import conv_out_size
from .structured import Meta


def im2sequence_geometry(x_shape, attrs):
    """im2sequence's loop arguments (kh, kw, sh, sw, pad up, pad left, oh, ow), checked."""
    (kh, kw), (sh, sw), (pu, pl, pd, pr) = attrs["kernels"], attrs["strides"], attrs["paddings"]
    oh, ow = conv_out_size(x_shape[2], kh, pu, pd, sh, 1), conv_out_size(x_shape[3], kw, pl, pr, sw, 1)
    if oh <= 0 or ow <= 0:
        raise PeError(
            f"im2sequence: kernels {[kh, kw]} with paddings {[pu, pl, pd, pr]} do not fit images {list(x_shape[2:])}"
        )
    return kh, kw, sh, sw, pu, pl, oh, ow


def image_offsets(n, steps):
    """One sequence of ``steps`` rows per image."""
    return [list(range(0, n * steps + 1, steps))]


def im2sequence_meta(attrs, ins, facts):
    """im2sequence: Out [N * oh * ow, C * kh * kw] of X's dtype and its LoD (the out-kernel sets it, ``takes_context``);
    given Y, Out's rows are as many as the real sizes give (``fresh``)."""
    x = ins["X"]
    kh, kw = attrs["kernels"]
    if "Y" in ins:
        return Meta({"Out": ((-1, x.shape[1] * kh * kw), np.dtype(x.dtype))}, "real", fresh=True)
    geometry = im2sequence_geometry(x.shape, attrs)
    oh, ow = geometry[-2:]
    n = x.shape[0]
    out = {"Out": ((n * oh * ow, x.shape[1] * kh * kw), np.dtype(x.dtype))}
    return Meta(out, "grid", args=(geometry, {"Out": image_offsets(n, oh * ow)}))


def im2sequence_grad_meta(attrs, ins, facts):
    """im2sequence_grad: X@GRAD of X's shape and dtype; the col2im loop's geometry (without Y)."""
    x = ins["X"]
    spec = {"X@GRAD": (tuple(x.shape), np.dtype(x.dtype))}
    geometry = im2sequence_geometry(x.shape, attrs)  # (checked given Y too, as Fluid's)
    return Meta(spec, "real" if "Y" in ins else "grid", args=(geometry,))
