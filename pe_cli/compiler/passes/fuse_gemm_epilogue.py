"""The fuse_gemm_epilogue pass (``BuildStrategy.fuse_gemm_epilogue``, Paddle 2.3's option): a fully
connected layer, ``mul`` + ``elementwise_add`` of a bias (+ ``relu``), becomes one
``fused_gemm_epilogue`` op (pe_cli/ops/fused.py), whose kernel adds the bias and applies relu to
each block of the product while it is in the cache of the core that computed it. In the backward
part, ``elementwise_add_grad`` and mul's gradient ops become one ``fused_gemm_epilogue_grad``; where
the layer's input is a relu's output whose gradient only its input gradient feeds, that
``relu_grad`` joins it too (activation_grad "relu_grad"), as Paddle's pass fuses it.

Paddle's pass matches ``matmul_v2`` (paddle.nn.Linear); pe's matches ``mul``, what Fluid 1.x's
``layers.fc`` builds, where X is flattened by its last dim (x_num_col_dims = X's rank - 1) and Y
is 2-D. The values between the fused ops (the product, and the sum before relu) are no longer
computed: fetching one is an error that names this option. A pass over the program, like
fuse_bn_act.py: Program -> (a new Program, changes); the program given is left unchanged. The
fused kernels compute what the unfused ones do, in the same order, so the numbers are unchanged
to the bit."""

from ...ops.fusion_patterns import ADD, FUSED_GEMM, MUL, MUL_GRADS, RELU, grad_type
from ...ops.registry import GRAD_SUFFIX
from .rewrite import fused_op, op_name, read_elsewhere, removable, rewritten, uses, writes_between

NAME = "fuse_gemm_epilogue"


def fuse_gemm_epilogue(program):
    """Program -> (Program, changes): a clone of ``program`` with its fully connected layers fused
    (in every block: a loop's body too)."""
    found = {}
    for block in program.blocks:
        layers = _layers(block, read_elsewhere(program, block) if len(program.blocks) > 1 else set())
        if layers:
            found[block.idx] = layers
    if not found:
        return program, []
    changes = []

    def make(block):
        ops, replace, drop = program.blocks[block.idx].ops, {}, set()
        for layer, grad in found[block.idx]:
            indices = layer["ops"]
            mul, add = ops[indices[0]], ops[indices[1]]
            act = ops[indices[2]] if len(indices) == 3 else None
            out = (act or add).output("Out")
            attrs = {"trans_x": False, "trans_y": False, "activation": act.type if act else "none"}
            ins = {"X": mul.input("X"), "Y": mul.input("Y"), "Bias": add.input("Y")}
            replace[indices[-1]] = fused_op(block, FUSED_GEMM, mul, ins, {"Out": out}, attrs)
            drop.update(indices[:-1])  # the fused op runs where the last of them ran
            changes.append(
                f"{' + '.join([op_name(mul)] + [ops[i].type for i in indices[1:]])} -> {FUSED_GEMM} writing {out[0]}"
            )
            if grad is None:
                continue
            at, dropped, grad_ins, grad_outs, act_grad = grad
            attrs = {"trans_x": False, "trans_y": False, "activation_grad": act_grad}
            replace[at] = fused_op(block, grad_type(FUSED_GEMM), ops[at], grad_ins, grad_outs, attrs)
            drop.update(dropped - {at})
            changes.append(
                f"{' + '.join(ops[i].type for i in sorted(dropped))} -> {grad_type(FUSED_GEMM)} "
                f"writing {', '.join(n for names in grad_outs.values() for n in names)}"
            )
        return replace, drop

    return rewritten(program, make, sorted(found)), changes


def _layers(block, elsewhere):
    """[(layer, its gradient's fusion or None)] of ``block`` that fuse: nothing left reads the values
    the fused ops no longer compute (no other block either)."""
    ops = block.ops
    readers, writers = uses(ops)
    layers = []
    for i in range(len(ops)):
        layer = _forward(ops, readers, writers, i)
        if layer is None:
            continue
        grad = _backward(ops, readers, writers, layer)
        # the product (and the sum before relu) are no longer computed: nothing left may read them
        gone = [layer["product"]] + ([layer["sum"]] if len(layer["ops"]) == 3 else [])
        kept = set(layer["ops"]) | (grad[1] if grad else set())
        if any(n not in kept for name in gone for n in readers[name]) or not removable(block, gone, elsewhere):
            continue
        layers.append((layer, grad))
    return layers


