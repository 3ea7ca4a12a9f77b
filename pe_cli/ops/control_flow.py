"""Control flow: tensor arrays, and the ops that own a block
(attribute ``sub_block``): ``while``, ``conditional_block``, ``recurrent`` (StaticRNN), ``pylayer``
(Paddle 2.x's static PyLayer) and their gradients. Their kernels (pe_cli/kernels/<device>/control_flow.py) run the owned block through the
``BlockRunner`` the executor hands them as their context's ``block`` (pe_cli/executor/sub_block.py).

Slots of the block ops list what the block reads from (``X``, ``Input``, ``parameters``) and writes
to (``Out``) its enclosing blocks, so that ordering, pruning and the multi-device graph see them.

The tensor array ops are registered in control_flow_arrays.py, IfElse's and select_input's in
control_flow_branches.py."""

from ..base.dtypes import is_float
from ..kernels.cpu import control_flow as cpu_blocks
from ..kernels.cpu import control_flow_branches as cpu_branches
from ..kernels.cpu import recurrent_steps as cpu_steps
from ..shapes import control_flow as metas
from .define import Attr, Structured, fmt_shape, grad_var_name, is_int, register

_BLOCK = Attr(None, lambda v: is_int(v) and v > 0, "the index of a sub-block (> 0)")
_NAMES = Attr(list)
# attributes pe takes from Fluid's programs and never sets itself (so its saves write none): Fluid's
# garbage collector's skip_eager_deletion_vars (pe frees by liveness); recurrent's step_inputs /
# step_outputs of pe's programs before it built Fluid's
_UNSET = Attr(None)
_GRAD_ATTRS = {
    "sub_block": _BLOCK,
    "seeds": _NAMES,
    "seed_grads": _NAMES,
    "wanted": _NAMES,
    "wanted_grads": _NAMES,
    "writes": _NAMES,
}


# -- ops that own a block -------------------------------------------------------------------------


def _differentiable(block, name):
    var = block.var(name)
    return not var.stop_gradient and is_float(var.dtype)


def _block_grad_attrs(g, reads):
    """(the gradients of the outputs the block op's grad reads, its attributes): the block's grad ops
    in a new block, seeded with the gradients of what the block writes outside."""
    block, b = g.fwd.block.program.block(g.attrs["sub_block"]), g.builder
    # what it writes outside and has a gradient there, and what it carries (reads, then writes): the
    # carried value's gradient flows from each run to the one before even when nothing outside reads it
    seeds = [n for n in g.output("Out") if _differentiable(block, n) and (b.has_grad(n) or n in reads)]
    wanted = [n for n in reads if _differentiable(block, n)]
    index, seeded, grads = g.block_grad(block, seeds, wanted, set(wanted))
    return [b.read_grad(n) for n in seeds], {
        "sub_block": index,
        "seeds": seeds,
        "seed_grads": seeded,
        "wanted": wanted,
        "wanted_grads": grads,
        "writes": g.output("Out"),
    }


def _grad_while(g):
    out_grads, attrs = _block_grad_attrs(g, g.input("X"))
    g.op(
        "while_grad",
        {"X": g.input("X"), "StepScopes": g.output("StepScopes"), "Out@GRAD": out_grads},
        {"X@GRAD": g.in_grad("X")},
        attrs,
    )


def _grad_conditional_block(g):
    out_grads, attrs = _block_grad_attrs(g, g.input("Input"))
    pre = [n for n in attrs["seeds"] if n not in g.input("Input")]  # outputs it overwrites unread
    g.op(
        "conditional_block_grad",
        {"Input": g.input("Input"), "Scope": g.output("Scope"), "Out@GRAD": out_grads},
        {"Input@GRAD": g.in_grad("Input"), "PreOut@GRAD": [g.builder.new_grad_target(n) for n in pre]},
        attrs,
    )


