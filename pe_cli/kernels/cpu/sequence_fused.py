"""CPU out-kernels of ops/sequence_fused.py (their meta rules: shapes/sequence_fused.py), computing what Fluid 1.8's CPU kernels (its MKL build: the
official wheel) compute: the sums over each sequence are sequence_pool's (its numba loop, in row
order as Fluid's SeqPool), AVERAGE and SQRT then scaled by 1 / length or 1 / sqrt(length) as Fluid
scales them; the rest numpy. Each op's kernel by name is their adapter (kernels/structured.adapter), which the
CUDA twins run on the host."""

import numpy as np

from ...base.errors import PeError
from ...base.selected_rows import SelectedRows
from ..common import POOL_CODES, lod_offsets
from ..lstm_math import VEC_ACTS
from .runtime.loops import is_float, lazy, run_in_parts
from .embedding import add_rows
from ..structured import adapter, fresh_outputs
from ...shapes import sequence_fused as rules

_loops = lazy("_seq_loops")


def _sums(x, offs):
    """Each sequence's rows of the 2-D ``x`` summed in order (an empty one: 0): sequence_pool's SUM loop."""
    x = np.ascontiguousarray(x)
    out, idx = np.empty((offs.size - 1, x.shape[1]), x.dtype), np.empty((offs.size - 1, x.shape[1]), np.int32)
    _loops().pool(x, lod_offsets([offs], "X", x.shape[0]), POOL_CODES["SUM"], x.dtype.type(0.0), out, idx)
    return out


# ids from which a lookup's rows are summed on the device's threads (lookup_table's gather's threshold)
PARALLEL_MIN_IDS = 256


def _ids(ins, attrs, w):
    """Ids as [T, k] int64, the ids checked against W's rows."""
    ids = np.asarray(ins["Ids"])
    flat = ids.reshape(ids.shape[0], -1).astype(np.int64, copy=False)
    pad = attrs["padding_idx"]
    if flat.size == 0 or (flat.min() >= 0 and flat.max() < w.shape[0]):  # (two passes, no temporaries)
        return flat
    bad = ((flat < 0) | (flat >= w.shape[0])) & (flat != pad)
    if bad.any():
        raise PeError(f"Ids hold {int(flat[bad][0])}, outside the table of {w.shape[0]} rows (W {list(w.shape)})")
    return flat


def fused_embedding_seq_pool_out(ins, outs, attrs, meta):
    w, (offs,), out = np.asarray(ins["W"]), meta.args, outs["Out"]
    ids = _ids(ins, attrs, w)
    if w.ndim == 2 and is_float(w):  # the table's rows summed where they are (the same sums)
        args = (np.ascontiguousarray(w), np.ascontiguousarray(ids), offs, attrs["padding_idx"], out)
        run_in_parts(_loops(), "embedding_sums", ids.size, *args, least=PARALLEL_MIN_IDS)
        return
    rows = np.where((ids != attrs["padding_idx"])[..., None], w[np.clip(ids, 0, w.shape[0] - 1)], 0)
    out[...] = _sums(rows.reshape(len(ids), -1).astype(w.dtype, copy=False), offs)


def fused_embedding_seq_pool_grad_out(ins, outs, attrs, meta):
    w, (offs,) = np.asarray(ins["W"]), meta.args
    ids = _ids(ins, attrs, w)
    k = ids.shape[1]
    d_out = np.asarray(ins["Out@GRAD"]).reshape(len(offs) - 1, k, w.shape[1])
    per_id = np.repeat(d_out, np.diff(offs), axis=0).reshape(-1, w.shape[1]).astype(w.dtype, copy=False)
    flat = ids.reshape(-1)
    if meta.fresh:  # (is_sparse) every id, padding_idx's too (Fluid's sparse kernel copies them all)
        outs["W@GRAD"] = SelectedRows(flat.copy(), per_id, w.shape[0])
        return
    keep = flat != attrs["padding_idx"]
    dw = outs["W@GRAD"]
    dw.fill(0)
    add_rows(dw, flat[keep], np.ascontiguousarray(per_id[keep]))


def _pool(x, offs, kind):
    """Fluid's jit SeqPool over each sequence: the sum, then times 1 / length (AVERAGE) or 1 /
    sqrt(length) (SQRT); an empty sequence, as Fluid's, has the row that follows it (times inf)."""
    x = np.asarray(x).reshape(len(x), -1)
    sums, lengths = _sums(x, offs), np.diff(offs)
    empty = (lengths == 0) & (offs[:-1] < len(x))
    sums[empty] = x[offs[:-1][empty]]  # Fluid's jit SeqPool gives an empty sequence the next row
    if kind != "SUM":
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = 1 / (lengths if kind == "AVERAGE" else np.sqrt(lengths)).astype(x.dtype)
        sums = sums * scale[:, None]
    return sums.astype(x.dtype, copy=False)


def _pool_concat(ins, outs, attrs, meta, cvm):
    parts = []
    for x, offs in zip(ins["X"], meta.args[0]):
        pooled = _pool(x, offs, attrs["pooltype"])
        if cvm:
            with np.errstate(invalid="ignore", divide="ignore"):  # a count below 0: NaN, as Fluid's
                pooled[:, 0] = np.log(pooled[:, 0] + 1)
                pooled[:, 1] = np.log(pooled[:, 1] + 1) - pooled[:, 0]
        parts.append(pooled)
    np.concatenate(parts, axis=1, out=outs["Out"])


