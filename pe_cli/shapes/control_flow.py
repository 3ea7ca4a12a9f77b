"""Meta rules (shapes/structured.py) of the control-flow ops (ops/control_flow.py, control_flow_arrays.py,
control_flow_branches.py). Every one is ``fresh``: its out-kernel puts the values themselves (a tensor picked, an
array's item, what a block wrote), as its kernel returned them, and nothing is allocated, but for is_empty's and
lod_array_length's Out, which they fill.

- Ops that compute into tensors: is_empty (bool, [1] or 0-D), lod_array_length (int64 [1]); split_lod_tensor and
  merge_lod_tensor (rows of X's, a length the mask's values give: -1; split's refusal of a mask of another count of
  rows or sequences, from X's shape or LoD, here); tensor_array_to_tensor and its gradient (the items' shapes
  concatenated or stacked where they agree, else unknown and numpy's refusal from the out-kernel; a slot never
  written refused here); select_input/select_output and their gradients (the picked value's shape where every
  candidate has one shape, else unknown: the Mask's value picks); get_places (no tensor: (None, None)).
- Ops that hold tensor arrays or run a block (create_array, write_to_array, read_from_array, their gradients;
  while, conditional_block, pylayer, recurrent and their gradients: ``Structured(python=True)``): what an array
  slot or a block's run holds is known only when it runs, (None, None); a gradient has its input's shape and
  dtype where the input is a tensor."""

import numpy as np

from ..base.errors import PeError
from .reduction import scalar_shape
from .structured import Meta

UNKNOWN = (None, None)


def _like(value):
    """(shape, dtype) of a tensor input, UNKNOWN for anything else (an array, a missing value)."""
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    return UNKNOWN if shape is None or dtype is None else (tuple(shape), dtype)


def _each_like(values):
    return [_like(v) for v in values or []]


def _unknown(facts, slot):
    """A list output of as many unknown values as the op has variables in ``slot`` (none where not said)."""
    count = facts.count(slot)
    if count is None and getattr(facts, "block", None) is not None:
        count = len(facts.block.op.outputs.get(slot) or ())
    return [UNKNOWN] * (count or 0)


def _one_of(values):
    """The shape and dtype every tensor of ``values`` has, else UNKNOWN."""
    specs = {_like(v) for v in values if v is not None}
    return specs.pop() if len(specs) == 1 else UNKNOWN


# -- tensor arrays (Structured.python but lod_array_length and tensor_array_to_tensor) -------------------


def create_array_meta(attrs, ins, facts):
    return Meta({"Out": UNKNOWN}, "array", fresh=True)


def write_to_array_meta(attrs, ins, facts):
    return Meta({"Out": UNKNOWN}, "array", fresh=True)


def read_from_array_meta(attrs, ins, facts):
    return Meta({"Out": UNKNOWN}, "array", fresh=True)


def array_write_grad_meta(attrs, ins, facts):
    return Meta({"X@GRAD": _like(ins["X"]), "Array@GRAD": UNKNOWN}, "array", fresh=True)


def array_read_grad_meta(attrs, ins, facts):
    return Meta({"Array@GRAD": UNKNOWN}, "array", fresh=True)


def lod_array_length_meta(attrs, ins, facts):
    return Meta({"Out": ((1,), np.dtype(np.int64))}, "count")


def _filled(array, what):
    if any(v is None for v in array):
        raise PeError(f"{what}: slot {[v is None for v in array].index(True)} of the array was never written")
    return array


def _joined(shapes, axis, stack):
    """The shape np.stack / np.concatenate give ``shapes`` along ``axis``, None where they refuse them."""
    first = shapes[0]
    if stack:
        if any(s != first for s in shapes) or not -len(first) - 1 <= axis <= len(first):
            return None
        out = list(first)
        out.insert(axis % (len(first) + 1), len(shapes))
        return tuple(out)
    if not first or not -len(first) <= axis < len(first):
        return None
    k = axis % len(first)
    if any(len(s) != len(first) or s[:k] + s[k + 1 :] != first[:k] + first[k + 1 :] for s in shapes):
        return None
    return first[:k] + (sum(s[k] for s in shapes),) + first[k + 1 :]


def tensor_array_to_tensor_meta(attrs, ins, facts):
    """Out: the items joined; a slot never written is refused (one line)."""
    xs = _filled(ins["X"], "tensor_array_to_tensor")
    specs = [_like(x) for x in xs]
    shape = None
    if xs and UNKNOWN not in specs:
        shape = _joined([s for s, _ in specs], attrs["axis"], attrs["use_stack"])
    out = UNKNOWN if shape is None else (shape, np.result_type(*[d for _, d in specs]))
    return Meta({"Out": out, "OutIndex": ((len(xs),), np.dtype(np.int32))}, "join", fresh=True)


