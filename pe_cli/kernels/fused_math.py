"""The fused ops' kernels (pe_cli/ops/fused.py) for one device, made from that device's kernels of
the ops they replace (``activation``, ``elementwise``, ``normalization``: the device's kernel modules), called
in the same order within one op, so the numbers are those of the unfused ops to the bit."""

from ..base.activations import TABLE
from . import kernel_of
from .context import NO_CONTEXT, KernelContext, call

ACT_READS = {row.name: row.reads for row in TABLE}  # what each activation's gradient reads
BINARY = ("elementwise_add", "elementwise_mul")  # fused_elemwise_activation's binary functors
_INPLACE = KernelContext(inplace=True)  # (read only: an activation written over its input)


def fused_kernels(activation, elementwise, normalization):
    """{op type: kernel} of the fused ops and their gradient ops on one device."""
    return dict(
        _elemwise_activation_kernels(activation, elementwise), **_batch_norm_act_kernels(activation, normalization)
    )


def _elemwise_activation_kernels(activation, elementwise):
    """{op type: kernel} of fused_elemwise_activation and its gradient op, made of ``activation``'s and
    ``elementwise``'s kernels."""

    def unary(name, x, attrs):
        if name == "scale":
            return elementwise.scale({"X": x}, {"scale": attrs["scale"], "bias": 0.0, "bias_after_scale": True})["Out"]
        return getattr(activation, name)({"X": x}, {})["Out"]

    def unary_grad(name, x, out, dout, attrs):
        if name == "scale":
            return unary(name, dout, attrs)
        reads = ACT_READS[name]
        return getattr(activation, name + "_grad")({reads: x if reads == "X" else out, "Out@GRAD": dout}, {})["X@GRAD"]

    def fused_elemwise_activation(ins, attrs):
        outer, inner = attrs["functor_list"]
        if outer in BINARY:  # Out = binary(X, unary(Y))
            inter = unary(inner, ins["Y"], attrs)
            out = getattr(elementwise, outer)({"X": ins["X"], "Y": inter}, {"axis": attrs["axis"]})["Out"]
        else:  # Out = unary(binary(X, Y))
            inter = getattr(elementwise, inner)(ins, {"axis": attrs["axis"]})["Out"]
            out = unary(outer, inter, attrs)
        return {"Out": out, "IntermediateOut": inter}

    def fused_elemwise_activation_grad(ins, attrs):
        outer, inner = attrs["functor_list"]
        if outer in BINARY:
            return _binary_outer_grad(ins, attrs, outer, inner)
        inter = ins.get("IntermediateOut")
        if inter is None and ACT_READS.get(outer) == "X":
            inter = getattr(elementwise, inner)({"X": ins["X"], "Y": ins["Y"]}, {"axis": attrs["axis"]})["Out"]
        d_inter = unary_grad(outer, inter, ins["Out"], ins["Out@GRAD"], attrs)
        # the binary op's Out is IntermediateOut; its gradient reads only that shape, which Out has too
        b_ins = {"X": ins["X"], "Y": ins["Y"], "Out": ins["Out"], "Out@GRAD": d_inter}
        return getattr(elementwise, inner + "_grad")(b_ins, {"axis": attrs["axis"]})

    def _binary_outer_grad(ins, attrs, outer, inner):
        inter = ins.get("IntermediateOut")
        if inter is None:
            inter = unary(inner, ins["Y"], attrs)
        b_ins = {"X": ins["X"], "Y": inter, "Out": ins["Out"], "Out@GRAD": ins["Out@GRAD"]}
        grads = getattr(elementwise, outer + "_grad")(b_ins, {"axis": attrs["axis"]})
        grads["Y@GRAD"] = unary_grad(inner, ins["Y"], inter, grads["Y@GRAD"], attrs)
        return grads

    return {
        "fused_elemwise_activation": fused_elemwise_activation,
        "fused_elemwise_activation_grad": fused_elemwise_activation_grad,
    }


def _batch_norm_act_kernels(activation, normalization):
    """{op type: kernel} of fused_batch_norm_act and its gradient op, made of ``normalization``'s batch_norm
    kernels and ``activation``'s."""

    def fused_batch_norm_act(ins, attrs):
        outs = dict(normalization.batch_norm(ins, attrs))
        # the normalized value dies here: the activation may write over it (where its kernel can)
        outs["Y"] = call(getattr(activation, attrs["act_type"]), {"X": outs["Y"]}, {}, _INPLACE)["Out"]
        return outs

    def fused_batch_norm_act_grad(ins, attrs):
        act = attrs["act_type"]
        dy = getattr(activation, act + "_grad")({"Out": ins["Y"], "Out@GRAD": ins["Y@GRAD"]}, {})["X@GRAD"]
        bn_ins = {slot: ins[slot] for slot in ("X", "Scale", "SavedMean", "SavedVariance")}
        return normalization.batch_norm_grad(dict(bn_ins, **{"Y@GRAD": dy}), attrs)

    return {
        "fused_batch_norm_act": fused_batch_norm_act,
        "fused_batch_norm_act_grad": fused_batch_norm_act_grad,
    }


# the update ops with a fused twin (pe_cli/ops/fused_optimizer.py FUSABLE_OPTIMIZERS)
FUSED_UPDATES = ("sgd", "momentum", "adam")


