"""Kernels of the fused ops (pe_cli/ops/fused.py): the CPU kernels of the ops they replace, called
in the same order within one op (pe_cli/kernels/fused_math.py). A bias add, or an add of two arrays
of the same shape, followed by relu on float32/float64 runs one numba loop instead (_fused_loops.py;
the same numbers), as does an add followed by tanh or sigmoid on float32 (Y broadcast over a middle
run of X's dims too: the attention's query over its steps). Batch norm with relu in training runs
batch norm's loops with relu in their passes (batch_norm.relu_loops, batch_norm.relu_grad_loops; the same numbers).

fused_gemm_epilogue and its gradient are structured kernels: their meta rules are shapes/gemm.py's, their
out-kernels gemm.py's (mul's GEMM and its gradients, with the bias and relu, or relu's gradient, applied to each
block by the thread that computed it: the numbers of the unfused ops run one by one, to the bit)."""

import numpy as np

from ...shapes import fused as fused_meta, gemm as gemm_meta
from .. import kernel_of
from ...shapes.fused import ACT_READS, BINARY
from ..structured import adapter, fresh_output, viewed
from . import activation, activation_rows, batch_norm as bn, elementwise_binary, elementwise_binary_grad, gemm
from . import scaling, _replicas
from .launches import by_variant
from .runtime.loops import flat, lazy, parallel_parts, twin

_loops = lazy("_fused_loops")


def _add_act_out(ins, outs, attrs, meta):
    """``act`` (tanh or sigmoid) of X + Y, float32, X [a, b, c] and Y [ya, c] broadcast over b
    (shapes/fused.middle_shape), in one pass of _fused_loops.add_act (on the device's threads for
    large X): the numbers of the add's and the activation's kernels; IntermediateOut where the op writes it."""
    ((a, b, c), yshape), act, keep = meta.args
    x = np.ascontiguousarray(ins["X"]).reshape(a, b, c)
    y = np.ascontiguousarray(ins["Y"]).reshape(yshape)
    out = outs["Out"].reshape(a, b, c)
    inter = outs["IntermediateOut"].reshape(a, b, c) if keep else x  # (x: a placeholder the loop never writes)
    parts, name = parallel_parts(x.size), "add_act_keep" if keep else "add_act"
    code = getattr(_loops(), act.upper())
    args = (x.reshape(-1), y.reshape(-1), inter.reshape(-1), out.reshape(-1), a, b, c, code, parts)
    twin(getattr(_loops(), name), getattr(_loops(), name + "_parallel"), parts > 1, *args)(*args)
    tail = x.size % 8
    if act == "sigmoid" and tail:  # the last size % 8 as the sigmoid kernel's (activation._libm_tail)
        at = np.arange(x.size - tail, x.size)
        rows = at // (b * c) if y.size > c else 0
        ys = y.reshape(-1)[rows * c + at % c]
        out.reshape(-1)[-tail:] = activation.libm_sigmoid(x.reshape(-1)[-tail:] + ys)


def _add_relu_out(ins, outs, attrs, meta):
    """relu of X + Y of one shape (a residual connection): in chunks, on the threads."""
    x, y, inter, out = ins["X"], ins["Y"], outs["IntermediateOut"], outs["Out"]
    parts = parallel_parts(x.size)
    args = (flat(x), flat(y), inter.reshape(-1), out.reshape(-1), parts)  # (serial: the chunks in turn)
    twin(_loops().add_relu, _loops().add_relu_parallel, parts > 1, *args, replica=_replicas.add_relu)(*args)


def _add_mid_relu_out(ins, outs, attrs, meta):
    """relu of X [pre, n, post] plus a bias Y [n]."""
    (run,), x = meta.args, ins["X"]
    loop = _loops().add_mid_relu_parallel if run[0] > 1 and parallel_parts(x.size) > 1 else _loops().add_mid_relu
    args = (np.ascontiguousarray(x).reshape(run), np.ascontiguousarray(ins["Y"]).reshape(-1))
    loop(*args, outs["IntermediateOut"].reshape(run), outs["Out"].reshape(run))


# the out-kernels of the inner ops a composed fused op runs, by op type
def _inner_kernel(op_type):
    if op_type == "scale":
        return scaling.SCALE
    if op_type.startswith("elementwise_"):
        name = op_type[12:]
        return elementwise_binary_grad.GRAD[name[:-5]] if name.endswith("_grad") else elementwise_binary.FORWARD[name]
    if op_type.endswith("_grad"):
        return activation_rows.GRAD[op_type[:-5]]
    return activation_rows.FORWARD[op_type]


