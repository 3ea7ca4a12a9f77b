"""Pruning a program to what some targets need (Fluid's ``Program._prune`` and
``_prune_with_input``: what inference runs, without the loss and metrics, and what
``Executor.run(use_prune=True)`` runs), and a test clone's backward (``prune_backward``)."""

from .operator import Operator, OpRole
from .variable import Variable


def prune_backward(program):
    """Fluid 1.8.5's and Paddle 2.6's ``core.prune_backward``, in place: when the program holds the loss's
    gradient op (role Backward | Loss), its backward, optimize and learning-rate ops go, and every
    variable no remaining op reads or writes."""
    if not any(op.role == OpRole.Backward | OpRole.Loss for b in program.blocks for op in b.ops):
        return
    drop = OpRole.Backward | OpRole.Optimize | OpRole.LRSched
    for block in program.blocks:
        block.ops = [op for op in block.ops if not op.role & drop]
    used = {n for b in program.blocks for op in b.ops for n in op.input_arg_names + op.output_arg_names}
    for block in program.blocks:
        block.vars = {n: v for n, v in block.vars.items() if n in used}
    program._bump()


def _checked(feeded_var_names, targets):
    """(fed names, target names, target ops), or Fluid's ValueError naming what is wrong."""
    feeds = feeded_var_names if isinstance(feeded_var_names, (list, tuple, set)) else [feeded_var_names]
    targets = targets if isinstance(targets, (list, tuple)) else [targets]
    fed, names, ops = set(), set(), []
    for n in feeds:
        if not isinstance(n, (str, Variable)):
            raise ValueError(
                f"All feeded_var_names of Program._prune_with_input() can only be str, but received {type(n)}."
            )
        fed.add(n if isinstance(n, str) else n.name)
    for t in targets:
        if isinstance(t, Operator):
            ops.append(t)
        elif isinstance(t, (str, Variable)):
            names.add(t if isinstance(t, str) else t.name)
        else:
            raise ValueError(
                f"All targets of Program._prune_with_input() can only be Variable or Operator, but received {type(t)}."
            )
    return fed, names, ops


def prune_with_input(program, feeded_var_names, targets, keep_vars=False):
    """A copy of ``program`` keeping only the global block's ops that ``targets`` (Variables, names
    or Operators) depend on, taking ``feeded_var_names`` as given: the ops that compute them, and
    what only those ops need, go too; so do the variables no kept op names, unless ``keep_vars``
    (the executor's pruned run, whose feeds may name them)."""
    fed, needed, kept_ops = _checked(feeded_var_names, targets)
    keep_ids = {id(op) for op in kept_ops}
    block, keep = program.global_block(), []
    for i in reversed(range(len(block.ops))):
        op = block.ops[i]
        if id(op) in keep_ids or any(n in needed and n not in fed for n in op.output_arg_names):
            keep.append(i)
            needed.update(n for n in op.input_arg_names if n not in fed)
    pruned = program.clone()
    glob = pruned.global_block()
    glob.ops = [glob.ops[i] for i in reversed(keep)]
    if not keep_vars:
        _drop_unreferenced_vars(pruned)
    pruned._bump()
    return pruned


def _drop_unreferenced_vars(program):
    """As Fluid's prune: the global block keeps only the variables its ops (and the blocks they own,
    which read the global block's variables by name) name."""
    names = set()
    for block in program.blocks:
        for op in block.ops:
            names.update(op.input_arg_names)
            names.update(op.output_arg_names)
    glob = program.global_block()
    for name in [n for n in glob.vars if n not in names]:
        del glob.vars[name]
