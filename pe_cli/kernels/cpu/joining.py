"""CPU out-kernels (structured kernels, shapes/structured.py) of the joining ops: concat, split, stack, unstack,
unbind and their gradients; their meta rules: shapes/joining.py (sum's out-kernel: elementwise.py). Each writes through numpy's
``out=`` or copies each part into the buffer it is handed; none allocates. concat, stack, split, unstack, unbind
and the gradients of concat, stack and unstack are launched in planned steps: copies of blocks of columns
(_joining_loops.py)."""

import math

import numpy as np

from .launches import Launch, by_variant, one
from .runtime.loops import lazy

_loops = lazy("_joining_loops")


def _concatenate(ins, outs, attrs, meta):
    np.concatenate(ins["X"], axis=meta.args[0], out=outs["Out"])


def _parts(slot, source):
    """X (Out@GRAD)'s parts along the Meta's axis, each copied into its buffer of ``slot``."""

    def run(ins, outs, attrs, meta):
        axis, bounds = meta.args
        x, before = ins[source], (slice(None),) * axis
        for buffer, (start, end) in zip(outs[slot], bounds):
            np.copyto(buffer, x[(*before, slice(start, end))])

    return run


def _stack(source, slot):
    """The inputs, each seen with a new dim at the axis, joined into Y (X@GRAD): numpy's stack, its checks made by
    the meta rule."""

    def run(ins, outs, attrs, meta):
        axis, index = meta.args
        np.concatenate([x[index] for x in ins[source]], axis=axis, out=outs[slot])

    return run


def _stack_slices(ins, outs, attrs, meta):
    """stack_grad: X@GRAD[i] is Y@GRAD's i-th slice along the axis (into its buffer seen in the slice's shape)."""
    dy, before = ins["Y@GRAD"], (slice(None),) * meta.args[0]
    for i, buffer in enumerate(outs["X@GRAD"]):
        part = dy[(*before, i)]
        np.copyto(buffer.reshape(part.shape), part)


def _slices(slot):
    """unstack's and unbind's: X's first rows * k * cols elements seen as [rows, k, cols]; output j is its [:, j]
    (each buffer seen as [rows, cols])."""

    def run(ins, outs, attrs, meta):
        rows, k, cols = meta.args
        parts = ins["X"].reshape(-1)[: rows * k * cols].reshape(rows, k, cols)
        for j, buffer in enumerate(outs[slot]):
            np.copyto(buffer.reshape(rows, cols), parts[:, j])

    return run


def _leading(ins, outs, attrs, meta):
    """unbind_leading_grad: X@GRAD's first rows * k * cols elements seen as [rows, k, cols], Out@GRAD[j] put in its
    [:, j] (cast as an assignment casts, as the stacked gradients were), the rest 0."""
    rows, k, cols = meta.args
    dx, n = outs["X@GRAD"].reshape(-1), rows * k * cols
    dx[n:] = 0
    parts = dx[:n].reshape(rows, k, cols)
    for j, grad in enumerate(ins["Out@GRAD"]):
        parts[:, j] = grad.reshape(rows, cols)


def _as_columns(table, names, axis):
    """Each of ``names`` seen as [its dims before ``axis``, the rest]: (the views' launch arguments, their widths);
    None where a name is unknown or of another rank or dtype, or the dims before the axis differ."""
    known = [table.get(n) for n in names]
    if None in known or len({(len(shape), tuple(shape[:axis]), dtype) for shape, dtype in known}) != 1:
        return None
    rows = math.prod(known[0][0][:axis])
    widths = [math.prod(shape[axis:]) for shape, _ in known]
    return [("var", n, (rows, w)) for n, w in zip(names, widths)], widths


def _concat_launches(op, table, meta):
    """A planned step's launches of concat: each X copied into its columns of Out (put_columns); None where an X
    is not of Out's rank and dtype (numpy's concatenate casts it)."""
    xs, out = op.inputs.get("X") or [], one(op, "Out", "outputs")
    seen = None if out is None or not xs else _as_columns(table, [out, *xs], meta.args[0])
    if seen is None:
        return None
    (whole, *parts), (_, *widths) = seen
    starts = np.cumsum([0, *widths[:-1]]).tolist()
    return [
        Launch(_loops().put_columns, [part, whole, ("const", start)], writes=[out] if k == 0 else ())
        for k, (part, start) in enumerate(zip(parts, starts))
    ]


