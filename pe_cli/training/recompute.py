"""Fluid's forward recomputation (``RecomputeOptimizer``, ``append_backward(checkpoints=...)``): the
forward ops between checkpoints are split into segments; the backward of a segment first runs again
the segment's ops whose values are not kept, writing them to ``<name>.subprog_<k>`` variables, and its
grad ops read those. What is kept: the checkpoints, the inputs (values no op of the path writes),
the values that cross a segment's bounds and the ``seed`` op's output that each dropout reads, so a
dropout run again drops the units its forward run dropped. The op sequence is Fluid 1.8's."""

from ..base.errors import PeError
from ..framework import OpRole
from ..framework.source import built_like
from ..framework.unique_name import generate

__all__ = ["check_checkpoints", "insert_dropout_seeds", "append_recomputing_grads"]


def check_checkpoints(checkpoints):
    if checkpoints is None:
        return
    if not isinstance(checkpoints, (list, tuple)):
        raise TypeError(f"append_backward: checkpoints must be a list of Variables or names, got {checkpoints!r}")
    for c in checkpoints:
        if not isinstance(c, str) and not hasattr(c, "name"):
            raise TypeError(f"append_backward: checkpoints must hold Variables or names, got {c!r}")


def insert_dropout_seeds(block, fwd_ops):
    """A ``seed`` op before each dropout of ``fwd_ops``, whose value the dropout reads (its ``seed``
    attribute where ``fix_seed``, else 0: a new draw each run). Returns the forward ops with them."""
    out = []
    for op in fwd_ops:
        if op.type == "dropout" and not op.input("Seed"):
            name = generate(generate("seed") + ".tmp")
            block.create_var(name=name, shape=[1], dtype="int32", stop_gradient=False)
            seed = int(op.attrs.get("seed", 0)) if op.attrs.get("fix_seed") else 0
            out.append(
                block._insert_op(block.ops.index(op), "seed", {}, {"Out": [name]}, {"seed": seed}, role=OpRole.Forward)
            )
            op.inputs["Seed"] = [name]
        out.append(op)
    return out


def _path(fwd_ops, loss_name):
    """The ops whose values reach the loss, in order (Fluid's op path)."""
    needed, path = {loss_name}, []
    for op in reversed(fwd_ops):
        if needed & set(op.output_arg_names):
            path.append(op)
            needed.update(op.input_arg_names)
    return path[::-1]


class _Uses:
    """For each name, the indices of the path's ops that read it and that write it."""

    def __init__(self, ops):
        self.readers, self.writers = {}, {}
        for i, op in enumerate(ops):
            for n in op.input_arg_names:
                self.readers.setdefault(n, []).append(i)
                self.writers.setdefault(n, [])
            for n in op.output_arg_names:
                self.writers.setdefault(n, []).append(i)
                self.readers.setdefault(n, [])

    def known(self, name):
        return name in self.writers

    def crossing(self, begin, end, ops):
        """The values a segment [begin, end) hands to later ops or takes from earlier ones."""
        out = set()
        for op in ops[begin:end]:
            out.update(n for n in op.output_arg_names if any(k >= end for k in self.readers[n]))
            out.update(n for n in op.input_arg_names if any(k < begin for k in self.writers[n]))
        return out


def _segments(uses, checkpoints):
    """Fluid's recompute segments [begin, end) of the path, from its checkpoints in the order their
    values are made (an input first)."""
    ordered = sorted(
        (n for n in dict.fromkeys(checkpoints) if uses.known(n)), key=lambda n: max(uses.writers[n], default=-1)
    )
    segments = []
    if len(ordered) == 1:
        last = max(uses.writers[ordered[0]], default=-1)
        if last > 0:
            segments.append([0, last + 1])
    for a, b in zip(ordered, ordered[1:]):
        begin, end = min(uses.readers[a], default=None), max(uses.writers[b], default=-1)
        if begin is not None and begin < end:
            segments.append([begin, end + 1])
    if segments and segments[0][0] != 0:
        segments.insert(0, [0, segments[0][0]])
    return segments


def _kept(block, ops, uses, segments, checkpoints):
    kept = set(checkpoints)
    for begin, end in segments:
        kept |= uses.crossing(begin, end, ops)
    kept.update(n for op in ops if op.type == "seed" for n in op.output_arg_names)
    kept.update(n for n, w in uses.writers.items() if not w and uses.readers[n] and not block.var(n).persistable)
    return kept


def append_recomputing_grads(block, fwd_ops, loss_name, checkpoints, append_grads):
    """The backward of ``fwd_ops`` with the segments between ``checkpoints`` (names) recomputed.
    ``append_grads(ops)`` appends the grad ops of ``ops`` (last first) to ``block``."""
    ops = _path(fwd_ops, loss_name)
    for op in ops:
        if "sub_block" in op.attrs:
            raise PeError(
                f"{op.describe()}: recomputation (checkpoints) does not take ops that run a block "
                f"of their own, as in Fluid; give no checkpoints for this program"
            )
    uses = _Uses(ops)
    segments = _segments(uses, checkpoints)
    kept = _kept(block, ops, uses, segments, checkpoints)
    renames, done = {}, len(ops)
    for k, (begin, end) in enumerate(reversed(segments)):
        append_grads(ops[end:done])
        done = begin
        for op in ops[begin:end]:
            for n in op.input_arg_names + op.output_arg_names:
                if n not in kept and not block.var(n).persistable:
                    renames.setdefault(n, f"{n}.subprog_{k}")
        for op in ops[begin:end]:
            if any(n not in kept and not block.var(n).persistable for n in op.output_arg_names):
                _append_copy(block, op, renames)
        start = len(block.ops)
        append_grads(ops[begin:end])
        for grad_op in block.ops[start:]:
            for slots in (grad_op.inputs, grad_op.outputs):
                for slot, names in slots.items():
                    slots[slot] = [renames.get(n, n) for n in names]
    append_grads(ops[:done])


def _append_copy(block, op, renames):
    """``op`` run again in the backward, its values renamed."""
    for n in op.input_arg_names + op.output_arg_names:
        if n in renames and not block.has_var(renames[n]):
            var = block.var(n)
            block.create_var(
                name=renames[n],
                shape=var.shape,
                dtype=var.dtype,
                lod_level=var.lod_level,
                stop_gradient=var.stop_gradient,
            )
    inputs = {s: [renames.get(n, n) for n in names] for s, names in op.inputs.items()}
    outputs = {s: [renames.get(n, n) for n in names] for s, names in op.outputs.items()}
    with built_like(op):
        block.append_op(op.type, inputs, outputs, dict(op.attrs), role=OpRole.Backward)
