"""The fuse_elewise_add_act_ops pass (``BuildStrategy.fuse_elewise_add_act_ops``): an
``elementwise_add`` whose result only an activation without attributes (relu, tanh, sigmoid, ...)
reads becomes, with that activation, one ``fused_elemwise_activation`` op (pe_cli/ops/fused.py); in
the backward part the activation's gradient and ``elementwise_add_grad`` become one
``fused_elemwise_activation_grad`` where the intermediate gradient has no other reader or writer.
The intermediate value keeps its name (the fused op writes it), so it can still be fetched.

A pass over the program (before the multi-device graph is built from it, so every device runs the
fused ops): Program -> (a new Program, changes); the program given is left unchanged. The fused
kernels call the same kernels in the same order, so the numbers are unchanged to the bit."""
from ...ops.fused import ADD, FUSABLE_ACTIVATIONS, FUSED_ADD_ACT, grad_type, reads_intermediate
from ...ops.registry import GRAD_SUFFIX
from .rewrite import fuse_pairs, fused_op, op_name, writes_between

NAME = "fuse_elewise_add_act_ops"


def fuse_elewise_add_act(program):
    """Program -> (Program, changes): a clone of ``program`` with the fusable pairs fused."""
    return fuse_pairs(program, _forward_pairs, _fuse)


def _fuse(block, ops, readers, writers, i, j):
    add, act = ops[i], ops[j]
    attrs = {"functor_list": [act.type, ADD], "axis": add.attrs.get("axis", -1)}
    replace = {j: fused_op(block, FUSED_ADD_ACT, add, {"X": add.input("X"), "Y": add.input("Y")},
                           {"Out": act.output("Out"), "IntermediateOut": add.output("Out")}, attrs)}
    changes = [f"{op_name(add)} + {act.type} -> {FUSED_ADD_ACT} writing {act.output('Out')[0]}"]
    grads = _backward_pair(ops, readers, writers, add, act)
    if grads is None:
        return replace, {i}, changes
    k, m = grads
    act_grad, add_grad = ops[k], ops[m]
    outs = {s: add_grad.output(s) for s in ("X@GRAD", "Y@GRAD") if add_grad.output(s)}
    ins = {"X": add.input("X"), "Y": add.input("Y"), "Out": act.output("Out"), "Out@GRAD": act_grad.input("Out@GRAD")}
    if reads_intermediate(attrs["functor_list"]):        # (as the op's own grad maker: ops/fused.py)
        ins["IntermediateOut"] = add.output("Out")
    replace[m] = fused_op(block, grad_type(FUSED_ADD_ACT), add_grad, ins, outs, attrs)
    changes.append(f"{act_grad.type} + {add_grad.type} -> {grad_type(FUSED_ADD_ACT)} writing "
                   f"{', '.join(add_grad.output_arg_names)}")
    return replace, {i, k}, changes


def _forward_pairs(ops, readers, writers):
    """[(index of elementwise_add, index of the activation)] that can be fused."""
    pairs = []
    for i, op in enumerate(ops):
        if op.type != ADD or len(op.output("Out")) != 1:
            continue
        tmp = op.output("Out")[0]
        acts = [j for j in readers[tmp] if ops[j].type in FUSABLE_ACTIVATIONS and ops[j].input("X") == [tmp]]
        if len(acts) != 1 or writers[tmp] != [i] or acts[0] < i:
            continue
        j = acts[0]
        others = [n for n in readers[tmp] if n != j and ops[n].type not in (grad_type(ops[j].type), grad_type(ADD))]
        if others or writes_between(ops, i, j) & set(op.input_arg_names) or ops[j].output("Out") == [tmp]:
            continue
        pairs.append((i, j))
    return pairs


def _backward_pair(ops, readers, writers, add, act):
    """(index of the activation's grad op, index of elementwise_add_grad) to fuse, or None."""
    tmp, out = add.output("Out")[0], act.output("Out")[0]
    dtmp = tmp + GRAD_SUFFIX
    if len(writers[dtmp]) != 1 or len(readers[dtmp]) != 1:
        return None
    k, m = writers[dtmp][0], readers[dtmp][0]
    act_grad, add_grad = ops[k], ops[m]
    if (act_grad.type != grad_type(act.type) or add_grad.type != grad_type(ADD) or m < k
            or add_grad.input("Out@GRAD") != [dtmp] or add_grad.input("X") != add.input("X")
            or add_grad.input("Y") != add.input("Y") or act_grad.output("X@GRAD") != [dtmp]):
        return None
    reads = set(add.input_arg_names) | {tmp, out} | set(act_grad.input("Out@GRAD"))
    if writes_between(ops, k, m) & reads:
        return None
    return k, m