def _composed(ins, outs, attrs, meta, wiring):
    """The inner steps in turn (``meta.args``: (tag, op type, attributes, Meta)), each into its scratch buffers
    ``tag:slot`` (a fresh one's arrays its own), its inputs wired by ``wiring(values, tag)``; the fused op's outputs
    handed over from them (``wiring``'s last call names them)."""
    values = dict(ins)
    for tag, op_type, inner_attrs, inner in meta.args:
        inner_ins = wiring(values, tag)
        given = {k[len(tag) + 1 :]: v for k, v in outs.items() if k.startswith(tag + ":")}
        for slot, src in inner.aliases.items():
            given[slot] = inner_ins[src]
        _inner_kernel(op_type)(inner_ins, given, inner_attrs, inner)
        values.update({f"{tag}:{slot}": given[slot] for slot in inner.outputs})
    inputs = tuple(v for v in ins.values() if type(v) is np.ndarray)
    for slot, source in wiring(values, None).items():
        outs[slot] = fresh_output(values[source], meta.outputs[slot], inputs)


def _elemwise_act_composed(ins, outs, attrs, meta):
    f0 = attrs["functor_list"][0]

    def wiring(v, tag):
        if f0 in BINARY:  # Out = binary(X, unary(Y))
            if tag == "unary":
                return {"X": v["Y"]}
            if tag == "binary":
                return {"X": v["X"], "Y": v["unary:Out"]}
            return {"Out": "binary:Out", "IntermediateOut": "unary:Out"}
        if tag == "binary":  # Out = unary(binary(X, Y))
            return {"X": v["X"], "Y": v["Y"]}
        if tag == "unary":
            return {"X": v["binary:Out"]}
        return {"Out": "unary:Out", "IntermediateOut": "binary:Out"}

    _composed(ins, outs, attrs, meta, wiring)


def _elemwise_act_grad_composed(ins, outs, attrs, meta):
    f0, f1 = attrs["functor_list"]

    def unary_grad_ins(v, name, x, out, dout):
        if name == "scale":
            return {"X": dout}
        reads = ACT_READS[name]
        return {reads: x if reads == "X" else out, "Out@GRAD": dout}

    def wiring(v, tag):
        if f0 in BINARY:  # Out = binary(X, unary(Y))
            inter = v.get("IntermediateOut", v.get("inter:Out"))
            if tag == "inter":
                return {"X": v["Y"]}
            if tag == "binary":
                return {"X": v["X"], "Y": inter, "Out": v["Out"], "Out@GRAD": v["Out@GRAD"]}
            if tag == "unary":
                return unary_grad_ins(v, f1, v["Y"], inter, v["binary:Y@GRAD"])
            return {"X@GRAD": "binary:X@GRAD", "Y@GRAD": "unary:" + ("Out" if f1 == "scale" else "X@GRAD")}
        inter = v.get("IntermediateOut", v.get("inter:Out"))  # Out = unary(binary(X, Y))
        d_inter = "unary:" + ("Out" if f0 == "scale" else "X@GRAD")
        if tag == "inter":
            return {"X": v["X"], "Y": v["Y"]}
        if tag == "unary":
            return unary_grad_ins(v, f0, inter, v["Out"], v["Out@GRAD"])
        if tag == "binary":
            return {"X": v["X"], "Y": v["Y"], "Out": v["Out"], "Out@GRAD": v[d_inter]}
        return {"X@GRAD": "binary:X@GRAD", "Y@GRAD": "binary:Y@GRAD"}

    _composed(ins, outs, attrs, meta, wiring)


ELEMWISE_ACT = by_variant(
    "fused_elemwise_activation_out",
    None,
    add_act=_add_act_out,
    add_relu=_add_relu_out,
    add_mid_relu=_add_mid_relu_out,
    composed=_elemwise_act_composed,
)
ELEMWISE_ACT_GRAD = by_variant("fused_elemwise_activation_grad_out", None, composed=_elemwise_act_grad_composed)
# (the kernels by name, for the blocked layout's kernels made of them: blocked.py)
fused_elemwise_activation = adapter(fused_meta.elemwise_act_meta, ELEMWISE_ACT, "fused_elemwise_activation")
fused_elemwise_activation_grad = adapter(
    fused_meta.elemwise_act_grad_meta, ELEMWISE_ACT_GRAD, "fused_elemwise_activation_grad"
)


def _inner_outs(outs, meta, ins, prefix="act:"):
    """The buffers an inner op's out-kernel is handed: its scratch (the fused Meta's, named ``prefix`` + name) and
    the outputs its Meta makes aliases of its inputs."""
    given = {k[len(prefix) :]: v for k, v in outs.items() if k.startswith(prefix)}
    for slot, src in meta.aliases.items():
        given[slot] = ins[src]
    return given


def _bn_act_relu_loops(ins, outs, attrs, meta):
    bn.relu_loops(ins, outs, attrs, meta.args[0])


def _bn_act(ins, outs, attrs, meta):
    """batch_norm's variant into Y, then the activation's out-kernel over it (into Y where it may write over its
    input; else into the scratch "activated", then Y)."""
    inner, act = meta.args
    bn.FORWARD(ins, outs, attrs, inner)
    y, act_ins = outs["Y"], {"X": outs["Y"]}
    given = _inner_outs(outs, act, act_ins)
    if not act.fresh:
        given["Out"] = outs.get("activated", y)
    activation_rows.FORWARD[attrs["act_type"]](act_ins, given, {}, act)
    if given["Out"] is not y:
        if meta.fresh:
            outs["Y"] = fresh_output(given["Out"], meta.outputs["Y"], tuple(ins.values()))
        else:
            np.copyto(y, given["Out"])


