"""CPU kernels of im2sequence: conv2d's numba im2col / col2im loops (_conv_loops.py, the GIL released)
per image, then each image's columns transposed into rows."""

import numpy as np

from ..seq_maps import im2sequence_geometry, image_offsets, real_size_patches
from .runtime.loops import lazy

_loops = lazy("_conv_loops")


def im2sequence(ins, attrs, ctx):
    x = np.ascontiguousarray(ins["X"])
    if "Y" in ins:  # each image's real size: the patches over the grid it gives
        out, offs = real_size_patches(x, ins["Y"], attrs)
        ctx.set_lod_map({"Out": offs})
        return {"Out": out}
    n, c = x.shape[:2]
    kh, kw, sh, sw, pu, pl, oh, ow = im2sequence_geometry(x.shape, attrs)
    cols = np.empty((n, c * kh * kw, oh * ow), x.dtype)
    _loops().im2col(x, kh, kw, sh, sw, pu, pl, 1, 1, oh, ow, cols)
    out = np.ascontiguousarray(cols.transpose(0, 2, 1)).reshape(n * oh * ow, c * kh * kw)
    ctx.set_lod_map({"Out": image_offsets(n, oh * ow)})
    return {"Out": out}


def im2sequence_grad(ins, attrs):
    x = ins["X"]
    n, c = x.shape[:2]
    kh, kw, sh, sw, pu, pl, oh, ow = im2sequence_geometry(x.shape, attrs)
    if "Y" in ins:
        return {"X@GRAD": real_size_patches(np.asarray(x), ins["Y"], attrs, np.asarray(ins["Out@GRAD"], x.dtype))}
    dout = np.ascontiguousarray(ins["Out@GRAD"], x.dtype).reshape(n, oh * ow, c * kh * kw)
    dx = np.empty(x.shape, x.dtype)
    _loops().col2im(np.ascontiguousarray(dout.transpose(0, 2, 1)), kh, kw, sh, sw, pu, pl, 1, 1, oh, ow, dx)
    return {"X@GRAD": dx}
