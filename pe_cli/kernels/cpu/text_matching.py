"""Out-kernels of ops/text_matching.py (numpy, one pair of sequences at a time): ``fresh`` variants (their meta
rules: shapes/text_matching.py) handing over the arrays they make, each output's LoD set on the call's context; each
op's kernel by name is their adapter (kernels/structured.adapter), which the CUDA twins run on the host."""

import numpy as np

from ...base.errors import PeError
from ..common import seq_offsets
from ..structured import adapter, fresh_outputs
from ...shapes import text_matching as rules


def _pairs(ctx, ins, *slots):
    """Per slot, the offsets of its sequences; every slot must hold the same number of them."""
    offsets = [seq_offsets(ctx, s, len(ins[s])) for s in slots]
    if len({len(o) for o in offsets}) != 1:
        raise PeError(
            f"{' / '.join(slots)} must hold as many sequences, got {' / '.join(str(len(o) - 1) for o in offsets)}"
        )
    return offsets


def _lod(sizes):
    return [np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64).tolist()]


# -- match_matrix_tensor ---------------------------------------------------------------------------


def match_matrix_tensor_out(ins, outs, attrs, meta, ctx):
    x, y, w = ins["X"], ins["Y"], ins["W"]
    xo, yo = _pairs(ctx, ins, "X", "Y")
    tmp = np.einsum("ih,htk->itk", x, w)
    blocks = [
        np.einsum("itk,jk->tij", tmp[xo[b] : xo[b + 1]], y[yo[b] : yo[b + 1]]).ravel() for b in range(len(xo) - 1)
    ]
    out = np.concatenate(blocks) if blocks else np.zeros(0, x.dtype)
    ctx.set_lod_map({"Out": _lod([b.size for b in blocks])})
    fresh_outputs({"Out": out.reshape(-1, 1).astype(x.dtype), "Tmp": tmp.reshape(-1, 1)}, ins, outs, meta)


def match_matrix_tensor_grad_out(ins, outs, attrs, meta, ctx):
    x, y, w, dout = ins["X"], ins["Y"], ins["W"], ins["Out@GRAD"].reshape(-1)
    xo, yo = _pairs(ctx, ins, "X", "Y")
    tmp = np.einsum("ih,htk->itk", x, w)
    dtmp, dy, start = np.zeros_like(tmp), np.zeros_like(y), 0
    for b in range(len(xo) - 1):
        xs, ys = slice(xo[b], xo[b + 1]), slice(yo[b], yo[b + 1])
        lx, ly = xs.stop - xs.start, ys.stop - ys.start
        g = dout[start : start + w.shape[1] * lx * ly].reshape(w.shape[1], lx, ly)
        start += g.size
        dtmp[xs] = np.einsum("tij,jk->itk", g, y[ys])
        dy[ys] = np.einsum("tij,itk->jk", g, tmp[xs])
    fresh_outputs(
        {"X@GRAD": np.einsum("itk,htk->ih", dtmp, w), "Y@GRAD": dy, "W@GRAD": np.einsum("ih,itk->htk", x, dtmp)},
        ins,
        outs,
        meta,
    )


# -- var_conv_2d -------------------------------------------------------------------------------------


def _conv_index(channels, h, w, attrs):
    """[C * KernelH * KernelW, oh * ow] positions in a [C, h, w] image block (-1: outside)."""
    kh, kw, sh, sw = attrs["KernelH"], attrs["KernelW"], attrs["StrideH"], attrs["StrideW"]
    im_y = np.arange(0, h, sh)[None, :] + np.arange(kh)[:, None] - kh // 2  # [kh, oh]
    im_x = np.arange(0, w, sw)[None, :] + np.arange(kw)[:, None] - kw // 2  # [kw, ow]
    valid = ((im_y >= 0) & (im_y < h))[:, None, :, None] & ((im_x >= 0) & (im_x < w))[None, :, None, :]
    pos = im_y[:, None, :, None] * w + im_x[None, :, None, :]  # [kh, kw, oh, ow]
    base = np.where(valid, pos, -1)[None]
    idx = np.where(base >= 0, base + (np.arange(channels) * h * w)[:, None, None, None, None], -1)
    return idx.reshape(channels * kh * kw, -1)


def _image_blocks(op, ins, ctx, channels):
    """Per pair of X, ROW and COLUMN: (its slice of X, rows h, columns w), X holding channels * h * w values."""
    xo, ro, co = _pairs(ctx, ins, "X", "ROW", "COLUMN")
    for b in range(len(xo) - 1):
        h, w = int(ro[b + 1] - ro[b]), int(co[b + 1] - co[b])
        if xo[b + 1] - xo[b] != channels * h * w:
            raise PeError(
                f"{op}: sequence {b} of X has {xo[b + 1] - xo[b]} values, channels * rows * columns "
                f"is {channels} * {h} * {w}"
            )
        yield slice(xo[b], xo[b + 1]), h, w


def _images(ins, attrs, ctx):
    """Per pair: (its slice of X, the [C*kh*kw, oh*ow] index map)."""
    channels = attrs["InputChannel"]
    return ins["X"].reshape(-1), [
        (rows, _conv_index(channels, h, w, attrs) if h and w else None)
        for rows, h, w in _image_blocks("var_conv_2d", ins, ctx, channels)
    ]


def _gather(values, idx):
    return np.where(idx >= 0, values[np.maximum(idx, 0)], 0).astype(values.dtype)


