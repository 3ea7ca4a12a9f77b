"""The fuse_bn_act_ops pass (``BuildStrategy.fuse_bn_act_ops``): a ``batch_norm`` whose output only
an activation reading its own output in its gradient (relu, tanh, sigmoid) reads becomes, with that
activation, one ``fused_batch_norm_act`` op (pe_cli/ops/fused.py), and in the backward part the
activation's gradient and ``batch_norm_grad`` one ``fused_batch_norm_act_grad`` where the gradient
between them has no other reader or writer. The normalized value before the activation is then
not kept (nothing reads it) and the activation writes over it.

A pass over the program, like fuse_elewise_add_act.py: Program -> (a new Program, changes). The
fused kernels call the unfused ones in the same order, so the numbers are unchanged to the bit;
except where, on CPU with oneDNN, the onednn_blocked_layout pass (blocked_layout.py) then holds a
fused op's values in oneDNN's blocked layout between two convolutions: its batch norm sums in
another order there (float32 rounding)."""

from ...ops.fusion_patterns import BATCH_NORM, BN_ACTIVATIONS, FUSED_BN_ACT, grad_type
from ...ops.registry import GRAD_SUFFIX
from .rewrite import fuse_pairs, fused_op, op_name, writes_between

NAME = "fuse_bn_act_ops"
_BN_OUTS = ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance")


def fuse_bn_act(program):
    """Program -> (Program, changes): a clone of ``program`` with the fusable pairs fused."""
    return fuse_pairs(program, _forward_pairs, _fuse)


def _fuse(block, ops, readers, writers, i, j):
    bn, act = ops[i], ops[j]
    attrs = dict({k: v for k, v in bn.attrs.items() if not k.startswith("op_")}, act_type=act.type)
    outs = dict({slot: bn.output(slot) for slot in _BN_OUTS}, Y=act.output("Out"))
    replace = {j: fused_op(block, FUSED_BN_ACT, bn, dict(bn.inputs), outs, attrs)}
    changes = [f"{op_name(bn)} + {act.type} -> {FUSED_BN_ACT} writing {act.output('Out')[0]}"]
    grads = _backward_pair(ops, readers, writers, bn, act)
    if grads is None:
        return replace, {i}, changes
    k, m = grads
    act_grad, bn_grad = ops[k], ops[m]
    ins = {slot: bn_grad.input(slot) for slot in ("X", "Scale", "SavedMean", "SavedVariance")}
    ins.update({"Y": act.output("Out"), "Y@GRAD": act_grad.input("Out@GRAD")})
    replace[m] = fused_op(block, grad_type(FUSED_BN_ACT), bn_grad, ins, dict(bn_grad.outputs), attrs)
    changes.append(
        f"{act_grad.type} + {bn_grad.type} -> {grad_type(FUSED_BN_ACT)} writing {', '.join(bn_grad.output_arg_names)}"
    )
    return replace, {i, k}, changes


def _forward_pairs(ops, readers, writers):
    """[(index of batch_norm, index of the activation)] that can be fused: the activation is the
    only reader of the normalized value, and nothing between them touches the batch_norm's values."""
    pairs = []
    for i, op in enumerate(ops):
        if op.type != BATCH_NORM or len(op.output("Y")) != 1:
            continue
        y = op.output("Y")[0]
        j = readers[y][0] if len(readers[y]) == 1 else None
        if j is None or j < i or ops[j].type not in BN_ACTIVATIONS or ops[j].input("X") != [y] or writers[y] != [i]:
            continue
        touched = writes_between(ops, i, j) | {n for k in range(i + 1, j) for n in ops[k].input_arg_names}
        if touched & (set(op.input_arg_names) | set(op.output_arg_names)) or ops[j].output("Out") == [y]:
            continue
        pairs.append((i, j))
    return pairs


def _backward_pair(ops, readers, writers, bn, act):
    """(index of the activation's grad op, index of batch_norm_grad) to fuse, or None."""
    dy = bn.output("Y")[0] + GRAD_SUFFIX
    if len(writers[dy]) != 1 or len(readers[dy]) != 1:
        return None
    k, m = writers[dy][0], readers[dy][0]
    act_grad, bn_grad = ops[k], ops[m]
    if (
        act_grad.type != grad_type(act.type)
        or bn_grad.type != grad_type(BATCH_NORM)
        or m < k
        or bn_grad.input("Y@GRAD") != [dy]
        or bn_grad.input("X") != bn.input("X")
        or act_grad.input("Out") != act.output("Out")
    ):
        return None
    reads = set(bn_grad.input_arg_names) | set(act_grad.input_arg_names)
    if writes_between(ops, k, m) & reads:
        return None
    return k, m
