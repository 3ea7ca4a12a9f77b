"""Kernels of the LoD rank table ops (pe_cli/ops/lod_rank.py). A rank table's value is a RankTable
(kernels/rank_table.py). What moves is elements of a LoD level with their own LoD (pe_cli/kernels/lod_items.py),
as Fluid's ops move them; a tensor without LoD moves by rows. The ops on tensors are out-kernels (their meta rules:
shapes/lod_rank.py), each kernel by name their adapter, which the CUDA twins run on the host; so are
lod_tensor_to_array and array_to_lod_tensor (a tensor array out or in, fresh) and lod_rank_table (a rank table out,
fresh)."""

import numpy as np

from ...base.errors import PeError
from ...base.tensor_array import TensorArray
from .. import lod_items
from ..rank_table import RankTable
from ..structured import adapter, fresh_outputs
from ...shapes import lod_rank as rules


def _host(x):
    return x.copy_to_host() if hasattr(x, "copy_to_host") else np.asarray(x)


def _lod(ctx, slot):
    return ctx.lod.get(slot) or []


def lod_rank_table_out(ins, outs, attrs, meta, ctx):
    """Out: the rank table of X's LoD level ``level`` (the call's: a run's LoD, which no meta rule sees)."""
    lod, level = _lod(ctx, "X"), attrs["level"]
    if not lod:
        raise PeError("lod_rank_table: X has no LoD; feed a LoDTensor (sequences)")
    if not 0 <= level < len(lod):
        raise PeError(f"lod_rank_table: level {level} is not a level of X's LoD ({len(lod)} levels)")
    outs["Out"] = RankTable(lod[level], level, lod[:level])


def max_sequence_len_out(ins, outs, attrs, meta):
    table = ins["RankTable"]
    outs["Out"][0] = table.lengths[0] if len(table.lengths) else 0


def lod_tensor_to_array_out(ins, outs, attrs, meta, ctx):
    """Out: the tensor array of the table's time steps (each with its LoD), handed over."""
    x, table, lod = ins["X"], ins["RankTable"], _lod(ctx, "X")
    steps = int(table.lengths[0]) if len(table.lengths) else 0
    items = [lod_items.gather(x, lod, table.level + 1, table.rows(t)) for t in range(steps)]
    outs["Out"] = TensorArray([rows for rows, _ in items], [sub for _, sub in items])


def _pieces(array, table):
    """The rows of each array slot that make the output, in the sequences' own order."""
    lods = getattr(array, "lods", None) or [None] * len(array)
    position = np.empty(len(table.order), dtype=np.int64)
    position[table.order] = np.arange(len(table.order))
    pieces, subs = [], []
    for i, n in enumerate(np.diff(table.offsets)):
        for t in range(int(n)):
            lod = lods[t] or []
            pieces.append((t, lod_items.rows_of(lod, 0, [position[i]])))
            if lod:
                subs.append(lod_items.span(lod, 0, int(position[i]))[2])
    return pieces, subs


def _rows_in_order(array, table):
    """Where the slots are rows (no LoD): the output, one numpy gather. Token t of the sequence at
    place p of the table is row p of slot t."""
    lengths = np.diff(table.offsets)
    position = np.empty(len(table.order), dtype=np.int64)
    position[table.order] = np.arange(len(table.order))
    steps = int(lengths.max()) if len(lengths) else 0
    stacked = np.concatenate([array[t] for t in range(steps)])
    starts = np.concatenate([[0], np.cumsum([len(array[t]) for t in range(steps)])])
    seq = np.repeat(np.arange(len(lengths)), lengths)
    token = np.arange(len(seq)) - table.offsets[:-1][seq]
    return stacked[starts[token] + position[seq]]


def array_to_lod_tensor_out(ins, outs, attrs, meta, ctx):
    """Out: the sequences put back together (the array of no tensor: the meta rule's refusal), handed over, its LoD
    set on the call's context."""
    array, table = ins["X"], ins["RankTable"]
    first = next(a for a in array if a is not None)
    lods = getattr(array, "lods", None) or []
    if len(table.offsets) > 1 and not any(lods) and all(a is not None for a in array[: int(table.lengths[0])]):
        lod = table.coarse + [table.offsets.tolist()]
        ctx.set_lod_map({"Out": lod})
        outs["Out"] = _rows_in_order(array, table)
        return
    pieces, subs = _pieces(array, table)
    parts = [array[t][rows] for t, rows in pieces]
    out = np.concatenate(parts) if parts else np.zeros((0,) + first.shape[1:], first.dtype)
    lod = table.coarse + [table.offsets.tolist()] + (lod_items.join(subs, len(subs[0])) if subs else [])
    ctx.set_lod_map({"Out": lod})
    outs["Out"] = out