def fused_update_kernels(*modules, types=FUSED_UPDATES):
    """{fused op type: kernel} of the fused update ops (pe_cli/ops/fused_optimizer.py) of the update
    ops ``types`` on one device, from that device's update kernels (the first of ``modules`` holding
    each): each parameter's update in turn, the lists' i-th entries forming the i-th call, with the
    one learning rate."""

    def make(type):
        update = next(getattr(m, type) for m in modules if hasattr(m, type))

        def fused(ins, attrs, ctx=NO_CONTEXT):
            lr = ins["LearningRate"]
            slots = [slot for slot in ins if slot != "LearningRate"]
            outs = {}
            for i in range(len(ins["Param"])):
                one = call(update, dict({slot: ins[slot][i] for slot in slots}, LearningRate=lr), attrs, ctx)
                for slot, value in one.items():
                    outs.setdefault(slot, []).append(value)
            return outs

        return fused

    return {"fused_" + type: make(type) for type in types}


# -- depthwise_conv2d's fuse_relu_before_depthwise_conv (the fuse_relu_depthwise_conv pass) ---------
RELU_FIRST = "fuse_relu_before_depthwise_conv"


def relu_first(activation, conv2d, conv2d_grad_input, conv2d_grad_filter):
    """(conv2d, conv2d_grad_input, conv2d_grad_filter) of one device honouring the attribute
    ``fuse_relu_before_depthwise_conv``, as Fluid's depthwise conv kernels do: the convolution of
    relu(Input), and the input gradient through relu's. relu is this device's relu kernel, recomputed
    from Input in the gradient ops (the fused program keeps no relu output), and relu's gradient its
    relu_grad kernel on that output, so the numbers are those of relu and the conv ops unfused."""

    def relu(x):
        return activation.relu({"X": x}, {})["Out"]

    def fused_conv2d(ins, attrs):
        if attrs.get(RELU_FIRST):
            ins = dict(ins, Input=relu(ins["Input"]))
        return conv2d(ins, attrs)

    def fused_grad_filter(ins, attrs):
        if attrs.get(RELU_FIRST):
            ins = dict(ins, Input=relu(ins["Input"]))
        return conv2d_grad_filter(ins, attrs)

    def fused_grad_input(ins, attrs):
        if not attrs.get(RELU_FIRST):
            return conv2d_grad_input(ins, attrs)
        y = relu(ins["Input"])
        dy = conv2d_grad_input(dict(ins, Input=y), attrs)["Input@GRAD"]
        return {"Input@GRAD": activation.relu_grad({"Out": y, "Out@GRAD": dy}, {})["X@GRAD"]}

    return fused_conv2d, fused_grad_input, fused_grad_filter


def both_grads(conv2d_grad_input, conv2d_grad_filter, shared=None):
    """conv2d_grad's kernel (Fluid's one op for both gradients, pe_cli/ops/convolution.py) of one device from
    its two kernels: the gradients the op writes (``ctx.outputs``); ``shared``: ins, attrs ->
    (Input@GRAD, Filter@GRAD) or None, a path computing both at once, tried first where both are written
    and the relu-first attribute is off."""

    def conv2d_grad(ins, attrs, ctx=NO_CONTEXT):
        wanted = ctx.wanted(("Input@GRAD", "Filter@GRAD"))
        if "Input@GRAD" not in wanted:
            return conv2d_grad_filter(ins, attrs)
        if "Filter@GRAD" not in wanted:
            return conv2d_grad_input(ins, attrs)
        if shared is not None and not attrs.get(RELU_FIRST) and (both := shared(ins, attrs)) is not None:
            return {"Input@GRAD": both[0], "Filter@GRAD": both[1]}
        return dict(conv2d_grad_input(ins, attrs), **conv2d_grad_filter(ins, attrs))

    return conv2d_grad


def written_grads(kernels):
    """One grad op's kernel (matmul_grad: Fluid's one op for X@GRAD and Y@GRAD) of one device from a
    kernel per gradient ({slot: kernel}): the gradients the op writes (``ctx.outputs``)."""

    def grad(ins, attrs, ctx=NO_CONTEXT):
        wanted, outs = ctx.wanted(tuple(kernels)), {}
        for slot, kernel in kernels.items():
            if slot in wanted:
                outs.update(kernel(ins, attrs))
        return outs

    return grad


def fusion_group_kernel(package):
    """The kernel of fusion_group (pe_cli/ops/fused.py) on the device whose kernel modules are
    ``package`` (``pe_cli.kernels.cpu``): each op of ``attrs['subgraph']`` by its own kernel, in
    order, over values named by labels, so the numbers are those of the ops run one by one."""
    found = {}

    def kernel(module, function):
        fn = found.get((module, function))
        if fn is None:
            fn = found[(module, function)] = kernel_of(package.rsplit(".", 1)[1], module, function)
        return fn

    def fusion_group(ins, attrs):
        values = dict(zip(attrs["input_names"], ins["Inputs"]))
        for _, module, function, op_ins, op_outs, op_attrs in attrs["subgraph"]:
            outs = kernel(module, function)({slot: values[label] for slot, label in op_ins.items()}, op_attrs)
            values.update({label: outs[slot] for slot, label in op_outs.items()})
        return {"Outs": [values[label] for label in attrs["output_names"]]}

    return fusion_group
