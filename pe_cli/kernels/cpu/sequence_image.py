"""CPU out-kernels of im2sequence (their meta rules: shapes/sequence_image.py): conv2d's numba im2col / col2im loops
(_conv_loops.py, the GIL released) per image, then each image's columns transposed into rows, into the buffers handed;
given Y (each image's real size), the patches kernels/seq_maps.py's real_size_patches makes, handed over."""

import numpy as np

from ..seq_maps import real_size_patches
from ..structured import fresh_outputs
from .runtime.loops import lazy

_loops = lazy("_conv_loops")


def im2sequence(ins, outs, attrs, meta, ctx):
    x = np.ascontiguousarray(ins["X"])
    if meta.variant == "real":  # each image's real size: the patches over the grid it gives
        out, offs = real_size_patches(x, ins["Y"], attrs)
        ctx.set_lod_map({"Out": offs})
        fresh_outputs({"Out": out}, ins, outs, meta)
        return
    (kh, kw, sh, sw, pu, pl, oh, ow), lods = meta.args
    n, c = x.shape[:2]
    cols = np.empty((n, c * kh * kw, oh * ow), x.dtype)
    _loops().im2col(x, kh, kw, sh, sw, pu, pl, 1, 1, oh, ow, cols)
    outs["Out"].reshape(n, oh * ow, c * kh * kw)[...] = cols.transpose(0, 2, 1)
    ctx.set_lod_map({slot: [list(level) for level in lod] for slot, lod in lods.items()})


im2sequence.takes_context = True


def im2sequence_grad(ins, outs, attrs, meta):
    x, dx = ins["X"], outs["X@GRAD"]
    if meta.variant == "real":
        dx[...] = real_size_patches(np.asarray(x), ins["Y"], attrs, np.asarray(ins["Out@GRAD"], x.dtype))
        return
    kh, kw, sh, sw, pu, pl, oh, ow = meta.args[0]
    n, c = x.shape[:2]
    dout = np.ascontiguousarray(ins["Out@GRAD"], x.dtype).reshape(n, oh * ow, c * kh * kw)
    _loops().col2im(np.ascontiguousarray(dout.transpose(0, 2, 1)), kh, kw, sh, sw, pu, pl, 1, 1, oh, ow, dx)