def _forward(ops, readers, writers, i):
    """The layer whose mul is ``ops[i]``: {"ops": the indices of (mul, add) or (mul, add, relu),
    "product": the mul's output, "sum": the add's}, or None where it cannot fuse."""
    mul = ops[i]
    if mul.type != MUL or len(mul.output("Out")) != 1:
        return None
    x, y = mul.block.var(mul.input("X")[0]), mul.block.var(mul.input("Y")[0])
    if (
        x.shape is None
        or y.shape is None
        or len(y.shape) != 2
        or mul.attrs.get("y_num_col_dims", 1) != 1
        or mul.attrs.get("x_num_col_dims", 1) != len(x.shape) - 1
    ):
        return None
    product = mul.output("Out")[0]
    adds = [j for j in readers[product] if ops[j].type == ADD]
    if len(adds) != 1 or writers[product] != [i] or adds[0] < i:
        return None
    j = adds[0]
    add = ops[j]
    bias = add.block.var(add.input("Y")[0]) if add.input("Y") else None
    if (
        add.input("X") != [product]
        or bias is None
        or bias.shape is None
        or len(bias.shape) != 1
        or add.attrs.get("axis", -1) not in (-1, len(x.shape) - 1)
        or len(add.output("Out")) != 1
    ):
        return None
    total = add.output("Out")[0]
    if writers[total] != [j]:
        return None
    # relu joins where it alone reads the sum (with the bias add's gradient op, which the backward
    # fusion takes; relu's own gradient reads its output)
    relus = [k for k in readers[total] if ops[k].type == RELU and ops[k].input("X") == [total] and k > j]
    k = relus[0] if len(relus) == 1 and ops[relus[0]].output("Out") != [total] else None
    if k is not None and any(n != k and ops[n].type != grad_type(ADD) for n in readers[total]):
        k = None
    # the fused op runs where the last of them ran: no op between writes what they read
    last = j if k is None else k
    written = {n for m in range(i + 1, last) if m != j for n in ops[m].output_arg_names}
    if written & (set(mul.input_arg_names) | set(add.input_arg_names) | {product, total}):
        return None
    return {"ops": (i, j) if k is None else (i, j, k), "product": product, "sum": total}


def _backward(ops, readers, writers, layer):
    """(index of the fused grad op, the indices it replaces, its inputs, its outputs,
    activation_grad) for the layer's gradient ops, or None where they cannot fuse."""
    i, j = layer["ops"][:2]
    mul, add = ops[i], ops[j]
    product, total = layer["product"], layer["sum"]
    d_total, d_product = total + GRAD_SUFFIX, product + GRAD_SUFFIX
    add_grads = [m for m in readers[d_total] if ops[m].type == grad_type(ADD) and ops[m].input("X") == [product]]
    if len(add_grads) != 1 or writers[d_product] != add_grads:
        return None
    m = add_grads[0]
    add_grad = ops[m]
    if (
        add_grad.input("Y") != add.input("Y")
        or add_grad.input("Out@GRAD") != [d_total]
        or add_grad.output("X@GRAD") != [d_product]
    ):
        return None
    mul_grads = readers[d_product]
    if len(mul_grads) != 1:
        return None
    n = mul_grads[0]
    if (
        ops[n].type not in MUL_GRADS
        or n < m
        or ops[n].input("Out@GRAD") != [d_product]
        or ops[n].input("X") != mul.input("X")
        or ops[n].input("Y") != mul.input("Y")
    ):
        return None
    outs = {"D" + s: ops[n].output(s + GRAD_SUFFIX) for s in ("X", "Y") if ops[n].output(s + GRAD_SUFFIX)}
    if add_grad.output("Y@GRAD"):
        outs["DBias"] = add_grad.output("Y@GRAD")
    dropped, act_grad = {m, *mul_grads}, "none"
    q = _relu_grad_of(ops, readers, writers, outs.get("DX"), mul.input("X")[0])
    if q is not None:
        dropped.add(q)
        outs["DX"] = ops[q].output("X@GRAD")
        act_grad = grad_type(RELU)
    # the fused op runs where the last of them ran: no op between reads what they wrote, or writes
    # what it reads
    at, first = max(dropped), min(dropped)
    written = {n for d in dropped for n in ops[d].output_arg_names}
    between = [n for n in range(first + 1, at) if n not in dropped]
    if any(set(ops[n].input_arg_names) & written for n in between):
        return None
    if writes_between(ops, first, at) & {d_total, *mul.input_arg_names}:
        return None
    return at, dropped, {"DOut": [d_total], "X": mul.input("X"), "Y": mul.input("Y")}, outs, act_grad


def _relu_grad_of(ops, readers, writers, dx, x):
    """The index of the relu_grad that alone reads the layer's input gradient ``dx`` (one name, one
    writer), where the layer's input ``x`` is that relu's output, or None."""
    if not dx or len(dx) != 1:
        return None
    name = dx[0]
    if len(writers[name]) != 1 or len(readers[name]) != 1:
        return None
    q = readers[name][0]
    op = ops[q]
    if op.type != grad_type(RELU) or op.input("Out@GRAD") != [name] or op.input("Out") != [x] or q < writers[name][0]:
        return None
    return q
