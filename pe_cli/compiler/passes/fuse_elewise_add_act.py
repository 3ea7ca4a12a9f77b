"""The fuse_elewise_add_act_ops pass (``BuildStrategy.fuse_elewise_add_act_ops``): an
``elementwise_add`` whose output only an activation reads (a layer's bias add and its ``act=``)
becomes one ``fused_elemwise_activation`` op, and the two gradient ops (the activation's, then
elementwise_add's) one ``fused_elemwise_activation_grad``. A program pass, run on a copy of the
program before its multi-device graph is built. The fused kernels compute what the two ops compute,
in the same order, so the numbers are bitwise unchanged (pe_cli/ops/fused.py)."""
from ...activations import ROWS
from ...framework.operator import Operator
from ...ops import registry
from ...ops.fused import ADD, ADD_GRAD, FUSED, FUSED_GRAD, reads_intermediate

NAME = "fuse_elewise_add_act_ops"


def _activation(op):
    return op.type in ROWS and ROWS[op.type].derivative is not None and registry.get(op.type).has("activation")


def _readers(ops):
    readers = {}
    for i, op in enumerate(ops):
        for name in op.input_arg_names:
            readers.setdefault(name, []).append(i)
    return readers


def _pairs(block, fetched):
    """(add index, act index, add_grad index or None, act_grad index or None) of each fusable pair."""
    ops, readers = block.ops, _readers(block.ops)
    writers = {}
    for i, op in enumerate(ops):
        for name in op.output_arg_names:
            writers.setdefault(name, []).append(i)
    found = []
    for i, add in enumerate(ops):
        if add.type != ADD or len(add.output("Out")) != 1:
            continue
        t = add.output("Out")[0]
        var = block.vars.get(t)
        if t in fetched or var is None or var.persistable or len(writers.get(t, ())) != 1:
            continue
        acts = [j for j in readers.get(t, ()) if _activation(ops[j]) and ops[j].input("X") == [t]]
        if len(acts) != 1:
            continue
        j = acts[0]
        grads = _grad_pair(ops, readers, add, ops[j], t)
        if grads is None:
            continue
        if set(readers.get(t, ())) - {j, *[g for g in grads if g is not None]}:
            continue                    # another op reads the sum: it must stay
        found.append((i, j) + grads)
    return found


def _grad_pair(ops, readers, add, act, t):
    """(add_grad index, act_grad index), (None, None) for a program without them, or None when only
    one of them is there or the activation's gradient has another reader."""
    out = act.output("Out")[0]
    act_grads = [k for k in readers.get(out + "@GRAD", ()) if ops[k].type == f"{act.type}_grad"]
    if not act_grads:
        return (None, None)
    k = act_grads[0]
    dt = ops[k].output("X@GRAD")
    users = readers.get(dt[0], ()) if dt else ()
    if len(users) != 1 or ops[users[0]].type != ADD_GRAD or ops[users[0]].input("X") != add.input("X") \
            or ops[users[0]].input("Y") != add.input("Y"):
        return None
    return (users[0], k)


def fuse_elewise_add_act(program, fetched=()):
    """Program -> Program: a copy of ``program`` with each fusable pair fused; returns (program,
    changes). ``program`` is left unchanged."""
    block = program.global_block()
    pairs = _pairs(block, set(fetched))
    if not pairs:
        return program, []
    new = program.clone()
    for key, value in vars(program).items():        # what the program carries beyond its blocks
        if key not in vars(new):
            setattr(new, key, value)
    nb = new.global_block()
    ops = list(nb.ops)
    replace, drop, changes = {}, set(), []
    for i, j, gi, gj in pairs:
        add, act = ops[i], ops[j]
        attrs = {"functor_list": [act.type, ADD], "axis": add.attrs.get("axis", -1),
                 "act_attrs": {p.name: act.attrs[p.name] for p in ROWS[act.type].params}}
        attrs["save_intermediate_out"] = reads_intermediate(attrs)
        t = add.output("Out")[0]
        outputs = {"Out": act.output("Out")}
        if attrs["save_intermediate_out"]:
            outputs["IntermediateOut"] = [t]
        replace[i] = _op(nb, add, FUSED, {"X": add.input("X"), "Y": add.input("Y")},
                         outputs, attrs)
        drop.add(j)
        if gi is not None:
            g_add, g_act = ops[gi], ops[gj]
            inputs = {"X": add.input("X"), "Y": add.input("Y"), "Out@GRAD": g_act.input("Out@GRAD")}
            inputs["IntermediateOut" if attrs["save_intermediate_out"] else "Out"] = (
                [t] if attrs["save_intermediate_out"] else act.output("Out"))
            outs = {s: g_add.output(s) for s in ("X@GRAD", "Y@GRAD") if g_add.output(s)}
            replace[gi] = _op(nb, g_add, FUSED_GRAD, inputs, outs, attrs)
            drop.add(gj)
        changes.append(f"{ADD} -> {t} -> {act.type} fused into {FUSED}"
                       + (" (and their gradients)" if gi is not None else ""))
    nb.ops = [replace.get(k, op) for k, op in enumerate(ops) if k not in drop]
    for op in nb.ops:
        for name in op.output_arg_names:
            if name in nb.vars:
                nb.vars[name].op = op
    new._bump()
    return new, changes


def _op(block, like, type, inputs, outputs, attrs):
    """A new op in ``block`` that stands where ``like`` stood (its role, source and layer)."""
    op = Operator(block, type, inputs, outputs, attrs, like.role, like.source, like.layer)
    registry.prepare(op)
    return op
