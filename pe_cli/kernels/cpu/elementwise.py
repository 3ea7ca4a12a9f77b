"""Elementwise kernels: the sum of several tensors (sum's out-kernel ``SUM``, its meta rule shapes/joining.sum_meta,
and ``sum``, its kernel by name: the builtin is never called here; up to four float arrays a pass,
_elementwise_loops.py), clip, clip_by_norm, minus and elementwise_div_grad_grad. (The isfinite/isinf/isnan checks
are structured kernels: logic.py.)

The binary elementwise ops (elementwise_add, ...: elementwise_binary.py), their gradients
(elementwise_binary_grad.py) and scale (scaling.py) are structured kernels; their kernels and the helpers of Fluid's
``axis`` broadcasting are named here too for the kernels that call them (fused, momentum, the gradients of other
families)."""

import functools
import math

import numpy as np

from ...base.selected_rows import SelectedRows
from . import _replicas, control_flow
from ..common import div_grad_grad
from .elementwise_binary import (  # noqa: F401 (named here for the kernels that call them)
    FORWARD,
    align,
    align_both,
    bias_grad,
    bias_grad_launch,
    elementwise_add,
    elementwise_div,
    elementwise_floordiv,
    elementwise_max,
    elementwise_min,
    elementwise_mod,
    elementwise_mul,
    elementwise_pow,
    elementwise_sub,
    middle_view,
    mid_run,
    unbroadcast,
)
from .elementwise_binary_grad import (  # noqa: F401 (named here for the kernels that call them)
    elementwise_add_grad,
    elementwise_div_grad,
    elementwise_max_grad,
    elementwise_min_grad,
    elementwise_mul_grad,
    elementwise_pow_grad,
    elementwise_sub_grad,
)
from .scaling import clip, clip_grad, scale  # noqa: F401 (structured kernels, named here for the kernels that call them)
from .launches import by_variant, one, parts_launch, twin_launch
from .selected_rows import sum_with_sparse
from .runtime.loops import add_same, flat, lazy, parallel_parts, run_in_parts
from ..structured import adapter, fresh_output
from ...shapes.elementwise import MINUS_ATTRS, clip_by_norm_meta, div_grad_grad_meta, minus_meta
from ...shapes.joining import sum_meta

_elementwise = lazy("_elementwise_loops")
_pointwise = lazy("_pointwise_loops")


def _sum_arrays(ins, outs, attrs, meta):
    """Tensor arrays' gradients (control flow): slot by slot, a new list (fresh)."""
    outs["Out"] = functools.reduce(control_flow.add, ins["X"])


def _sum_sparse(ins, outs, attrs, meta):
    """Row-sparse values: a SelectedRows of their rows, or (mixed with dense ones) a new dense array (fresh)."""
    outs["Out"] = sum_with_sparse(ins["X"])


def _sum_floats(ins, outs, attrs, meta):
    """Three or more float arrays of one shape and dtype in numpy's order (((x0 + x1) + x2) + x3, then + x4 + x5,
    ...), in passes over up to four of them (_elementwise_loops.py), into Out."""
    xs, out = ins["X"], outs["Out"]
    o = out.reshape(-1)
    head = [flat(x) for x in xs[:4]]
    run_in_parts(_elementwise(), f"add{len(head)}", o.size, *head, o, replica=getattr(_replicas, f"add{len(head)}"))
    rest = xs[4:]
    while len(rest) > 1:
        run_in_parts(_elementwise(), "add3", o.size, o, flat(rest[0]), flat(rest[1]), o, replica=_replicas.add3)
        rest = rest[2:]
    if rest:
        add_same(out, rest[0], out)


def _sum_pair_floats(ins, outs, attrs, meta):
    """X[0] + X[1] in one pass (on the device's threads when large), then the rest added in place."""
    xs, out = ins["X"], outs["Out"]
    add_same(xs[0], xs[1], out)
    _add_rest(out, xs[2:])


def _sum_pair(ins, outs, attrs, meta):
    xs, out = ins["X"], outs["Out"]
    np.add(xs[0], xs[1], out=out)
    _add_rest(out, xs[2:])


def _sum_copy(ins, outs, attrs, meta):
    xs, out = ins["X"], outs["Out"]
    np.copyto(out, xs[0])
    _add_rest(out, xs[1:])


def _add_rest(out, rest):
    for x in rest:
        np.add(out, x, out=out)


def sum_of_launches(names, out, table, writes):
    """Launches summing the float arrays ``names`` (one shape and dtype, ``table``'s) into ``out`` in
    numpy's order, with the loops _sum_floats and _sum_pair_floats run, their parallel twins where those
    run them (the same bits): X[0] + X[1] by add_same's (_pair_launch), three or four in one pass (add3,
    add4), then the rest added up to two a pass; ``out`` may be one of the first four (each loop reads
    an element's addends before it writes its sum). None where they are not such arrays. ``writes``:
    the buffers the launches write (the data-parallel reduce sums into its own gradient, which it holds)."""
    known = [table.get(n) for n in (*names, out)]
    if len(names) < 2 or None in known or len({(tuple(s), d) for s, d in known}) != 1 or known[0][1] not in _FLOATS:
        return None
    if out in names[4:]:
        return None  # (the first pass would write over it before it is added)
    size = math.prod(known[0][0])
    whole, parts, loops = ("var", out, (size,)), parallel_parts(size), _elementwise()
    if len(names) == 2:
        return [_pair_launch(names[0], names[1], out, size, writes)]
    head = [("var", n, (size,)) for n in names[:4]]
    serial, parallel = getattr(loops, f"add{len(head)}"), getattr(loops, f"add{len(head)}_parallel")
    launches = [parts_launch(serial, parallel, parts, [*head, whole], writes=writes)]
    rest = names[4:]
    while len(rest) > 1:
        args = [whole, ("var", rest[0], (size,)), ("var", rest[1], (size,)), whole]
        launches.append(parts_launch(loops.add3, loops.add3_parallel, parts, args))
        rest = rest[2:]
    if rest:
        launches.append(_pair_launch(out, rest[0], out, size))
    return launches


