"""CPU kernels of ops/pooling_mask.py (numpy); max_pool2d/3d_with_index's and their gradients' are the
out-kernels of structured kernels (meta rules in shapes/pooling_mask.py: the variant and windows once per
shape signature), and the same two as kernels. Max pooling with its mask runs one step per kernel
position (fixed windows; X padded with -inf, a strictly greater value replacing the best so far, so
the first maximum in row-major order wins) or one per output position (adaptive windows), each
vectorised over the batch, channels and the other positions. Gradients and unpooling are one
scatter or gather over the planes, unpool's and unpool3d's (and their gradients') out-kernels too (meta rules:
shapes/pooling_mask.py). ``windows`` is shared with the CUDA kernels."""

import itertools

import numpy as np

from ..structured import adapter
from .launches import by_variant
from ...shapes.conv_pool import mask_pool_out as pool_out
from ...shapes.pooling_mask import mask_pool_grad_meta, mask_pool_meta, plane_offsets


def _plane_positions(in_dims, coords):
    """The flat position in a plane of ``in_dims`` of per-dim coordinate grids."""
    pos = 0
    for d, c in enumerate(coords):
        pos = pos * in_dims[d] + c
    return pos


def _by_kernel_position(x, attrs):
    dims = x.shape[2:]
    k, s, p = attrs["ksize"], attrs["strides"], attrs["paddings"]
    out = pool_out(dims, attrs)
    padded = np.full(x.shape[:2] + tuple(d + 2 * q + kk for d, q, kk in zip(dims, p, k)), -np.inf, x.dtype)
    padded[(slice(None), slice(None)) + tuple(slice(q, q + d) for q, d in zip(p, dims))] = x
    best = np.full(x.shape[:2] + tuple(out), -np.inf, x.dtype)
    mask = np.zeros(best.shape, np.int32)
    grids = np.meshgrid(*[np.arange(o) * st for o, st in zip(out, s)], indexing="ij")
    for offs in itertools.product(*[range(kk) for kk in k]):
        cand = padded[
            (slice(None), slice(None)) + tuple(slice(f, f + st * (o - 1) + 1, st) for f, st, o in zip(offs, s, out))
        ]
        better = cand > best
        pos = _plane_positions(dims, [g + f - q for g, f, q in zip(grids, offs, p)])
        best = np.where(better, cand, best)
        mask = np.where(better, pos.astype(np.int32), mask)
    return best, mask


_LOWEST = -3.4028234663852886e38  # -FLT_MAX: Fluid's value of an empty window


def _by_output_position(x, wins, best, mask):
    """``best`` and ``mask`` (of the windows' count per dim) filled, one output position at a time."""
    dims = x.shape[2:]
    out_shape = tuple(len(w[0]) for w in wins)
    for o in np.ndindex(*out_shape):
        box = tuple(slice(w[0][i], w[1][i]) for w, i in zip(wins, o))
        if any(b.stop <= b.start for b in box):
            best[(slice(None), slice(None)) + o], mask[(slice(None), slice(None)) + o] = _LOWEST, -1
            continue
        win = x[(slice(None), slice(None)) + box].reshape(x.shape[:2] + (-1,))
        arg = np.argmax(win, axis=-1)
        sizes = [b.stop - b.start for b in box]
        local = np.unravel_index(arg, sizes)
        best[(slice(None), slice(None)) + o] = np.take_along_axis(win, arg[..., None], -1)[..., 0]
        mask[(slice(None), slice(None)) + o] = _plane_positions(dims, [b.start + c for b, c in zip(box, local)])


def _pool_by_output(ins, outs, attrs, meta):
    _by_output_position(np.asarray(ins["X"]), meta.args[0], outs["Out"], outs["Mask"])


def _pool_by_kernel(ins, outs, attrs, meta):
    out, mask = _by_kernel_position(np.asarray(ins["X"]), attrs)
    np.copyto(outs["Out"], out, casting="unsafe")
    np.copyto(outs["Mask"], mask)


def _scatter_add(shape, mask, values):
    """zeros of ``shape`` [N, C, ...] plus ``values`` added at their ``mask`` positions in each plane."""
    planes, size = shape[0] * shape[1], int(np.prod(shape[2:]))
    at = (np.arange(planes).reshape(shape[:2] + (1,) * (mask.ndim - 2)) * size + mask).reshape(-1)
    hit = mask.reshape(-1) >= 0  # an empty window (Mask -1) has no X position
    return (
        np.bincount(at[hit], weights=values.reshape(-1)[hit], minlength=planes * size)
        .astype(values.dtype)
        .reshape(shape)
    )


def _pool_grad(ins, outs, attrs, meta):
    x = ins["X"]
    dx = _scatter_add(x.shape, np.asarray(ins["Mask"], np.int64), np.asarray(ins["Out@GRAD"]))
    np.copyto(outs["X@GRAD"], dx, casting="unsafe")


mask_pool_out = by_variant("mask_pool_out", None, by_kernel=_pool_by_kernel, by_output=_pool_by_output)
mask_pool_grad_out = by_variant("mask_pool_grad_out", None, scatter=_pool_grad)
max_pool2d_with_index = max_pool3d_with_index = adapter(mask_pool_meta, mask_pool_out, "max_pool_with_index")
max_pool2d_with_index_grad = max_pool3d_with_index_grad = adapter(
    mask_pool_grad_meta, mask_pool_grad_out, "max_pool_with_index_grad"
)


def _unpool(op):
    def out(ins, outs, attrs, meta):
        x, flat = np.asarray(ins["X"]), outs["Out"].reshape(-1)
        flat.fill(0)
        flat[plane_offsets(x.shape, ins["Indices"], meta.args[0], op)] = x.reshape(-1)

    return by_variant(f"{op}_out", None, scatter=out)


def _unpool_grad(op):
    def out(ins, outs, attrs, meta):
        x, dout = ins["X"], np.asarray(ins["Out@GRAD"])
        outs["X@GRAD"].reshape(-1)[...] = dout.reshape(-1)[plane_offsets(x.shape, ins["Indices"], meta.args[0], op)]

    return by_variant(f"{op}_grad_out", None, gather=out)


UNPOOL, UNPOOL3D = _unpool("unpool"), _unpool("unpool3d")
UNPOOL_GRAD, UNPOOL3D_GRAD = _unpool_grad("unpool"), _unpool_grad("unpool3d")
