"""The fuse_elewise_add_act_ops pass (``BuildStrategy.fuse_elewise_add_act_ops``): an
``elementwise_add`` whose result only an activation without attributes (relu, tanh, sigmoid, ...)
reads becomes, with that activation, one ``fused_elemwise_activation`` op (pe_cli/ops/fused.py); in
the backward part the activation's gradient and ``elementwise_add_grad`` become one
``fused_elemwise_activation_grad`` where the intermediate gradient has no other reader or writer.
The intermediate value keeps its name (the fused op writes it), so it can still be fetched.

Every block is searched (rewrite.fuse_pairs: a loop's body too). Where no gradient flows through
the sum, an ``expand`` that only repeats dims of size 1 into the add's Y folds into the fused op's
broadcast, and in a loop's body a sum that only the activation reads is not written at all
(``save_intermediate_out`` false; nothing can fetch it there): a decoder's attention,
tanh(W_e e + expand(W_d h)), makes one pass over [batch, steps, hidden] where it made three.

A pass over the program (before the multi-device graph is built from it, so every device runs the
fused ops): Program -> (a new Program, changes); the program given is left unchanged. The fused
kernels call the same kernels in the same order, so the numbers are unchanged to the bit."""

from ...ops.fusion_patterns import ADD, EXPAND, FUSABLE_ACTIVATIONS, FUSED_ADD_ACT, grad_type, reads_intermediate
from ...ops.registry import GRAD_SUFFIX
from .rewrite import fuse_pairs, fused_op, op_name, read_elsewhere, removable, writes_between

NAME = "fuse_elewise_add_act_ops"


def fuse_elewise_add_act(program):
    """Program -> (Program, changes): a clone of ``program`` with the fusable pairs fused."""
    return fuse_pairs(program, _forward_pairs, _fuse)


def _fuse(block, ops, readers, writers, i, j):
    add, act = ops[i], ops[j]
    tmp = add.output("Out")[0]
    attrs = {"functor_list": [act.type, ADD], "axis": add.attrs.get("axis", -1), "save_intermediate_out": True}
    ins, outs = {"X": add.input("X"), "Y": add.input("Y")}, {"Out": act.output("Out"), "IntermediateOut": [tmp]}
    changes = [f"{op_name(add)} + {act.type} -> {FUSED_ADD_ACT} writing {act.output('Out')[0]}"]
    grads, dropped = _backward_pair(ops, readers, writers, add, act), {i}
    if grads is None and not _differentiated(block.program, tmp):  # forward only
        if block.idx and readers[tmp] == [j]:  # a loop body's own value, which only the activation read
            del outs["IntermediateOut"]
            attrs["save_intermediate_out"] = False
        e = _broadcasting_expand(block, ops, readers, writers, i)
        if e is not None:
            ins["Y"] = ops[e].input("X")
            dropped.add(e)
            changes.append(f"{EXPAND} ({ops[e].output('Out')[0]}) -> the broadcast of {FUSED_ADD_ACT}")
    replace = {j: fused_op(block, FUSED_ADD_ACT, add, ins, outs, attrs)}
    if grads is None:
        return replace, dropped, changes
    k, m = grads
    act_grad, add_grad = ops[k], ops[m]
    outs = {s: add_grad.output(s) for s in ("X@GRAD", "Y@GRAD") if add_grad.output(s)}
    ins = {"X": add.input("X"), "Y": add.input("Y"), "Out": act.output("Out"), "Out@GRAD": act_grad.input("Out@GRAD")}
    if reads_intermediate(attrs["functor_list"]):  # (as the op's own grad maker: ops/fused.py)
        ins["IntermediateOut"] = add.output("Out")
    replace[m] = fused_op(block, grad_type(FUSED_ADD_ACT), add_grad, ins, outs, attrs)
    changes.append(
        f"{act_grad.type} + {add_grad.type} -> {grad_type(FUSED_ADD_ACT)} writing "
        f"{', '.join(add_grad.output_arg_names)}"
    )
    return replace, {i, k}, changes


def _differentiated(program, name):
    """True when an op of ``program`` reads or writes the gradient of ``name``."""
    grad = name + GRAD_SUFFIX
    return any(grad in op.input_arg_names or grad in op.output_arg_names for b in program.blocks for op in b.ops)


def _broadcasting_expand(block, ops, readers, writers, i):
    """The index of the ``expand`` whose output only the add ``ops[i]`` reads, as its Y, where the
    expand repeats only dims of size 1 of X's shape, so that the add's broadcast of the expand's
    input gives the same sums (the attention's [B, 1, H] query over the T steps of [B, T, H]), no
    gradient flows through it and no other block reads its output; else None."""
    add = ops[i]
    y, x = add.input("Y"), add.input("X")
    if len(y) != 1 or len(x) != 1 or len(writers[y[0]]) != 1 or readers[y[0]] != [i]:
        return None
    e = writers[y[0]][0]
    if e > i or ops[e].type != EXPAND or add.attrs.get("axis", -1) not in (-1, 0):
        return None
    expand = ops[e]
    if expand.input("ExpandTimes") or expand.input("expand_times_tensor") or len(expand.input("X")) != 1:
        return None
    src, out, xv = block.var(expand.input("X")[0]), block.var(y[0]), block.var(x[0])
    times = expand.attrs["expand_times"]
    if (
        src.shape is None
        or out.shape is None
        or xv.shape is None
        or len(src.shape) != len(times)
        or any(t != 1 and d != 1 for t, d in zip(times, src.shape))
        or list(xv.shape) != list(out.shape)
    ):
        return None
    if writes_between(ops, e, i) & set(expand.input("X")) or _differentiated(block.program, y[0]):
        return None
    return e if removable(block, y, read_elsewhere(block.program, block)) else None


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
    if (
        act_grad.type != grad_type(act.type)
        or add_grad.type != grad_type(ADD)
        or m < k
        or add_grad.input("Out@GRAD") != [dtmp]
        or add_grad.input("X") != add.input("X")
        or add_grad.input("Y") != add.input("Y")
        or act_grad.output("X@GRAD") != [dtmp]
    ):
        return None
    reads = set(add.input_arg_names) | {tmp, out} | set(act_grad.input("Out@GRAD"))
    if writes_between(ops, k, m) & reads:
        return None
    return k, m