def _bn_act_grad_relu_loops(ins, outs, attrs, meta):
    bn.relu_grad_loops(ins, outs, attrs, meta.args[0], ins["Y"])


def _bn_act_grad(ins, outs, attrs, meta):
    """The activation's gradient into the scratch "dy", then batch_norm_grad's variant of it."""
    inner, act = meta.args
    act_ins = {"Out": ins["Y"], "Out@GRAD": ins["Y@GRAD"]}
    given = _inner_outs(outs, act, act_ins)
    if "dy" in outs:
        given["X@GRAD"] = outs["dy"]
    activation_rows.GRAD[attrs["act_type"]](act_ins, given, {}, act)
    bn_ins = {slot: ins[slot] for slot in ("X", "Scale", "SavedMean", "SavedVariance")}
    bn.GRAD(dict(bn_ins, **{"Y@GRAD": given["X@GRAD"]}), outs, attrs, inner)


def _bn_act_launches(op, table, meta):
    """A planned step's launches of "relu_loops": batch_norm's of its "loops" variant, relu in its pass."""
    return bn.forward_launches(op, table, meta.args[0], relu=True) if meta.variant == "relu_loops" else None


def _bn_act_grad_launches(op, table, meta):
    """A planned step's launch of the gradient's "relu_loops": batch_norm_grad's, relu's gradient in its pass."""
    return bn.grad_launches(op, table, meta.args[0], relu=True) if meta.variant == "relu_loops" else None


BN_ACT = by_variant("fused_batch_norm_act_out", _bn_act_launches, relu_loops=_bn_act_relu_loops, composed=_bn_act)
BN_ACT_GRAD = by_variant(
    "fused_batch_norm_act_grad_out", _bn_act_grad_launches, relu_loops=_bn_act_grad_relu_loops, composed=_bn_act_grad
)
# (the kernels by name, for the blocked layout's kernels made of them: blocked.py)
fused_batch_norm_act = adapter(fused_meta.bn_act_meta, BN_ACT, "fused_batch_norm_act")
fused_batch_norm_act_grad = adapter(fused_meta.bn_act_grad_meta, BN_ACT_GRAD, "fused_batch_norm_act_grad")


def _fusion_group(ins, outs, attrs, meta):
    """Each subgraph entry's out-kernel in turn (its Meta ``meta.args[i]``) over the labels' values, into its scratch
    buffers ``i:slot``; Outs the output labels' values, handed over (a copy only of an input's)."""
    values = dict(zip(attrs["input_names"], ins["Inputs"]))
    for i, (entry, inner) in enumerate(zip(attrs["subgraph"], meta.args)):
        _, module, function, op_ins, op_outs, op_attrs = entry
        inner_ins = {slot: values[label] for slot, label in op_ins.items()}
        tag = f"{i}:"
        given = {k[len(tag) :]: v for k, v in outs.items() if k.startswith(tag)}
        for slot, src in inner.aliases.items():
            given[slot] = inner_ins[src]
        if inner.views:
            viewed(inner, inner_ins, given)
        kernel_of("cpu", module, function).structured[1](inner_ins, given, op_attrs, inner)
        values.update({label: given[slot] for slot, label in op_outs.items()})
    inputs = tuple(ins["Inputs"])
    specs = meta.outputs["Outs"]
    outs["Outs"] = [fresh_output(values[label], spec, inputs) for label, spec in zip(attrs["output_names"], specs)]


FUSION_GROUP = _fusion_group
fused_gemm_epilogue = adapter(gemm_meta.fused_gemm_meta, gemm.FUSED_GEMM, "fused_gemm_epilogue")
fused_gemm_epilogue_grad = adapter(gemm_meta.fused_gemm_grad_meta, gemm.FUSED_GEMM_GRAD, "fused_gemm_epilogue_grad")


def _fc_operands(ins, meta):
    """Input as [rows, K] and W's weighing part [K, N] (its first K rows and N columns with padding_weights)."""
    rows, k, n = meta.args
    return np.reshape(ins["Input"], (rows, k)), ins["W"][:k, :n]


def _fc(ins, outs, attrs, meta):
    x, w = _fc_operands(ins, meta)
    out, bias = outs["Out"].reshape(x.shape[0], w.shape[1]), ins.get("Bias")
    np.matmul(x, w, out=out)
    if bias is not None:
        np.add(out, bias.reshape(-1), out=out)
        if attrs["activation_type"] == "relu":
            np.maximum(out, 0, out=out)


def _fc_fresh(ins, outs, attrs, meta):
    x, w = _fc_operands(ins, meta)
    out, bias = np.matmul(x, w), ins.get("Bias")
    if bias is not None:
        out += bias.reshape(-1)
        if attrs["activation_type"] == "relu":
            np.maximum(out, 0, out=out)
    outs["Out"] = fresh_output(out.reshape(meta.outputs["Out"][0]), meta.outputs["Out"], tuple(ins.values()))


FC = by_variant("fc_out", None, out=_fc, fresh=_fc_fresh)