def _pair_launch(x, y, out, size, writes=()):
    """The launch of add_same(x, y, out) (runtime/loops.py): add_parallel's chunks where it takes them, else
    add_mid over [1, size, 1] and [size] (one IEEE add an element, numpy's bits, as either)."""
    flat_args = [("var", n, (size,)) for n in (x, y, out)]
    serial = [("var", x, (1, size, 1)), ("var", y, (size,)), ("var", out, (1, size, 1))]
    parts, loops = parallel_parts(size), _pointwise()
    return twin_launch(
        loops.add_mid, loops.add_parallel, parts > 1, [*flat_args, ("const", parts)], serial, writes=list(writes)
    )


def _sum_launches(op, table, meta):
    """A planned step's launches of sum's "floats" and "pair_floats" variants over arrays of one shape and dtype
    (sum_of_launches); None for the others (a Python launch)."""
    out = one(op, "Out", "outputs")
    if meta.variant not in ("floats", "pair_floats") or out is None:
        return None
    return sum_of_launches(list(op.inputs.get("X") or ()), out, table, [out])


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

# sum's out-kernel (its meta rule: shapes/joining.sum_meta), and its kernel by name (the blocked layout's)
SUM = by_variant(
    "sum_out",
    _sum_launches,
    arrays=_sum_arrays,
    sparse=_sum_sparse,
    floats=_sum_floats,
    pair_floats=_sum_pair_floats,
    pair=_sum_pair,
    copy=_sum_copy,
)
sum = adapter(sum_meta, SUM, "sum")


def _clip_by_norm(ins, attrs):
    """clip_by_norm's numpy form (dgc_clip_by_norm's clip too)."""
    x = ins["X"]
    if isinstance(x, SelectedRows):  # as Fluid's: the rows merged (duplicates summed), their values clipped
        rows, values = x.merged()
        return {"Out": x.with_arrays(rows, _clip_by_norm({"X": values}, attrs)["Out"])}
    norm = np.sqrt(np.sum(np.square(x, dtype=x.dtype), dtype=x.dtype))
    max_norm = x.dtype.type(attrs["max_norm"])
    if norm > max_norm:
        return {"Out": (x * (max_norm / norm)).astype(x.dtype, copy=False)}
    return {"Out": x.copy()}


def _div_grad_grad(ins, outs, attrs, meta, ctx):
    """Fluid's second-order gradient of elementwise_div, made of this device's kernels above (the arrays they made)."""
    given = tuple(v for v in ins.values() if isinstance(v, np.ndarray))
    for slot, value in div_grad_grad(globals(), ins, attrs, ctx).items():
        outs[slot] = fresh_output(value, meta.outputs[slot], given)


_div_grad_grad.takes_context = True
DIV_GRAD_GRAD = _div_grad_grad


def dgc_clip_by_norm(ins, attrs, clip=_clip_by_norm, step_of=lambda s: s):  # noqa: F811 (not the clip op)
    """clip_by_norm from step rampup_begin_step on (``clip``, ``step_of``: the CUDA kernel's clip and host copy)."""
    begin = int(attrs["rampup_begin_step"])
    if begin < 0 or int(np.asarray(step_of(ins["current_step"])).reshape(-1)[0]) < begin:
        return {"Out": ins["X"]}
    return clip({"X": ins["X"]}, attrs)


def _minus(ins, outs, attrs, meta):
    """Fluid 1.8's minus: elementwise_sub's out-kernel (its rule's variant, axis -1) on X and Y of one shape."""
    FORWARD["sub"](ins, outs, MINUS_ATTRS, meta)


MINUS = _minus
minus = adapter(minus_meta, MINUS, "minus")


def _put(form):
    """The out-kernel of a fresh variant of ``form(ins, attrs)``: its Out handed over (a row-sparse Out as it is;
    an array a copy only where it is an input or no new C-contiguous array: ``fresh_output``)."""

    def out(ins, outs, attrs, meta):
        value = form(ins, attrs)["Out"]
        arrays = tuple(v for v in ins.values() if isinstance(v, np.ndarray))
        outs["Out"] = value if isinstance(value, SelectedRows) else fresh_output(value, meta.outputs["Out"], arrays)

    out.__name__ = out.__qualname__ = f"{form.__name__}_out"
    return out


def _through(ins, outs, attrs, meta):
    """dgc_clip_by_norm before any ramp-up: Out is X (the rule's alias)."""


CLIP_BY_NORM = _put(_clip_by_norm)
DGC_CLIP_BY_NORM = by_variant("dgc_clip_by_norm_out", None, numpy=_put(dgc_clip_by_norm), through=_through)
clip_by_norm = adapter(clip_by_norm_meta, CLIP_BY_NORM, "clip_by_norm")
elementwise_div_grad_grad = adapter(div_grad_grad_meta, DIV_GRAD_GRAD, "elementwise_div_grad_grad")
