"""Row maps and LoD rules of the sequence ops that compute their output's LoD
(ops/sequence_shape.py, ops/sequence_window.py, lod_reset / lod_append), shared by the CPU and
CUDA kernels: plain numpy on the host, from the inputs' offsets."""

import numpy as np

from ..base.errors import PeError
from ..shapes.sequence_shape import (  # noqa: F401  (kernels')
    concat_map,
    expand_as_index,
    lod_lists,
    lod_of,
    reshape_offsets,
)
from ..shapes.sequence_image import im2sequence_geometry, image_offsets  # noqa: F401  (the CUDA twins')
from ..shapes.sequence_window import row_conv_offsets  # noqa: F401  (the CUDA twins')


# -- the ops that reshape the LoD (ops/sequence_shape.py): row maps and the output's LoD --


def slice_index(offs, offset, length):
    """sequence_slice: steps offset[i] .. offset[i] + length[i] - 1 of each sequence i; the row map
    and the output's offsets."""
    offset = np.asarray(offset, dtype=np.int64).reshape(-1)
    length = np.asarray(length, dtype=np.int64).reshape(-1)
    n = len(offs) - 1
    if offset.size != n or length.size != n:
        raise PeError(
            f"sequence_slice: Offset has {offset.size} and Length {length.size} values but X has "
            f"{n} sequences; give one of each per sequence"
        )
    lens = np.diff(offs)
    bad = (offset < 0) | (length < 0) | (offset + length > lens)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise PeError(
            f"sequence_slice: sequence {i} has {int(lens[i])} steps; Offset {int(offset[i])} and "
            f"Length {int(length[i])} must stay within them (both >= 0)"
        )
    parts = [offs[i] + offset[i] + np.arange(length[i]) for i in range(n)]
    idx = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    return idx, np.concatenate([[0], np.cumsum(length)]).astype(np.int64)


# -- ops/sequence_window.py --


def scatter_checks(x_shape, ids, offs, n_updates):
    """sequence_scatter: Ids' sequences name rows of X, its values columns of a row."""
    width = int(np.prod(x_shape[1:], dtype=np.int64))
    if len(offs) - 1 > x_shape[0]:
        raise PeError(
            f"sequence_scatter: Ids has {len(offs) - 1} sequences but X only {x_shape[0]} rows; "
            f"sequence i scatters into row i"
        )
    if n_updates != ids.size:
        raise PeError(f"sequence_scatter: Updates has {n_updates} values but Ids {ids.size}; give one per id")
    if ids.size and (ids.min() < 0 or ids.max() >= width):
        raise PeError(
            f"sequence_scatter: Ids must be columns in [0, {width}) of X's rows; got "
            f"{int(ids.min())} .. {int(ids.max())}"
        )


def reset_lod(attrs, ctx, rows, y_values):
    """lod_reset / lod_append: the output's LoD. Y's LoD when Y has one; else one level of offsets
    (Y's values, ``y_values()`` read only then; None without Y: target_lod), checked, which replaces X's LoD or,
    with append, goes below X's levels (X's last level must then count its sequences)."""
    lods = ctx.lod
    if lods.get("Y"):
        if int(lods["Y"][-1][-1]) != rows:
            raise PeError(f"lod_reset: Y's LoD ends at {int(lods['Y'][-1][-1])} but X has {rows} rows")
        return lod_lists(lods["Y"])
    level = [int(v) for v in (np.asarray(y_values()).reshape(-1) if y_values else attrs["target_lod"])]
    if len(level) < 2 or level[0] != 0 or level[-1] != rows or any(b < a for a, b in zip(level, level[1:])):
        raise PeError(
            f"lod_reset: the new level {level} must be offsets: from 0, not decreasing, ending at X's {rows} rows"
        )
    x_lod = lods.get("X")
    if not attrs.get("append") or not x_lod:
        return [level]
    if int(x_lod[-1][-1]) != len(level) - 1:
        raise PeError(
            f"lod_append: X's last LoD level counts {int(x_lod[-1][-1])} items but the new level has "
            f"{len(level) - 1} sequences; they must match"
        )
    return lod_lists(x_lod) + [level]


def _real_grid(real, attrs, i):
    """Image i's patch rows and columns given its real size: the image rows / columns each patch reads
    ([rh, kh], [rw, kw]), by Fluid's Im2SeqOutputSize of the real size divided by out_stride (rounded up)."""
    (kh, kw), (sh, sw), (pu, pl, pd, pr) = attrs["kernels"], attrs["strides"], attrs["paddings"]
    osh, osw = attrs["out_stride"]
    h, w = -(-int(real[i, 0]) // osh), -(-int(real[i, 1]) // osw)
    rh, rw = max(0, 1 + (h + pu + pd - kh + sh - 1) // sh), max(0, 1 + (w + pl + pr - kw + sw - 1) // sw)
    return (np.arange(rh) * sh - pu)[:, None] + np.arange(kh), (np.arange(rw) * sw - pl)[:, None] + np.arange(kw)


def real_size_patches(x, real_size, attrs, dout=None):
    """im2sequence given Y, each image's real [height, width] (host arrays): each image's patches over a
    grid the real size gives (zeros outside the image), one sequence per image, as Fluid's; with
    ``dout`` (the output's gradient) the gradient wrt x instead."""
    n, c, h, w = x.shape
    real = np.asarray(real_size).reshape(-1, 2)
    if len(real) < n:
        raise PeError(f"im2sequence: Y holds {len(real)} real sizes for {n} images; give one [height, width] each")
    outs, offs, dx = [], [0], None if dout is None else np.zeros_like(x)
    for i in range(n):
        ys, xs = _real_grid(real, attrs, i)
        inside = ((ys >= 0) & (ys < h))[:, :, None, None] & ((xs >= 0) & (xs < w))[None, None]
        at = (np.clip(ys, 0, h - 1)[:, :, None, None], np.clip(xs, 0, w - 1)[None, None])
        rows = ys.shape[0] * xs.shape[0]
        if dx is not None:  # [rh*rw, c*kh*kw] rows back to [c, rh, kh, rw, kw], added where they read
            part = dout[offs[-1] : offs[-1] + rows].reshape(ys.shape[0], xs.shape[0], c, ys.shape[1], xs.shape[1])
            np.add.at(dx[i], (slice(None),) + at, part.transpose(2, 0, 3, 1, 4) * inside)
        else:
            patch = x[i][(slice(None),) + at] * inside  # [c, rh, kh, rw, kw]
            outs.append(patch.transpose(1, 3, 0, 2, 4).reshape(rows, -1))
        offs.append(offs[-1] + rows)
    if dx is not None:
        return dx
    return np.concatenate(outs).astype(x.dtype, copy=False), [offs]