def tensor_array_to_tensor_grad_meta(attrs, ins, facts):
    dtype = getattr(ins["Out@GRAD"], "dtype", None)
    grads = [UNKNOWN if s == UNKNOWN or dtype is None else (s[0], dtype) for s in _each_like(ins["X"])]
    return Meta({"X@GRAD": grads}, "cut", fresh=True)


# -- masks and branches --------------------------------------------------------------------------------


def is_empty_meta(attrs, ins, facts):
    return Meta({"Out": (scalar_shape(facts.zero_dim), np.dtype(bool))}, "count")


def _rows(value):
    shape, dtype = _like(value)
    return UNKNOWN if shape is None else ((-1,) + shape[1:], dtype)


def split_lod_tensor_meta(attrs, ins, facts):
    """OutTrue, OutFalse: X's rows the mask picks; a mask of another count of X's sequences of LoD level ``level``
    (rows, where X has none) is refused (one line)."""
    x, mask, lod, level = ins["X"], ins["Mask"], facts.lod.get("X") or [], attrs.get("level", 0)
    count = len(lod[level]) - 1 if level < len(lod) else (x.shape[0] if x.shape else len(x))  # (0-D: numpy's refusal)
    rows = int(np.prod(mask.shape, dtype=np.int64))
    if rows != count:
        raise PeError(
            f"split_lod_tensor: the mask has {rows} rows, X has {count} {'sequences' if level < len(lod) else 'rows'}"
        )
    return Meta({"OutTrue": _rows(x), "OutFalse": _rows(x)}, "gather", fresh=True)


def merge_lod_tensor_meta(attrs, ins, facts):
    """Out: rows of InTrue's and InFalse's (an empty InTrue's rows may have a placeholder width: InFalse's)."""
    t, f = ins["InTrue"], ins["InFalse"]
    ref = t if t.shape and t.shape[0] else f  # (a 0-D InTrue: refused by the out-kernel, as before)
    return Meta({"Out": ((-1,) + tuple(ref.shape[1:]), np.result_type(t.dtype, f.dtype))}, "merge", fresh=True)


def get_places_meta(attrs, ins, facts):
    return Meta({"Out": UNKNOWN}, "places", fresh=True)


def select_input_meta(attrs, ins, facts):
    return Meta({"Out": _one_of(ins["X"])}, "pick", fresh=True)


def select_output_meta(attrs, ins, facts):
    return Meta({"Out": [_like(ins["X"])] * (facts.count("Out") or 0)}, "pick", fresh=True)


def select_input_grad_meta(attrs, ins, facts):
    return Meta({"X@GRAD": _each_like(ins["X"])}, "pick", fresh=True)


def select_output_grad_meta(attrs, ins, facts):
    return Meta({"X@GRAD": _one_of(ins["Out@GRAD"])}, "pick", fresh=True)


# -- ops that run a block (Structured.python) ----------------------------------------------------------


def while_meta(attrs, ins, facts):
    return Meta({"Out": _unknown(facts, "Out"), "StepScopes": UNKNOWN}, "block", fresh=True)


def while_grad_meta(attrs, ins, facts):
    return Meta({"X@GRAD": _each_like(ins.get("X"))}, "block", fresh=True)


def conditional_block_meta(attrs, ins, facts):
    return Meta({"Out": _unknown(facts, "Out"), "Scope": UNKNOWN}, "block", fresh=True)


def conditional_block_grad_meta(attrs, ins, facts):
    return Meta(
        {"Input@GRAD": _each_like(ins.get("Input")), "PreOut@GRAD": _unknown(facts, "PreOut@GRAD")}, "block", fresh=True
    )


def pylayer_meta(attrs, ins, facts):
    return Meta({"Out": _unknown(facts, "Out"), "Scope": UNKNOWN}, "block", fresh=True)


def pylayer_grad_meta(attrs, ins, facts):
    return Meta({"Input@GRAD": _each_like(ins.get("Input"))}, "block", fresh=True)


def recurrent_meta(attrs, ins, facts):
    return Meta({"outputs": _unknown(facts, "outputs"), "step_scopes": UNKNOWN}, "block", fresh=True)


def recurrent_grad_meta(attrs, ins, facts):
    return Meta(
        {slot + "@GRAD": _each_like(ins.get(slot)) for slot in ("inputs", "initial_states", "parameters")},
        "block",
        fresh=True,
    )