def fusion_seqpool_concat_out(ins, outs, attrs, meta):
    _pool_concat(ins, outs, attrs, meta, cvm=False)


def fusion_seqpool_cvm_concat_out(ins, outs, attrs, meta):
    _pool_concat(ins, outs, attrs, meta, cvm=True)


def _col_sequence(col, x, sw, cw, up, down):
    """One sequence's rows of ColMat (flat ``col``, zeros on entry) from its rows (flat ``x``, the
    input from the sequence's first row to its end), copied as Fluid's kernel copies them."""
    n = len(col) // cw
    if n > up + down:
        dst, copy = up * sw, cw - up * sw
        for _ in range(up):
            col[dst : dst + copy] = x[:copy]
            dst, copy = dst + cw - sw, copy + sw
        mid = n - up - down
        if mid > 0:
            windows = np.lib.stride_tricks.sliding_window_view(x[: (mid - 1) * sw + cw], cw)[::sw]
            col[dst : dst + mid * cw] = windows.reshape(-1)
        dst, src, copy = dst + mid * cw, mid * sw, cw - sw
        for _ in range(down):
            col[dst : dst + copy] = x[src : src + copy]
            dst, src, copy = dst + cw, src + sw, copy - sw
        return
    if cw // sw < up + down + 1:
        raise PeError(
            f"a sequence of {n} steps: contextLength {cw // sw} must be >= {up + down + 1} (Fluid's "
            f"up_pad {up} + down_pad {down} + 1) for sequences no longer than {up + down}"
        )
    total, zero, dst = n * sw, up * sw, up * sw
    for _ in range(min(up, n)):
        copy = min(total, cw - zero)
        col[dst : dst + copy] = x[:copy]
        dst, zero = dst + cw - sw, zero - sw
    dst, zero = n * cw, down * sw
    for j in range(1, min(down, n) + 1):
        copy = min(total, cw - zero)
        src = max(n - j - up, 0) * sw
        piece = x[src : src + copy]
        col[dst - zero - copy : dst - zero - copy + len(piece)] = piece
        dst, zero = dst - cw, zero - sw


def fusion_seqconv_eltadd_relu_out(ins, outs, attrs, meta):
    x, w, b = np.asarray(ins["X"]), np.asarray(ins["Filter"]), np.asarray(ins["Bias"])
    offs, up, down = meta.args
    sw, cw = x.shape[1], w.shape[0]
    col = outs["ColMat"]
    col.fill(0)
    flat_x, flat_col = x.reshape(-1), col.reshape(-1)
    for a, e in zip(offs[:-1], offs[1:]):
        _col_sequence(flat_col[a * cw : e * cw], flat_x[a * sw :], sw, cw, up, down)
    outs["Out"][...] = np.maximum(col @ w + b.reshape(-1), 0)


def fusion_seqexpand_concat_fc_out(ins, outs, attrs, meta):
    xs, w, b = [np.asarray(x) for x in ins["X"]], np.asarray(ins["FCWeight"]), ins.get("FCBias")
    offs = meta.args[0]
    widths = np.cumsum([0] + [x.shape[1] for x in xs])
    out = xs[0] @ w[: widths[1]]
    if b is not None:
        out = out + np.asarray(b).reshape(-1)
    fc_out = sum(x @ w[widths[i] : widths[i + 1]] for i, x in enumerate(xs[1:], 1))
    out = out + np.repeat(fc_out, np.diff(offs), axis=0)
    with np.errstate(over="ignore"):
        out = VEC_ACTS[attrs["fc_activation"]][0](out)
    results = {"Out": out.astype(xs[0].dtype, copy=False), "FCOut": fc_out.astype(xs[0].dtype, copy=False)}
    fresh_outputs(results, ins, outs, meta)


# (the CUDA twins run these on the host by name: kernels/cuda/sequence_fused.py's HOST_OPS)
fused_embedding_seq_pool_grad = adapter(
    rules.embedding_seq_pool_grad_meta, fused_embedding_seq_pool_grad_out, "fused_embedding_seq_pool_grad"
)
fused_embedding_seq_pool = adapter(
    rules.embedding_seq_pool_meta, fused_embedding_seq_pool_out, "fused_embedding_seq_pool"
)
fusion_seqpool_concat = adapter(rules.seqpool_concat_meta, fusion_seqpool_concat_out, "fusion_seqpool_concat")
fusion_seqpool_cvm_concat = adapter(
    rules.seqpool_concat_meta, fusion_seqpool_cvm_concat_out, "fusion_seqpool_cvm_concat"
)
fusion_seqconv_eltadd_relu = adapter(
    rules.seqconv_eltadd_relu_meta, fusion_seqconv_eltadd_relu_out, "fusion_seqconv_eltadd_relu"
)
fusion_seqexpand_concat_fc = adapter(
    rules.seqexpand_concat_fc_meta, fusion_seqexpand_concat_fc_out, "fusion_seqexpand_concat_fc"
)