def _parts_launches(slot, source):
    """A planned step's launches of the "parts" variant (concat's gradient, split): each output of ``slot`` cut out
    of ``source``'s columns (take_columns); None where an output is missing or another rank or dtype."""

    def launches(op, table, meta):
        axis, bounds = meta.args
        x, outs = one(op, source), op.outputs.get(slot) or []
        seen = None if x is None or len(outs) != len(bounds) else _as_columns(table, [x, *outs], axis)
        if seen is None:
            return None
        (whole, *parts), inner = seen[0], math.prod(table[x][0][axis + 1 :])
        take = _loops().take_columns
        return [
            Launch(take, [whole, part, ("const", start * inner)], writes=[name])
            for name, part, (start, _) in zip(outs, parts, bounds)
        ]

    return launches


CONCAT = by_variant("concat_out", _concat_launches, concatenate=_concatenate)
CONCAT_GRAD = by_variant("concat_grad_out", _parts_launches("X@GRAD", "Out@GRAD"), parts=_parts("X@GRAD", "Out@GRAD"))
SPLIT = by_variant("split_out", _parts_launches("Out", "X"), parts=_parts("Out", "X"))


def _stack_launches(source, slot):
    """A planned step's launches of the "stack" variant: each input of ``source`` into its block of ``slot``'s columns,
    the joined value seen as [the dims before the new one, the rest] (put_columns); None where an input's dtype is
    not the output's (numpy's stack casts it)."""

    def launches(op, table, meta):
        xs, out = op.inputs.get(source) or [], one(op, slot, "outputs")
        if out is None or not xs or any(n not in table for n in (out, *xs)):
            return None
        (shape, dtype), axis = table[out], meta.args[0]
        if any(table[x][1] != dtype for x in xs):
            return None
        rows, width = math.prod(shape[:axis]), math.prod(shape[axis + 1 :])
        whole = ("var", out, (rows, len(xs) * width))
        return [
            Launch(
                _loops().put_columns,
                [("var", x, (rows, width)), whole, ("const", k * width)],
                writes=[out] if k == 0 else (),
            )
            for k, x in enumerate(xs)
        ]

    return launches


def _slices_launches(source, slot, geometry):
    """A planned step's launches of a "slices" variant: output j of ``slot`` is ``source`` seen as [rows, k, cols]'s
    [:, j] (take_columns), ``geometry(op, table, meta)`` giving (rows, k, cols); None where those are not all of
    ``source`` (unbind's fewer outputs than slices read its first elements) or an output is another dtype."""

    def launches(op, table, meta):
        x, outs = one(op, source), op.outputs.get(slot) or []
        if x is None or any(n not in table for n in (x, *outs)):
            return None
        rows, k, cols = geometry(op, table, meta)
        if rows * k * cols != math.prod(table[x][0]) or len(outs) != k or any(table[n][1] != table[x][1] for n in outs):
            return None
        whole = ("var", x, (rows, k * cols))
        return [
            Launch(_loops().take_columns, [whole, ("var", n, (rows, cols)), ("const", j * cols)], writes=[n])
            for j, n in enumerate(outs)
        ]

    return launches


def _dy_slices(op, table, meta):
    """stack_grad's Y@GRAD as [the dims before the axis, its slices, the rest]."""
    shape, axis = table[one(op, "Y@GRAD")][0], meta.args[0]
    return math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1 :])


STACK = by_variant("stack_out", _stack_launches("X", "Y"), stack=_stack("X", "Y"))
STACK_GRAD = by_variant("stack_grad_out", _slices_launches("Y@GRAD", "X@GRAD", _dy_slices), slices=_stack_slices)
UNSTACK = by_variant("unstack_out", _slices_launches("X", "Y", lambda op, table, meta: meta.args), slices=_slices("Y"))
UNBIND = by_variant(
    "unbind_out", _slices_launches("X", "Out", lambda op, table, meta: meta.args), slices=_slices("Out")
)
UNBIND_LEADING_GRAD = by_variant("unbind_leading_grad_out", None, leading=_leading)
UNSTACK_GRAD = by_variant("unstack_grad_out", _stack_launches("Y@GRAD", "X@GRAD"), stack=_stack("Y@GRAD", "X@GRAD"))
