"""The fuse_relu_depthwise_conv pass (``BuildStrategy.fuse_relu_depthwise_conv``), as Fluid's
fuse_relu_depthwise_conv_pass: a ``relu`` whose output only a ``depthwise_conv2d`` (as its Input)
and their gradient ops read is folded into that conv, which gets the attribute
``fuse_relu_before_depthwise_conv`` and reads relu's input; in the backward part relu_grad is folded
into ``depthwise_conv2d_grad`` (or pe's earlier ``depthwise_conv2d_grad_input``), which then writes relu's
input gradient, and the filter's gradient reads relu's input too. relu's output and its gradient are no
longer kept (the kernels recompute relu from its input: pe_cli/kernels/fused_math.py relu_first).
Fluid applies it on GPUs only (its fused kernel is CUDA's); pe's kernels of both devices honour the
attribute, so it applies on both. The kernels run relu, the conv kernels and relu_grad as the
unfused ops do, so the numbers are unchanged to the bit.

A pass over the program, like fuse_elewise_add_act.py: Program -> (a new Program, changes)."""

from ...ops.fusion_patterns import DEPTHWISE_CONV, DEPTHWISE_GRADS, RELU, RELU_FIRST, grad_type
from ...ops.registry import GRAD_SUFFIX
from .rewrite import fuse_pairs, fused_op, op_name, writes_between

NAME = "fuse_relu_depthwise_conv"


def fuse_relu_depthwise_conv(program):
    """Program -> (Program, changes): a clone of ``program`` with each fusable relu folded."""
    return fuse_pairs(program, _pairs, _fuse)


def _fuse(block, ops, readers, writers, i, j):
    relu, conv = ops[i], ops[j]
    x, y = relu.input("X")[0], relu.output("Out")[0]
    replace = {j: _with(block, conv, {"Input": [x]})}
    changes = [f"{RELU} + {op_name(conv)} -> {DEPTHWISE_CONV} with {RELU_FIRST} reading {x}"]
    drop = {i}
    backward = _backward(ops, readers, writers, x, y)
    for n in backward["readers"]:
        replace[n] = _with(block, ops[n], {"Input": [x]})
    if backward["act_grad"] is not None:
        k, m = backward["conv_grad"], backward["act_grad"]
        replace[m] = _with(block, ops[k], {"Input": [x]}, {"Input@GRAD": ops[m].output("X@GRAD")})
        replace.pop(k, None)
        drop.add(k)
        changes.append(
            f"{ops[m].type} + {ops[k].type} -> {ops[k].type} with {RELU_FIRST} writing {ops[m].output('X@GRAD')[0]}"
        )
    return replace, drop, changes


def _with(block, op, inputs, outputs=None):
    """A copy of ``op`` with some inputs (and outputs) replaced and the relu-first attribute on."""
    attrs = dict({k: v for k, v in op.attrs.items() if not k.startswith("op_")}, **{RELU_FIRST: True})
    return fused_op(block, op.type, op, dict(op.inputs, **inputs), dict(op.outputs, **(outputs or {})), attrs)


def _pairs(ops, readers, writers):
    """[(index of relu, index of depthwise_conv2d)] that can be fused."""
    pairs = []
    for i, op in enumerate(ops):
        if op.type != RELU or len(op.output("Out")) != 1 or len(op.input("X")) != 1:
            continue
        x, y = op.input("X")[0], op.output("Out")[0]
        if x == y or writers[y] != [i]:
            continue
        convs = [j for j in readers[y] if ops[j].type == DEPTHWISE_CONV]
        if len(convs) != 1 or ops[convs[0]].input("Input") != [y] or ops[convs[0]].attrs.get(RELU_FIRST):
            continue
        j = convs[0]
        if j < i or y in ops[j].input("Filter") or x in writes_between(ops, i, j):
            continue
        if _backward(ops, readers, writers, x, y) is not None:
            pairs.append((i, j))
    return pairs


def _backward(ops, readers, writers, x, y):
    """What the fusion changes in the backward part: {'readers': the conv grad ops reading y,
    'conv_grad': index of the one writing y@GRAD, 'act_grad': index of relu's grad op}, or None when the
    relu's output or its gradient has another reader (then relu cannot be folded)."""
    others = [n for n in readers[y] if ops[n].type not in (DEPTHWISE_CONV, grad_type(RELU)) + DEPTHWISE_GRADS]
    grads = [n for n in readers[y] if ops[n].type in DEPTHWISE_GRADS]
    relu_grads = [n for n in readers[y] if ops[n].type == grad_type(RELU)]
    if others or any(ops[n].input("Input") != [y] for n in grads) or len(relu_grads) > 1:
        return None
    first = min([n for n in readers[y]])
    if any(x in writes_between(ops, first, n + 1) for n in grads + relu_grads):
        return None
    found = {"readers": grads, "conv_grad": None, "act_grad": None}
    if not relu_grads:
        return found if not writers[y + GRAD_SUFFIX] else None
    m = relu_grads[0]
    dy = y + GRAD_SUFFIX
    producers = [n for n in grads if ops[n].type in DEPTHWISE_GRADS[:2] and ops[n].output("Input@GRAD") == [dy]]
    if (
        ops[m].input("Out") != [y]
        or ops[m].input("Out@GRAD") != [dy]
        or writers[dy] != producers
        or len(producers) != 1
        or readers[dy] != [m]
        or producers[0] > m
    ):
        return None
    k = producers[0]
    if writes_between(ops, k, m) & set(ops[k].input_arg_names) - {y}:
        return None
    if any(k < n < m for name in ops[k].output_arg_names if name != dy for n in readers[name]):
        return None  # (its other output, the filter's gradient, moves to relu_grad's place with it)
    found.update(conv_grad=k, act_grad=m)
    return found