def var_conv_2d_out(ins, outs, attrs, meta, ctx):
    x, images = _images(ins, attrs, ctx)
    w = ins["W"]
    parts, cols = [], []
    for rows, idx in images:
        col = _gather(x[rows], idx) if idx is not None else np.zeros((w.shape[1], 0), x.dtype)
        cols.append(col.ravel())
        parts.append((w @ col).ravel())
    ctx.set_lod_map({"Out": _lod([o.size for o in parts]), "Col": _lod([c.size for c in cols])})
    fresh_outputs(
        {
            "Out": np.concatenate(parts or [np.zeros(0)]).reshape(-1, 1).astype(x.dtype),
            "Col": np.concatenate(cols or [np.zeros(0)]).reshape(-1, 1).astype(x.dtype),
        },
        ins,
        outs,
        meta,
    )


def var_conv_2d_grad_out(ins, outs, attrs, meta, ctx):
    x, images = _images(ins, attrs, ctx)
    w, dout = ins["W"], ins["Out@GRAD"].reshape(-1)
    dx, dw, start = np.zeros_like(x), np.zeros_like(w), 0
    for rows, idx in images:
        if idx is None:
            continue
        g = dout[start : start + w.shape[0] * idx.shape[1]].reshape(w.shape[0], idx.shape[1])
        start += g.size
        dw += g @ _gather(x[rows], idx).T
        dcol, block = w.T @ g, np.zeros(rows.stop - rows.start, x.dtype)
        np.add.at(block, idx[idx >= 0], dcol[idx >= 0])
        dx[rows] = block
    fresh_outputs({"X@GRAD": dx.reshape(ins["X"].shape), "W@GRAD": dw}, ins, outs, meta)


# -- sequence_topk_avg_pooling ---------------------------------------------------------------------


def _topk_blocks(ins, attrs, ctx):
    """Per pair: (its slice of X, the block [C, h, w], the top positions [C, h, max_k] (-1: none))."""
    x = ins["X"].reshape(-1)
    channels, max_k = attrs["channel_num"], max(attrs["topks"])
    out = []
    for rows, h, w in _image_blocks("sequence_topk_avg_pooling", ins, ctx, channels):
        block = x[rows].reshape(channels, h, w)
        top = np.argsort(block, axis=2)[..., ::-1][..., :max_k]  # Fluid's order: argsort()[-k:][::-1]
        pos = np.full((channels, h, max_k), -1, dtype=np.int64)
        pos[..., : top.shape[2]] = top
        out.append((rows, block, pos))
    return x, out


def sequence_topk_avg_pooling_out(ins, outs, attrs, meta, ctx):
    x, blocks = _topk_blocks(ins, attrs, ctx)
    topks = attrs["topks"]
    parts, positions = [], []
    for _, block, pos in blocks:
        values = np.where(pos >= 0, np.take_along_axis(block, np.maximum(pos, 0), axis=2), 0)
        sums = np.concatenate([np.zeros(values.shape[:2] + (1,), values.dtype), np.cumsum(values, axis=2)], axis=2)
        avg = np.stack([sums[..., k] / k for k in topks], axis=2)  # [C, h, K]
        parts.append(avg.transpose(1, 0, 2).reshape(block.shape[1], -1))
        positions.append(pos.transpose(1, 0, 2).ravel())
    width = attrs["channel_num"] * len(topks)
    ctx.set_lod_map({"Out": [seq_offsets(ctx, "ROW", len(ins["ROW"])).tolist()]})
    fresh_outputs(
        {
            "Out": np.concatenate(parts or [np.zeros((0, width))]).astype(x.dtype),
            "pos": np.concatenate(positions or [np.zeros(0)]).astype(np.int32),
        },
        ins,
        outs,
        meta,
    )


def sequence_topk_avg_pooling_grad_out(ins, outs, attrs, meta, ctx):
    x, blocks = _topk_blocks(ins, attrs, ctx)
    dout, topks, channels = ins["Out@GRAD"], attrs["topks"], attrs["channel_num"]
    dx, row = np.zeros_like(x), 0
    for rows, block, pos in blocks:
        h = block.shape[1]
        g = dout[row : row + h].reshape(h, channels, len(topks)).transpose(1, 0, 2)  # [C, h, K]
        row += h
        dblock = np.zeros(block.shape, x.dtype)
        for j, k in enumerate(topks):
            top = pos[..., :k]
            c, r, _ = np.nonzero(top >= 0)
            np.add.at(dblock, (c, r, top[top >= 0]), g[c, r, j] / k)
        dx[rows] = dblock.ravel()
    fresh_outputs({"X@GRAD": dx.reshape(ins["X"].shape)}, ins, outs, meta)


# (the CUDA twins run these on the host by name: kernels/cuda/text_matching.py's HOST_OPS)
match_matrix_tensor_out.takes_context = True
match_matrix_tensor_grad_out.takes_context = True
var_conv_2d_out.takes_context = True
var_conv_2d_grad_out.takes_context = True
sequence_topk_avg_pooling_out.takes_context = True
sequence_topk_avg_pooling_grad_out.takes_context = True
match_matrix_tensor = adapter(rules.match_matrix_tensor_meta, match_matrix_tensor_out, "match_matrix_tensor")
match_matrix_tensor_grad = adapter(
    rules.match_matrix_tensor_grad_meta, match_matrix_tensor_grad_out, "match_matrix_tensor_grad"
)
var_conv_2d = adapter(rules.var_conv_2d_meta, var_conv_2d_out, "var_conv_2d")
var_conv_2d_grad = adapter(rules.var_conv_2d_grad_meta, var_conv_2d_grad_out, "var_conv_2d_grad")
sequence_topk_avg_pooling = adapter(
    rules.sequence_topk_avg_pooling_meta, sequence_topk_avg_pooling_out, "sequence_topk_avg_pooling"
)
sequence_topk_avg_pooling_grad = adapter(
    rules.sequence_topk_avg_pooling_grad_meta, sequence_topk_avg_pooling_grad_out, "sequence_topk_avg_pooling_grad"
)
