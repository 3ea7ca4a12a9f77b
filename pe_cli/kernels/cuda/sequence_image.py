"""CUDA twin of kernels/cpu/sequence_image.py: conv2d's im2col / col2im device kernels (cuda/_conv.py)
and a transpose between the columns [C*kh*kw, N*oh*ow] and the rows of the sequences."""

from ..seq_maps import im2sequence_geometry, image_offsets, real_size_patches
from . import runtime as rt
from ._conv import col2im, im2col, swap01
from ._launch import flat, grid


def im2sequence(ins, attrs, ctx):
    x = ins["X"]
    if "Y" in ins:  # each image's real size: on the host (a per-image grid), as the CPU kernel
        out, offs = real_size_patches(rt.to_host(x), rt.to_host(ins["Y"]), attrs)
        ctx.set_lod_map({"Out": offs})
        return {"Out": rt.to_device(out)}
    n, c, h, w = x.shape
    kh, kw, sh, sw, pu, pl, oh, ow = im2sequence_geometry(tuple(x.shape), attrs)
    cols = rt.empty((c * kh * kw, n * oh * ow), x.dtype)
    if cols.size:
        im2col[grid(cols.size)](flat(x), flat(cols), c, h, w, kh, kw, sh, sw, 1, 1, pu, pl, n, oh, ow)
    ctx.set_lod_map({"Out": image_offsets(n, oh * ow)})
    return {"Out": swap01(cols)}


def im2sequence_grad(ins, attrs):
    x = ins["X"]
    n, c, h, w = x.shape
    kh, kw, sh, sw, pu, pl, oh, ow = im2sequence_geometry(tuple(x.shape), attrs)
    if "Y" in ins:
        return {
            "X@GRAD": rt.to_device(
                real_size_patches(rt.to_host(x), rt.to_host(ins["Y"]), attrs, rt.to_host(ins["Out@GRAD"]))
            )
        }
    dcols = swap01(ins["Out@GRAD"])
    dx = rt.empty(tuple(x.shape), x.dtype)
    if dx.size:
        col2im[grid(dx.size)](flat(dcols), flat(dx), c, h, w, kh, kw, sh, sw, 1, 1, pu, pl, n, oh, ow)
    return {"X@GRAD": dx}
