"""Reverse-mode autodiff on the Program: ``append_backward`` appends, for each forward op on the
path to the loss, the grad ops its registered grad maker describes. A variable used by several ops
receives several gradient contributions; they are summed before anyone reads the gradient."""

from ..base.errors import PeError
from ..framework import OpRole, default_main_program as default_main_program
from ..base.dtypes import carries_grad
from ..framework.source import built_like
from ..framework.variable import Parameter, Variable
from ..ops import registry
from . import recompute
from .clip import append_error_clips
from .grad_builder import BackwardBuilder
from ..ops.registry import GRAD_SUFFIX, grad_var_name  # noqa: F401 -- Fluid's backward exports them
from ..base.dims import numel


class GradContext:
    """What a grad maker sees for one forward op. ``in_grad(slot)`` names where the gradient of an
    input goes (None for inputs that need none); ``out_grad(slot)`` names the incoming gradient of
    an output (zeros are made for outputs nobody used). ``op(...)`` appends a grad op."""

    def __init__(self, builder, op, needed_inputs):
        self.builder = builder
        self.fwd = op
        self.attrs = dict(op.attrs)
        self.needed = needed_inputs  # {slot: [bool per variable]}

    def input(self, slot):
        return self.fwd.input(slot)

    def output(self, slot):
        return self.fwd.output(slot)

    def needs(self, slot):
        return any(self.needed.get(slot, ()))

    def in_grad(self, slot):
        names = self.fwd.input(slot)
        flags = self.needed.get(slot, [False] * len(names))
        grads = [self.builder.new_grad_target(n) if need else None for n, need in zip(names, flags)]
        return grads if any(g is not None for g in grads) else None

    def out_grad(self, slot):
        return [self.builder.read_grad(n) for n in self.fwd.output(slot)]

    def pass_out_grad(self, slot):
        """The gradient of ``slot``'s outputs flows on, unchanged, to their values before this op (an op
        updating a variable in place, as write_to_array its array): more contributions add to it."""
        for n in self.fwd.output(slot):
            if n in self.builder.frozen:
                self.builder.pending.setdefault(n, []).insert(0, self.builder.frozen[n])

    def has_out_grad(self, slot):
        return any(self.builder.has_grad(n) for n in self.fwd.output(slot))

    def op(self, type, inputs, outputs, attrs=None):
        outputs = {k: v for k, v in outputs.items() if v is not None}
        if not outputs:
            return None
        # Duplicable grad outputs may hold None for the inputs that need no gradient.
        for slot, names in outputs.items():
            if isinstance(names, list) and any(n is None for n in names):
                outputs[slot] = [n if n is not None else self.builder.scratch_name(self.fwd) for n in names]
        op = self.builder.append(type, inputs, outputs, attrs)
        if op is not None and self.fwd.paddle2:  # (Paddle 2.x's gradient of Paddle 2.x's meaning)
            op.paddle2 = True
        return op

    def block_grad(self, block, seeds, wanted, live):
        """For an op that owns ``block`` (a recurrence's step): the grad ops of the block's ops, in a
        new block whose parent is ``block`` (they read its forward values). ``seeds``: the names
        whose incoming gradients the owning grad op sets (a name listed twice gets two, summed);
        ``live``: the names that depend on something trainable. Returns (the grad block's index,
        the seeds' gradient names, the gradient name of each of ``wanted``)."""
        program = block.program
        current = program.current_block_idx
        grad_block = program._create_block(parent_idx=block.idx)
        program.current_block_idx = current
        builder = BackwardBuilder(grad_block)
        seeded = [builder.new_grad_target(n) for n in seeds]
        live = set(live)
        for op in block.ops:
            if any(n in live for n in op.input_arg_names):
                live.update(n for n in op.output_arg_names if _differentiable(block.var(n)))
        _append_op_grads(builder, block.ops, live)
        return grad_block.idx, seeded, [builder.read_grad(n) for n in wanted]

    def tmp(self, like, suffix="tmp"):
        """A temporary variable shaped like forward variable ``like`` for multi-op gradients."""
        return self.builder.temp_var(like, suffix)