register(
    "while",
    kernel_module="control_flow",
    kernel="while_loop",
    lod="drop",
    needs_lod=True,
    grad=_grad_while,
    grad_reads=("X", "StepScopes"),
    inputs=["X*", "Condition*"],
    outputs=["Out*", "StepScopes"],
    attrs={
        "sub_block": _BLOCK,
        "max_iterations": Attr(100000, lambda v: is_int(v) and v > 0, "> 0"),
        "is_test": False,
        "skip_eager_deletion_vars": _UNSET,
    },
    structured=Structured(meta=metas.while_meta, cpu=cpu_blocks.while_out, python=True),
    doc="Runs its block while Condition (one bool, written by the block) holds, each iteration in a "
    "fresh child scope; X: what the block reads from outside, Out: what it writes there. Stops with "
    "an error naming the loop's source line after max_iterations iterations.",
)

register(
    "while_grad",
    kernel_module="control_flow",
    lod="drop",
    needs_lod=True,
    inputs=["X*", "StepScopes", "Out@GRAD*"],
    outputs=["X@GRAD*"],
    attrs=_GRAD_ATTRS,
    structured=Structured(meta=metas.while_grad_meta, cpu=cpu_blocks.while_grad_out, python=True),
    doc="The gradient of while: runs its block (the body's grad ops) over the kept iterations, last "
    "first, each grad op seeing the values the body's overwritten variables had at its forward op.",
)

register(
    "conditional_block_grad",
    kernel_module="control_flow",
    lod="drop",
    needs_lod=True,
    inputs=["Input*", "Scope", "Out@GRAD*"],
    outputs=["Input@GRAD*", "PreOut@GRAD*"],
    attrs=_GRAD_ATTRS,
    traits=("unset_inputs",),
    structured=Structured(
        meta=metas.conditional_block_grad_meta, cpu=cpu_blocks.conditional_block_grad_out, python=True
    ),
    doc="The gradient of conditional_block: its block's grad ops when it ran; else the gradients of its "
    "outputs pass to their earlier values (PreOut@GRAD for outputs it does not read; an output of a "
    "block that did not run, which cond's select_input did not pick, has no gradient).",
)

register(
    "conditional_block",
    kernel_module="control_flow",
    lod="drop",
    needs_lod=True,
    traits=("keeps_unwritten_outputs",),
    grad=_grad_conditional_block,
    grad_reads=("Input", "Scope"),
    inputs=["Cond*", "Input*"],
    outputs=["Out*", "Scope"],
    attrs={"sub_block": _BLOCK, "is_scalar_condition": True, "skip_eager_deletion_vars": _UNSET},
    structured=Structured(meta=metas.conditional_block_meta, cpu=cpu_blocks.conditional_block_out, python=True),
    doc="Runs its block once, in a child scope, when Cond holds (is_scalar_condition: its one value; "
    "else: Cond is not empty); Input: what the block reads from outside, Out: what it writes there "
    "(unchanged when the block does not run).",
)
register(
    "conditional_block_infer",
    kernel_module="control_flow",
    kernel="conditional_block",
    lod="drop",
    traits=("keeps_unwritten_outputs",),
    needs_lod=True,
    inputs=["Cond*", "Input*"],
    outputs=["Out*", "Scope"],
    attrs={"sub_block": _BLOCK, "is_scalar_condition": True, "skip_eager_deletion_vars": _UNSET},
    structured=Structured(meta=metas.conditional_block_meta, cpu=cpu_blocks.conditional_block_out, python=True),
    doc="conditional_block as Fluid's inference programs have it (save_inference_model writes it for a "
    "conditional_block): the same run, no gradient.",
)


def _grad_pylayer(g):
    if g.attrs.get("backward_block", -1) < 0:
        return  # no backward block (static_pylayer without backward_fn): no gradient flows, as Paddle's
    outs = g.output("Out")
    g.op(
        "pylayer_grad",
        {"Input": g.input("Input"), "Out@GRAD": g.out_grad("Out")},
        {"Input@GRAD": g.in_grad("Input")},
        {
            "sub_block": g.attrs["backward_block"],
            "seeds": [grad_var_name(n) for n in outs],
            "wanted": [grad_var_name(n) for n in g.input("Input")],
        },
    )


def _infer_pylayer_grad(ctx):
    for i in range(ctx.num_outputs("Input@GRAD")):
        ctx.set_output("Input@GRAD", ctx.shape("Input", i), ctx.dtype("Input", i), i=i)


