"""Row maps and LoD rules of the sequence ops that compute their output's LoD
(ops/sequence_shape.py, ops/sequence_window.py, lod_reset / lod_append), shared by the CPU and
CUDA kernels: plain numpy on the host, from the inputs' offsets."""

import numpy as np

from ..base.errors import PeError
from ..shapes.conv_pool import conv_out_size
from ..shapes.sequence_shape import expand_as_index, lod_lists, lod_of, reshape_offsets  # noqa: F401  (kernels')
from .common import seq_offsets


# -- the ops that reshape the LoD (ops/sequence_shape.py): row maps and the output's LoD --


def concat_index(offs_list):
    """sequence_concat: the output's row map into the inputs' rows stacked in order, and its offsets."""
    n = len(offs_list[0]) - 1
    for j, offs in enumerate(offs_list):
        if len(offs) - 1 != n:
            raise PeError(
                f"sequence_concat: X #{j} has {len(offs) - 1} sequences but X #0 has {n}; "
                f"every input needs as many sequences"
            )
    bases = np.cumsum([0] + [int(o[-1]) for o in offs_list])
    parts = [bases[j] + np.arange(offs[i], offs[i + 1]) for i in range(n) for j, offs in enumerate(offs_list)]
    lengths = sum(np.diff(offs) for offs in offs_list)
    idx = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    return idx, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def concat_map(xs, ctx):
    """(the rows of sequence_concat's Out as rows of the inputs stacked, Out's LoD) of the inputs ``xs``
    (slot X of ``ctx``), concatenated sequence by sequence along their last LoD level."""
    lods = [lod_of(ctx, "X", x.shape[0], i) for i, x in enumerate(xs)]
    idx, offs = concat_index([lod[-1] for lod in lods])
    return idx, lods[0][:-1] + [offs]


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


def row_conv_offsets(ctx, x_shape):
    """row_conv's sequences: X's LoD (last level), or for a padded batch [B, T, D] one of T per row."""
    if ctx.lod.get("X"):
        return seq_offsets(ctx, "X", x_shape[0])
    if len(x_shape) != 3:
        raise PeError(f"row_conv: X {list(x_shape)} has no LoD; give a sequence or a batch [B, T, D]")
    return np.arange(x_shape[0] + 1, dtype=np.int64) * x_shape[1]


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


def im2sequence_geometry(x_shape, attrs):
    """im2sequence's loop arguments (kh, kw, sh, sw, pad up, pad left, oh, ow), checked."""
    (kh, kw), (sh, sw), (pu, pl, pd, pr) = attrs["kernels"], attrs["strides"], attrs["paddings"]
    oh, ow = conv_out_size(x_shape[2], kh, pu, pd, sh, 1), conv_out_size(x_shape[3], kw, pl, pr, sw, 1)
    if oh <= 0 or ow <= 0:
        raise PeError(
            f"im2sequence: kernels {[kh, kw]} with paddings {[pu, pl, pd, pr]} do not fit images {list(x_shape[2:])}"
        )
    return kh, kw, sh, sw, pu, pl, oh, ow


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


def image_offsets(n, steps):
    """One sequence of ``steps`` rows per image."""
    return [list(range(0, n * steps + 1, steps))]