def _requires_grad(block, ops, no_grad):
    """Variables whose value depends on something trainable, walking the ops forward."""
    live = set()
    for var in block.vars.values():
        if isinstance(var, Parameter) and var.trainable and var.name not in no_grad:
            live.add(var.name)
        elif _differentiable(var) and _is_leaf(block, var) and var.name not in no_grad:
            live.add(var.name)  # a leaf the user marked as differentiable (a fill_constant's output too)
    for op in ops:
        if any(n in live for n in op.input_arg_names):
            for n in op.output_arg_names:
                if n not in no_grad and _differentiable(block.var(n)):
                    live.add(n)
    return live


def _is_leaf(block, var):
    """Whether ``var`` is fed (a loop may write it later), or no op makes it from something
    differentiable (a constant's output)."""
    return var.op is None or var.is_data or not any(_differentiable(block.var(n)) for n in var.op.input_arg_names)


def append_backward(
    loss, parameter_list=None, no_grad_set=None, callbacks=None, checkpoints=None, *, distop_context=None
):
    """Appends the gradient ops of ``loss`` to its program and returns [(parameter, gradient)].
    ``checkpoints`` (Fluid's recompute: variables or names whose values are kept while the rest
    is recomputed in the backward, training/recompute.py): the same gradients as without them.
    ``distop_context`` (Paddle 2.x's auto-parallel
    planner) is refused."""
    if distop_context is not None:
        raise PeError("append_backward: distop_context (auto-parallel) is not supported by pe: leave it None")
    if not isinstance(loss, Variable):
        raise TypeError(f"append_backward: loss must be a Variable, got {type(loss).__name__}")
    if parameter_list is not None:
        _check_names(parameter_list, "append_backward: parameter_list")
    _check_names(no_grad_set, "append_backward: no_grad_set")
    recompute.check_checkpoints(checkpoints)
    block = loss.block
    builder, no_grad = _append_grad_ops(
        loss, no_grad_set, [c if isinstance(c, str) else c.name for c in checkpoints or ()]
    )
    params = parameter_list if parameter_list is not None else [p for p in block.all_parameters() if p.trainable]
    params_grads = []
    for p in params:
        p = block.var(p) if isinstance(p, str) else p
        if p.name in no_grad or not builder.has_grad(p.name):
            continue
        with block.program._backward_role_guard():
            grad = block.var(builder.read_grad(p.name))
        params_grads.append((p, grad))
    for callback in callbacks or ():
        callback(block, params_grads)
    return params_grads


def _append_grad_ops(loss, no_grad_set, checkpoints=()):
    if loss.shape is not None and int(numel(loss.shape)) not in (1, -1):
        raise PeError(
            f"append_backward: the loss '{loss.name}' must hold one value, its shape is "
            f"{list(loss.shape)}; reduce it first (layers.mean)"
        )
    if loss.op is not None:
        loss.op.role |= OpRole.Loss
    return _append_target_grads([(loss, None)], no_grad_set, "append_backward", checkpoints)


