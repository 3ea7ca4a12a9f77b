"""CUDA twin of kernels/cpu/sequence_image.py: conv2d's im2col / col2im device kernels (cuda/_conv.py)
and a transpose between the columns [C*kh*kw, N*oh*ow] and the rows of the sequences."""
from ..seq_maps import im2sequence_geometry, image_offsets
from . import runtime as rt
from ._conv import col2im, im2col, swap01
from ._launch import flat, grid


def im2sequence(ins, attrs):
    x = ins["X"]
    n, c, h, w = x.shape
    kh, kw, sh, sw, pu, pl, oh, ow = im2sequence_geometry(tuple(x.shape), attrs)
    cols = rt.empty((c * kh * kw, n * oh * ow), x.dtype)
    if cols.size:
        im2col[grid(cols.size)](flat(x), flat(cols), c, h, w, kh, kw, sh, sw, 1, 1, pu, pl, n, oh, ow)
    return {"Out": swap01(cols), "@LOD": {"Out": image_offsets(n, oh * ow)}}


def im2sequence_grad(ins, attrs):
    x = ins["X"]
    n, c, h, w = x.shape
    kh, kw, sh, sw, pu, pl, oh, ow = im2sequence_geometry(tuple(x.shape), attrs)
    dcols = swap01(ins["Out@GRAD"])
    dx = rt.empty(tuple(x.shape), x.dtype)
    if dx.size:
        col2im[grid(dx.size)](flat(dcols), flat(dx), c, h, w, kh, kw, sh, sw, 1, 1, pu, pl, n, oh, ow)
    return {"X@GRAD": dx}
