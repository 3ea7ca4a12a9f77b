"""Kernels of ops/manipulation.py: reshaping (out-kernels of structured kernels, their meta rules in
shapes/reshaping.py), cast, and reverse, flip, roll, shape and size (out-kernels too: shapes/rearranging.py,
shapes/manipulation.py); numpy (transpose's swap of two adjacent
axes: a numba loop, _transpose_loops.py). Expand and tile are broadcasting.py's out-kernels; joining and splitting
(concat, split, stack, unstack, unbind) joining.py's. Shape rules shared with the CUDA twins are in
shapes/manipulation.py and manipulation_run.py."""

import math

import numpy as np

from ...base.selected_rows import SelectedRows
from ...shapes.manipulation import cast_meta
from ...shapes.reshaping import SWAP_LOOP_MIN, transpose_meta
from .launches import Launch, by_variant, flat, one, parts_launch, view_launches
from .logic import PLAIN, _logic_loops
from .runtime.loops import lazy, parallel_parts, run_in_parts
from ..structured import adapter, fresh_output

_transpose_loops = lazy("_transpose_loops")


def reshaped_out(ins, outs, attrs, meta):
    """The out-kernel of reshape, flatten, squeeze, unsqueeze, flatten_contiguous_range, their ``*2`` twins and
    grad ops (their meta rules: shapes/reshaping.py): Out (X@GRAD) is X (Out@GRAD) in another shape, a view of
    its memory where it is C-contiguous (``Meta.views``), XShape holds nothing; both are made where the outputs
    are (kernels/structured.py): nothing is left to compute. (The executor never writes in place into an array
    a view shares: executor/plan.py.) A planned step's: view_launches."""


reshaped_out.launches = view_launches


def _transpose_view(ins, outs, attrs, meta):
    """No dim of more than one element passes another: Out is X in its shape (``Meta.views``), made already."""


def _transpose_swap(ins, outs, attrs, meta):
    """Two adjacent runs of axes swapped: the numba loop the rule chose (_transpose_loops.py: swap_middle, or
    swap_tiles) on X as [A, B, C, D] into Out as [A, C, B, D] (a non-contiguous X copied first)."""
    (a, b, c, d), slot = meta.args
    x = np.ascontiguousarray(ins[meta.loop_inputs[0]].reshape(a, b, c, d))
    out = outs[slot].reshape(a, c, b, d)
    run_in_parts(_transpose_loops(), meta.loop, x.size, x, out, least=SWAP_LOOP_MIN)


def _transpose_copy(ins, outs, attrs, meta):
    """numpy's copy of the transposed view into Out (an assignment: a few microseconds less than np.copyto's call
    on a small X; the same bits)."""
    perm, slot = meta.args
    outs[slot][...] = ins[meta.loop_inputs[0]].transpose(perm)


def _transpose_launches(op, table, meta):
    """A planned step's launch of the "swap" variant: its loop (_transpose_loops.swap_middle or swap_tiles), its parallel twin where
    _transpose_swap runs it (a copy: the same bits), on the input as [A, B, C, D] into the output as [A, C, B, D]; an XShape output
    (nothing to compute: an empty buffer) among its writes. The "view" variant's: the input's buffer in the
    output's shape (view_launches). None for the other variants (a Python launch)."""
    if meta.variant == "view":
        return view_launches(op, table, meta)
    if meta.variant != "swap":
        return None
    (a, b, c, d), slot = meta.args
    x, out = one(op, meta.loop_inputs[0]), one(op, slot, "outputs")
    if x is None or out is None or x not in table or out not in table:
        return None
    others = [name for s, names in op.outputs.items() if s != slot for name in names]
    if any(name not in table or math.prod(table[name][0]) for name in others):
        return None
    args, loops = [("var", x, (a, b, c, d)), ("var", out, (a, c, b, d))], _transpose_loops()
    parts = parallel_parts(a * b * c * d, SWAP_LOOP_MIN)  # (_transpose_swap's run_in_parts)
    serial, twin = getattr(loops, meta.loop), getattr(loops, meta.loop + "_parallel")
    return [parts_launch(serial, twin, parts, args, writes=[out, *others])]


# transpose's and its grad op's out-kernel (their meta rules: shapes/reshaping.transpose_meta, transpose_grad_meta)
transpose_out = by_variant(
    "transpose_out", _transpose_launches, view=_transpose_view, swap=_transpose_swap, copy=_transpose_copy
)
transpose = adapter(transpose_meta, transpose_out, "transpose")  # (the layouts' moves of an axis: kernels/layout.py)