def _append_target_grads(targets, no_grad_set, who, checkpoints=()):
    """Appends the grad ops of d(sum of targets)/d(everything): ``targets`` are (variable, its
    incoming gradient or None for ones of its shape); with ``checkpoints``, recomputing the values
    between them. Returns (builder, no_grad names)."""
    block = targets[0][0].block
    program = block.program
    if who != "append_backward" or program.current_block_idx == 0:  # Fluid's count (not in a sub-block)
        program._appending_grad_times += 1
    no_grad = {v if isinstance(v, str) else v.name for v in (no_grad_set or ())}
    no_grad |= {n for n, v in block.vars.items() if v.stop_gradient and not isinstance(v, Parameter)}

    # Forward ops up to the last one that makes a target (the optimizer may have been applied before);
    # for gradients(), grad ops too: a target may be a gradient (a gradient of a gradient).
    roles = (OpRole.Forward,) if who == "append_backward" else (OpRole.Forward, OpRole.Backward)
    fwd_ops = [op for op in block.ops if op.role & ~OpRole.Loss in roles]
    for target, _ in targets:
        if target.op is None or target.op not in fwd_ops:
            raise PeError(f"{who}: '{target.name}' is not computed by any forward op of its program")
    fwd_ops = fwd_ops[: max(fwd_ops.index(t.op) for t, _ in targets) + 1]

    if checkpoints:
        fwd_ops = recompute.insert_dropout_seeds(block, fwd_ops)
    live = _requires_grad(block, fwd_ops, no_grad)
    # gradients() of gradients: what the earlier backward wrote, and a seed the caller named as a
    # gradient (double_grad_check's y@GRAD), keep their names
    renames = frozenset() if who == "append_backward" else frozenset(block.vars)
    builder = BackwardBuilder(block, renames)
    with program._backward_role_guard():
        for target, seed in targets:
            builder.pending.setdefault(target.name, []).append(_seed(block, target, seed, who))
        start = len(block.ops)
        if checkpoints:
            recompute.append_recomputing_grads(
                block,
                fwd_ops,
                targets[0][0].name,
                checkpoints,
                lambda ops: _append_op_grads(builder, fwd_ops, live, {id(o) for o in ops}),
            )
        else:
            _append_op_grads(builder, fwd_ops, live)
        for name in [n for n, parts in builder.pending.items() if len(parts) > 1]:
            builder.read_grad(name)  # a leaf's contributions (x read by two slots of one op) summed
        _keep_overwritten_reads(block, fwd_ops, block.ops[start:])
    return builder, no_grad


def _seed(block, target, seed, who):
    """The name of the gradient flowing into ``target``: ``seed``'s, or ones shaped like it: for gradients(),
    as Fluid's calc_gradient writes them, ``shape`` of the target and a fill_constant of that ShapeTensor."""
    if seed is not None:
        return seed.name
    name = grad_var_name(target.name)
    block.create_var(name=name, shape=target.shape, dtype=target.dtype)
    role = OpRole.Backward | OpRole.Loss
    with built_like(getattr(target, "op", None)):
        if who == "gradients" and target.shape is not None:
            shape = block.create_var(name=target.name + "_shape", dtype="int32", shape=[len(target.shape)])
            block.append_op("shape", {"Input": [target.name]}, {"Out": [shape.name]}, role=OpRole.Backward)
            block.append_op(
                "fill_constant",
                {"ShapeTensor": [shape.name]},
                {"Out": [name]},
                {"shape": list(target.shape), "value": 1.0, "dtype": target.dtype},
                role=OpRole.Backward,
            )
        elif target.shape is not None and all(d is not None and d >= 0 for d in target.shape):
            block.append_op(
                "fill_constant",
                {},
                {"Out": [name]},
                {"shape": list(target.shape), "value": 1.0, "dtype": target.dtype},
                role=role,
            )
        else:
            block.append_op(
                "fill_any_like", {"X": [target.name]}, {"Out": [name]}, {"value": 1.0, "dtype": target.dtype}, role=role
            )
    return name


def _keep_overwritten_reads(block, fwd_ops, grad_ops):
    """A grad op reading a forward variable that a later forward op overwrites (a loop counter the
    loop advances) reads a copy taken right after its forward op (``<name>@SNAPSHOT@<k>``)."""
    writers = {}
    for k, op in enumerate(fwd_ops):
        for name in op.output_arg_names:
            writers.setdefault(name, []).append(k)
    copies = {}
    for grad_op in grad_ops:
        k = grad_op.fwd_index
        for names in [] if k is None else grad_op.inputs.values():
            for j, name in enumerate(names):
                if any(w > k for w in writers.get(name, ())) and block.has_var(name):
                    if (name, k) not in copies:
                        copies[(name, k)] = _snapshot(block, fwd_ops[k], name, k)
                    names[j] = copies[(name, k)]


def _snapshot(block, op, name, k):
    var = block.var(name)
    copy = block.create_var(
        name=f"{name}@SNAPSHOT@{k}", shape=var.shape, dtype=var.dtype, lod_level=var.lod_level, stop_gradient=True
    )
    with built_like(op):
        block._insert_op(block.ops.index(op) + 1, "assign", {"X": [name]}, {"Out": [copy]}, role=OpRole.Forward)
    return copy.name