def shrink_rnn_memory_out(ins, outs, attrs, meta, ctx):
    i = int(_host(ins["I"]).reshape(-1)[0])
    x, lod = ins["X"], _lod(ctx, "X")
    out, sub = lod_items.gather(x, lod, 0, range(ins["RankTable"].running(i)))
    if sub:
        ctx.set_lod("Out", sub)
    fresh_outputs({"Out": out}, ins, outs, meta)


def shrink_rnn_memory_grad_out(ins, outs, attrs, meta):
    og, grad = ins["Out@GRAD"], outs["X@GRAD"]
    grad.fill(0)
    grad[: len(og)] = og


def _order_rows(x, table, lod):
    if not lod and len(x) != len(table.order):
        raise PeError(f"reorder_lod_tensor_by_rank: X has {len(x)} rows for {len(table.order)} sequences")
    if lod and len(lod[0]) - 1 != len(table.order):
        raise PeError(
            f"reorder_lod_tensor_by_rank: X holds {len(lod[0]) - 1} sequences for {len(table.order)} in the rank table"
        )
    return lod_items.rows_of(lod, 0, table.order)


def reorder_lod_tensor_by_rank_out(ins, outs, attrs, meta, ctx):
    x, table, lod = ins["X"], ins["RankTable"], _lod(ctx, "X")
    _order_rows(x, table, lod)
    out, sub = lod_items.gather(x, lod, 0, table.order)
    if sub:
        ctx.set_lod("Out", sub)
    fresh_outputs({"Out": out}, ins, outs, meta)


def reorder_lod_tensor_by_rank_grad_out(ins, outs, attrs, meta, ctx):
    x, grad = ins["X"], outs["X@GRAD"]
    grad.fill(0)
    grad[_order_rows(x, ins["RankTable"], _lod(ctx, "X"))] = ins["Out@GRAD"]


def rnn_memory_helper_out(ins, outs, attrs, meta):
    """Out: X (the Meta's alias)."""


def rnn_memory_helper_grad_out(ins, outs, attrs, meta):
    if meta.variant == "zeros":  # (no Out@GRAD; else X@GRAD is it, the Meta's alias)
        outs["X@GRAD"].fill(0)


for _out in (shrink_rnn_memory_out, reorder_lod_tensor_by_rank_out, reorder_lod_tensor_by_rank_grad_out):
    _out.takes_context = True
# (the CUDA twins run these on the host by name: kernels/cuda/lod_rank.py's HOST_OPS)
for _out in (lod_rank_table_out, lod_tensor_to_array_out, array_to_lod_tensor_out):  # (the LoDs read and set)
    _out.takes_context, _out.launches = True, None
lod_rank_table = adapter(rules.lod_rank_table_meta, lod_rank_table_out, "lod_rank_table")
lod_tensor_to_array = adapter(rules.lod_tensor_to_array_meta, lod_tensor_to_array_out, "lod_tensor_to_array")
array_to_lod_tensor = adapter(rules.array_to_lod_tensor_meta, array_to_lod_tensor_out, "array_to_lod_tensor")
max_sequence_len = adapter(rules.max_sequence_len_meta, max_sequence_len_out, "max_sequence_len")
shrink_rnn_memory = adapter(rules.shrink_rnn_memory_meta, shrink_rnn_memory_out, "shrink_rnn_memory")
shrink_rnn_memory_grad = adapter(
    rules.shrink_rnn_memory_grad_meta, shrink_rnn_memory_grad_out, "shrink_rnn_memory_grad"
)
reorder_lod_tensor_by_rank = adapter(rules.reorder_meta, reorder_lod_tensor_by_rank_out, "reorder_lod_tensor_by_rank")
reorder_lod_tensor_by_rank_grad = adapter(
    rules.reorder_grad_meta, reorder_lod_tensor_by_rank_grad_out, "reorder_lod_tensor_by_rank_grad"
)
rnn_memory_helper = adapter(rules.memory_helper_meta, rnn_memory_helper_out, "rnn_memory_helper")
rnn_memory_helper_grad = adapter(rules.memory_helper_grad_meta, rnn_memory_helper_grad_out, "rnn_memory_helper_grad")