def _cast_float16(ins, outs, attrs, meta):
    outs["Out"] = fresh_output(paddle_float16(ins["X"]), meta.outputs["Out"], (ins["X"],))


def _cast_astype(ins, outs, attrs, meta):
    np.copyto(outs["Out"], ins["X"], casting="unsafe")  # (numpy's conversion, astype's)


def _converted(src, dst):
    """True where the convert loop's conversion is numpy's astype, to the bit: bool, integer and float32/64 values
    to any of those but a float to an integer (there C's conversion of NaN and of values out of range is
    undefined)."""
    return src in PLAIN and dst in PLAIN and not (src.kind == "f" and dst.kind in "iu")


def _cast_launches(op, table, meta):
    """A planned step's launch of "astype": _logic_loops.convert over X's and Out's flat values, where _converted."""
    x, out = one(op, "X"), one(op, "Out", "outputs")
    if meta.variant != "astype" or x is None or out is None or x not in table or out not in table:
        return None
    if not _converted(table[x][1], table[out][1]):
        return None
    return [Launch(_logic_loops().convert, [flat(table, x), flat(table, out)], writes=[out])]


cast_out = by_variant("cast_out", _cast_launches, paddle_float16=_cast_float16, astype=_cast_astype)


_MIN_NORMAL, _MAX_HALF, _INF, _NAN = 0x38800000, 0x477FE000, 0x7F800000, 0x7F802000


def paddle_float16(x):
    """x as float16 the way Paddle's CPU converts (float16.h's software path, the wheel having no F16C): the
    value made a float32 first, its mantissa then truncated (toward zero, not to nearest); beyond float16's
    largest, inf; a float16 subnormal from trunc(|x| * 2^37)."""
    f = np.ascontiguousarray(x, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.int64)
    sign = (bits & 0x80000000) >> 16
    v = bits & 0x7FFFFFFF
    small = v < _MIN_NORMAL
    scaled = np.trunc(np.where(small, np.abs(f), 0).astype(np.float64) * 2.0**37).astype(np.int64)
    v = np.where(small, scaled, v)
    v = np.where((v > _MAX_HALF) & (v < _INF), _INF, v)
    v = np.where((v > _INF) & (v < _NAN), _NAN, v)
    v >>= 13
    v = np.where(v > _MAX_HALF >> 13, v - 0x1C000, v)  # the exponent rebiased (maxD)
    v = np.where(v > 0x3FF, v - 0x1C000, v)  # (minD, past the subnormals)
    return (v | sign).astype(np.uint16).view(np.float16).reshape(f.shape)


cast = adapter(cast_meta, cast_out, "cast")  # (CUDA's host fallback for its narrowing casts)


# -- reverse, flip, roll (ops/rearranging.py; their meta rules: shapes/rearranging.py), shape and size --


def _flip(ins, outs, attrs, meta):
    np.copyto(outs["Out"], np.flip(ins["X"], meta.args[0]))


def _copy(ins, outs, attrs, meta):
    np.copyto(outs["Out"], ins["X"])  # (no axis: a copy, not X itself)


REVERSE = by_variant("reverse_out", None, flip=_flip, copy=_copy)  # (flip's too: reverse's twin)


def _roll_into(x, out, meta):
    """X's windows copied into Out's (meta.args: numpy's roll's pieces; "flat": of X and Out flattened)."""
    if meta.variant == "copy":
        np.copyto(out, x)
        return
    src, dst = (x.reshape(-1), out.reshape(-1)) if meta.variant == "flat" else (x, out)
    for x_window, out_window in meta.args[0]:
        dst[out_window] = src[x_window]


def _roll(ins, outs, attrs, meta):
    _roll_into(ins["X"], outs["Out"], meta)


def _roll_back(ins, outs, attrs, meta):
    _roll_into(ins["Out@GRAD"], outs["X@GRAD"], meta)


ROLL = by_variant("roll_out", None, roll=_roll, flat=_roll, copy=_roll)
ROLL_GRAD = by_variant("roll_grad_out", None, roll=_roll_back, flat=_roll_back, copy=_roll_back)


def size_out(ins, outs, attrs, meta):
    outs["Out"][...] = ins["Input"].size


def shape_out(ins, outs, attrs, meta):
    x = ins["Input"]  # (a SelectedRows: its value's dims, [rows, ...], as Fluid's and Paddle's)
    outs["Out"][...] = (x.values if type(x) is SelectedRows else x).shape