register(
    "pylayer",
    kernel_module="control_flow",
    lod="drop",
    needs_lod=True,
    grad=_grad_pylayer,
    inputs=["Input*", "Reads*"],
    outputs=["Out*", "Scope?"],
    attrs={"sub_block": _BLOCK, "backward_block": Attr(-1, is_int, "a block index, or -1 (none yet)")},
    structured=Structured(meta=metas.pylayer_meta, cpu=cpu_blocks.pylayer_out, python=True),
    doc="Paddle 2.x's static PyLayer: runs its block (sub_block: the forward ops, built by Python) once in a "
    "child scope; Input: the inputs it was given, Reads: what else it reads from outside (parameters: "
    "no gradient, as Paddle's), Out: what it writes there. Its gradient is not derived: pylayer_grad "
    "runs backward_block, the gradient ops built by Python (none: no gradient flows through).",
)

register(
    "pylayer_grad",
    kernel_module="control_flow",
    lod="drop",
    infer=_infer_pylayer_grad,
    inputs=["Input*", "Out@GRAD*"],
    outputs=["Input@GRAD*"],
    attrs={"sub_block": _BLOCK, "seeds": _NAMES, "wanted": _NAMES},
    structured=Structured(meta=metas.pylayer_grad_meta, cpu=cpu_blocks.pylayer_grad_out, python=True),
    doc="The gradient of pylayer: runs its backward block once with each Out's gradient under the name "
    "seeds gives it (Out's name + @GRAD); Input@GRAD are the values the block wrote under the names "
    "wanted gives (Input's name + @GRAD), zeros where it wrote none.",
)


def _step_names(attrs, op):
    """(the step block's names of the step inputs, of the step outputs): Fluid's are the op's own
    ``inputs`` and ``outputs`` names; pe's programs before it built Fluid's named them in attributes."""
    return attrs.get("step_inputs") or op.input("inputs"), attrs.get("step_outputs") or op.output("outputs")


def _infer_recurrent(ctx):
    a, steps = ctx.attrs, None
    for i, name in enumerate(ctx.op.inputs.get("inputs", [])):
        shape = ctx.shape("inputs", i)
        if not shape:
            ctx.fail(f"step input '{name}' needs a leading time dimension, its shape is {fmt_shape(shape)}")
        steps = shape[0] if steps is None or steps < 0 else steps
    if len(a["ex_states"]) != len(a["states"]) or len(a["states"]) != ctx.num_inputs("initial_states"):
        ctx.fail(
            f"{len(a['ex_states'])} memories, {len(a['states'])} updates and "
            f"{ctx.num_inputs('initial_states')} initial states must be as many"
        )
    block = ctx.block.program.block(a["sub_block"])
    for i, inner in enumerate(_step_names(a, ctx.op)[1]):
        var = block.var(inner)
        ctx.set_output("outputs", [steps if steps is not None else -1] + list(var.shape or []), var.dtype, i=i)


def _grad_recurrent(g):
    a = g.attrs
    block = g.fwd.block.program.block(a["sub_block"])
    params = g.input("parameters")
    step_inputs, step_outputs = _step_names(a, g.fwd)
    live = set(step_inputs) | set(a["ex_states"])
    live |= {p for p, need in zip(params, g.needed.get("parameters", [])) if need}
    wanted = list(step_inputs) + list(a["ex_states"]) + params
    index, seeded, grads = g.block_grad(block, list(step_outputs) + list(a["states"]), wanted, live)
    n_out, n_in, n_ex = len(step_outputs), len(step_inputs), len(a["ex_states"])
    g.op(
        "recurrent_grad",
        {
            "inputs": g.input("inputs"),
            "initial_states": g.input("initial_states"),
            "parameters": params,
            "step_scopes": g.output("step_scopes"),
            "outputs@GRAD": g.out_grad("outputs"),
        },
        {
            "inputs@GRAD": g.in_grad("inputs"),
            "initial_states@GRAD": g.in_grad("initial_states"),
            "parameters@GRAD": g.in_grad("parameters"),
        },
        {
            "sub_block": index,
            "reverse": a["reverse"],
            "out_grads": seeded[:n_out],
            "state_grads": seeded[n_out:],
            "input_grads": grads[:n_in],
            "ex_state_grads": grads[n_in : n_in + n_ex],
            "parameter_grads": grads[n_in + n_ex :],
        },
    )