def _append_op_grads(builder, fwd_ops, live, only=None):
    """The grad ops of ``fwd_ops`` (of those whose ids are in ``only``), last op first, for the ops
    whose outputs have a gradient. Each grad
    op records the index of its forward op (``Operator.fwd_index``), so the values a variable written several
    times had at that op can be found (a loop's gradient, _keep_overwritten_reads)."""
    for index in range(len(fwd_ops) - 1, -1, -1):
        op = fwd_ops[index]
        if only is not None and id(op) not in only or not any(builder.has_grad(n) for n in op.output_arg_names):
            continue
        opdef = registry.get(op.type)
        needed = {slot: [n in live for n in names] for slot, names in op.inputs.items()}
        if opdef.grad is None or not any(any(f) for f in needed.values()):
            continue
        start = len(builder.block.ops)
        with built_like(op):  # a gradient op points at its forward op's layer and line
            # an op's output gradient is fixed before its maker runs; what the maker gives a name the
            # op also reads (a variable it overwrites: a loop's carried value) starts afresh
            builder.frozen = {n: builder.read_grad(n) for n in op.output_arg_names if n in builder.pending}
            for n in builder.frozen:
                del builder.pending[n]
            opdef.grad(GradContext(builder, op, needed))
            builder.finished.update(builder.frozen)
            builder.frozen = {}
            append_error_clips(builder, builder.block.ops[start:])
        for grad_op in builder.block.ops[start:]:
            grad_op.fwd_index = index


def _differentiable(var):
    """Not stop_gradient and float or complex; of any dtype in fluid.dygraph's eager program (Fluid's dygraph's)."""
    return not var.stop_gradient and (
        carries_grad(var.dtype) or getattr(var.block.program, "grads_of_any_dtype", False)
    )


def _as_list(value, what, kinds=(Variable,)):
    """``value`` (one or a list/tuple) as a list, every item of ``kinds``; else Fluid's TypeError."""
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    for v in values:
        if not isinstance(v, kinds):
            raise TypeError(f"gradients: {what} must be a Variable or a list of Variables, got {type(v).__name__}")
    return values


def _check_names(values, what):
    """Fluid's TypeErrors: ``values`` must be a list, tuple or set of Variables or names (or None)."""
    if values is not None and not isinstance(values, (list, tuple, set)):
        raise TypeError(f"{what} must be a list, tuple or set, got {type(values).__name__}")
    for v in values or ():
        if not isinstance(v, (Variable, str)):
            raise TypeError(f"{what}'s members must be Variables or names, got {type(v).__name__}")


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """Fluid's ``gradients`` (and ``calc_gradient``): appends the grad ops of the sum of ``targets``
    (each seeded with its ``target_gradients`` entry, or ones of its shape) and returns the gradient
    variables of ``inputs`` (None where an input gets none). In a Paddle 2.x program, Paddle 2.6's:
    a ``stop_gradient`` input gets none, and a lone input that gets none gives []."""
    paddle2 = _as_list(targets, "targets")[0].block.program._follows_paddle2
    grads = input_gradients(targets, inputs, target_gradients, no_grad_set, every_input=not paddle2)
    return [] if grads == [None] and paddle2 else grads


def input_gradients(targets, inputs, target_gradients=None, no_grad_set=None, every_input=True):
    """``gradients``' list, one entry per input; ``every_input`` (pe's Fluid 1.8 rule, paddle.autograd's)
    clears each input's ``stop_gradient`` first."""
    targets, inputs = _as_list(targets, "targets"), _as_list(inputs, "inputs")
    seeds = (
        [None] * len(targets)
        if target_gradients is None
        else _as_list(target_gradients, "target_gradients", (Variable, type(None)))
    )
    if len(seeds) != len(targets):
        raise ValueError(f"gradients: {len(targets)} targets but {len(seeds)} target_gradients; give one each")
    _check_names(no_grad_set, "gradients: no_grad_set")
    for v in inputs if every_input else ():
        v.stop_gradient = False
    builder, _ = _append_target_grads(list(zip(targets, seeds)), no_grad_set, "gradients")
    with (block := targets[0].block).program._backward_role_guard():
        return [
            block.var(builder.read_grad(v.name))
            if builder.has_grad(v.name)
            else block.var(builder.finished[v.name])
            if v.name in builder.finished
            else None
            for v in inputs
        ]
