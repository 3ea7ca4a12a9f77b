"""CPU out-kernels of the branch ops (ops/control_flow_branches.py, is_empty and get_places of ops/control_flow.py;
meta rules: shapes/control_flow.py): IfElse's rows split by a mask and merged back, select_input/select_output and
their gradients (one of several values, picked by an int32 Mask), is_empty and get_places. Each puts the values
themselves, as its kernel returned them (``fresh``); is_empty fills its Out. The kernels by name
(kernels/cpu/control_flow.py's, which CUDA's HOST_OPS run) are the adapters."""

import numpy as np

from ...base.errors import PeError
from ...base.places import CUDAPlace, cpu_places
from .. import lod_items
from .control_flow_arrays import _host


def _mask(ins):
    return _host(ins["Mask"]).reshape(-1).astype(bool)


def _lod(ctx, slot):
    return ctx.lod.get(slot) or []


def split_lod_tensor_out(ins, outs, attrs, meta, ctx):
    """The mask (of X's count of sequences: the meta rule's check) picks X's sequences of LoD level ``level``
    (rows, where X has no LoD), with their LoD."""
    x, mask, lod, level = ins["X"], _mask(ins), _lod(ctx, "X"), attrs.get("level", 0)
    (true, t_lod), (false, f_lod) = (lod_items.gather(x, lod, level, np.flatnonzero(m)) for m in (mask, ~mask))
    ctx.set_lod("OutTrue", t_lod)
    ctx.set_lod("OutFalse", f_lod)
    outs["OutTrue"], outs["OutFalse"] = true, false


def merge_lod_tensor_out(ins, outs, attrs, meta, ctx):
    """The inverse of split_lod_tensor: each sequence (row) from InTrue where the mask holds, else
    from InFalse, in the mask's order, with their LoD."""
    mask, t, f, level = _mask(ins), ins["InTrue"], ins["InFalse"], attrs.get("level", 0)
    t_lod, f_lod = _lod(ctx, "InTrue"), _lod(ctx, "InFalse")
    counts = [len(lod[level]) - 1 if level < len(lod) else len(v) for v, lod in ((t, t_lod), (f, f_lod))]
    if counts != [int(mask.sum()), len(mask) - int(mask.sum())]:
        raise PeError(
            f"merge_lod_tensor: the mask selects {mask.sum()} and {len(mask) - mask.sum()} sequences, "
            f"the branches gave {counts[0]} and {counts[1]}"
        )
    ref = t if len(t) else f  # an empty branch's rows may have a placeholder width
    dtype, parts, subs, taken = np.result_type(t, f), [], [], [0, 0]
    for m in mask:
        value, lod, k = (t, t_lod, 0) if m else (f, f_lod, 1)
        parts.append(value[lod_items.rows_of(lod, level, [taken[k]])].astype(dtype, copy=False))
        if level < len(lod):
            subs.append(lod_items.span(lod, level, taken[k])[2])
        taken[k] += 1
    out = np.concatenate(parts) if parts else np.empty((0,) + ref.shape[1:], dtype)
    ctx.set_lod("Out", lod_items.join(subs, len(subs[0])) if subs else None)
    outs["Out"] = out


def is_empty_out(ins, outs, attrs, meta):
    outs["Out"][...] = np.size(ins["X"]) == 0


def get_places_out(ins, outs, attrs, meta, ctx, auto="CPU"):
    """The places of device_type (AUTO: ``auto``, the kind of device running it)."""
    count = attrs["device_count"] or None
    if (auto if attrs["device_type"] == "AUTO" else attrs["device_type"]) == "CPU":
        outs["Out"] = cpu_places(count)
        return
    outs["Out"] = [CUDAPlace(i) for i in range(count or 1)]


def _selected(ins, count, op):
    """The index an int32 [1] Mask selects among ``count`` variables, checked."""
    i = int(np.asarray(ins["Mask"]).reshape(-1)[0])
    if not 0 <= i < count:
        raise PeError(f"{op}: Mask={i} selects none of the {count} variables (expected 0 <= Mask < {count})")
    return i


def select_input_out(ins, outs, attrs, meta):
    i = _selected(ins, len(ins["X"]), "select_input")
    if ins["X"][i] is None:
        raise PeError(f"select_input: X #{i}, which Mask={i} selects, has no value (its branch did not write it)")
    outs["Out"] = ins["X"][i]


def select_output_out(ins, outs, attrs, meta, ctx):
    """Out[Mask] = X; the other outputs are given no value (None)."""
    count = ctx.output_counts["Out"]
    i = _selected(ins, count, "select_output")
    outs["Out"] = [ins["X"] if k == i else None for k in range(count)]


def select_input_grad_out(ins, outs, attrs, meta, ctx, zeros=np.zeros_like):
    """X@GRAD[Mask] = Out@GRAD; ``zeros`` (the device's) for the other inputs that have a value."""
    i = _selected(ins, len(ins["X"]), "select_input_grad")
    grads = [ins["Out@GRAD"] if k == i else None if x is None else zeros(x) for k, x in enumerate(ins["X"])]
    outs["X@GRAD"] = grads


def select_output_grad_out(ins, outs, attrs, meta):
    """X@GRAD = Out@GRAD[Mask]."""
    outs["X@GRAD"] = ins["Out@GRAD"][_selected(ins, len(ins["Out@GRAD"]), "select_output_grad")]


# (the LoDs read and handed back; the count of outputs; the device's places and zeros)
for _out in (split_lod_tensor_out, merge_lod_tensor_out, get_places_out, select_output_out, select_input_grad_out):
    _out.takes_context = True
for _out in (
    split_lod_tensor_out,
    merge_lod_tensor_out,
    is_empty_out,
    get_places_out,
    select_input_out,
    select_output_out,
    select_input_grad_out,
    select_output_grad_out,
):
    _out.launches = None