register(
    "recurrent",
    kernel_module="control_flow",
    lod="drop",
    needs_lod=True,
    inputs=["inputs*", "initial_states*", "parameters*"],
    outputs=["outputs*", "step_scopes"],
    attrs={
        "sub_block": _BLOCK,
        "ex_states": _NAMES,
        "states": _NAMES,
        "has_states": False,
        "reverse": False,
        "is_train": True,
        "skip_eager_deletion_vars": _UNSET,
        "step_inputs": _UNSET,
        "step_outputs": _UNSET,
    },
    infer=_infer_recurrent,
    grad=_grad_recurrent,
    grad_reads=("inputs", "initial_states", "parameters", "step_scopes"),
    structured=Structured(meta=metas.recurrent_meta, cpu=cpu_steps.recurrent_out, python=True),
    doc="StaticRNN: runs its block once per time step t of the inputs ([T, ...] each; in the block "
    "the variable of inputs[i]'s name is inputs[i][t]), each step in a child scope kept in step_scopes; "
    "memory ex_states[j] starts as initial_states[j] and takes the block's states[j] after each step; "
    "outputs[k] stacks the block's variable of its name over the steps (Fluid's). step_inputs / "
    "step_outputs, when given (pe's programs before it built Fluid's), name the block's variables instead.",
)


def _infer_recurrent_grad(ctx):
    for slot in ("inputs", "initial_states", "parameters"):
        for i in range(ctx.num_outputs(slot + "@GRAD")):
            var = ctx.input_var(slot, i)
            ctx.set_output(slot + "@GRAD", var.shape, var.dtype, i=i)


register(
    "recurrent_grad",
    kernel_module="control_flow",
    lod="drop",
    inputs=["inputs*", "initial_states*", "parameters*", "step_scopes", "outputs@GRAD*"],
    outputs=["inputs@GRAD*", "initial_states@GRAD*", "parameters@GRAD*"],
    attrs={
        "sub_block": _BLOCK,
        "reverse": False,
        "out_grads": _NAMES,
        "state_grads": _NAMES,
        "input_grads": _NAMES,
        "ex_state_grads": _NAMES,
        "parameter_grads": _NAMES,
    },
    infer=_infer_recurrent_grad,
    structured=Structured(meta=metas.recurrent_grad_meta, cpu=cpu_steps.recurrent_grad_out, python=True),
    doc="The gradient of recurrent: runs its block (the step block's grad ops) over the kept step "
    "scopes from the last step to the first, carrying the memories' gradients back.",
)


def _infer_is_empty(ctx):
    ctx.set_output("Out", ctx.scalar_shape(), "bool")


register(
    "is_empty",
    kernel_module="control_flow",
    inputs=["X"],
    outputs=["Out"],
    lod="drop",
    infer=_infer_is_empty,
    traits=("result_0d_in_paddle2",),
    structured=Structured(meta=metas.is_empty_meta, cpu=cpu_branches.is_empty_out),
    doc="Out = whether X holds no element (bool [1]; 0-D in a Paddle 2.x program); a decoding loop stops on an empty beam.",
)


def _infer_get_places(ctx):
    """Nothing to infer: Out is a PLACE_LIST variable, made so by the layer."""


register(
    "get_places",
    kernel_module="control_flow",
    inputs=[],
    outputs=["Out"],
    lod="drop",
    infer=_infer_get_places,
    attrs={"device_count": 0, "device_type": Attr("AUTO", choices=("AUTO", "CPU", "CUDA"))},
    structured=Structured(meta=metas.get_places_meta, cpu=cpu_branches.get_places_out),
    doc="Out = the places of device_type (AUTO: the device it runs on), the first device_count of them "
    "(0: all CPU places; one CUDA place); a PLACE_LIST variable (Fluid's deprecated get_places layer).",
)
