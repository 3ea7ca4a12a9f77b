"""pe's one-op DynamicRNN: a recurrence over the sequences of LoD inputs, one ``dynamic_recurrent`` op
that owns the step block. A model file's ``dynamic_rnn`` layer builds it, and pe's programs saved
before fluid.layers.DynamicRNN built Fluid's while over the rank-table ops hold it. Sequences run
longest first; at step t the block sees the t-th token of each sequence still running, and memories
shrink to those rows."""

from ..kernels.cpu import dynamic_rnn as cpu_block
from ..shapes import block_ops as block_metas
from .define import Attr, Structured, register

_NAMES = Attr(list)


def _infer_dynamic(ctx):
    for i in range(ctx.num_inputs("inputs")):
        var = ctx.input_var("inputs", i)
        if var.lod_level < 1:
            ctx.fail(f"step input '{var.name}' is a plain tensor; DynamicRNN steps over sequences (lod_level >= 1)")
    block = ctx.block.program.block(ctx.attrs["sub_block"])
    for i, inner in enumerate(ctx.attrs["step_outputs"]):
        var = block.var(inner)  # the steps' elements under the input's top level
        ctx.set_output("outputs", [-1] + list(var.shape or [])[1:], var.dtype, i=i, lod_level=1 + var.lod_level)


def _grad_dynamic(g):
    a = g.attrs
    block = g.fwd.block.program.block(a["sub_block"])
    params, statics = g.input("parameters"), a["static_inputs"]
    live = set(a["step_inputs"]) | set(a["ex_states"]) | set(statics)
    live |= {p for p, need in zip(params, g.needed.get("parameters", [])) if need}
    wanted = list(a["step_inputs"]) + list(a["ex_states"]) + list(statics) + params
    index, seeded, grads = g.block_grad(block, list(a["step_outputs"]) + list(a["states"]), wanted, live)
    n_out, n_in, n_ex, n_st = len(a["step_outputs"]), len(a["step_inputs"]), len(a["ex_states"]), len(statics)
    g.op(
        "dynamic_recurrent_grad",
        {
            "inputs": g.input("inputs"),
            "initial_states": g.input("initial_states"),
            "static_inputs": g.input("static_inputs"),
            "parameters": params,
            "step_scopes": g.output("step_scopes"),
            "outputs@GRAD": g.out_grad("outputs"),
        },
        {
            "inputs@GRAD": g.in_grad("inputs"),
            "initial_states@GRAD": g.in_grad("initial_states"),
            "static_inputs@GRAD": g.in_grad("static_inputs"),
            "parameters@GRAD": g.in_grad("parameters"),
        },
        {
            "sub_block": index,
            "step_outputs": a["step_outputs"],
            "boots": a["boots"],
            "memory_dims": a["memory_dims"],
            "memory_ranks": a["memory_ranks"],
            "memory_values": a["memory_values"],
            "memory_dtypes": a["memory_dtypes"],
            "out_grads": seeded[:n_out],
            "state_grads": seeded[n_out:],
            "input_grads": grads[:n_in],
            "ex_state_grads": grads[n_in : n_in + n_ex],
            "static_grads": grads[n_in + n_ex : n_in + n_ex + n_st],
            "parameter_grads": grads[n_in + n_ex + n_st :],
        },
    )


register(
    "dynamic_recurrent",
    kernel_module="dynamic_rnn",
    structured=Structured(meta=block_metas.dynamic_recurrent_meta, cpu=cpu_block.dynamic_recurrent_out, python=True),
    lod="drop",
    needs_lod=True,
    inputs=["inputs*", "initial_states*", "static_inputs*", "parameters*"],
    outputs=["outputs*", "step_scopes", "writes*"],
    attrs={
        "sub_block": Attr(None, lambda v: isinstance(v, int) and v > 0, "a sub-block index"),
        "step_inputs": _NAMES,
        "static_inputs": _NAMES,
        "step_outputs": _NAMES,
        "ex_states": _NAMES,
        "states": _NAMES,
        "step_idx": "",
        "boots": _NAMES,
        "memory_dims": _NAMES,
        "memory_ranks": _NAMES,
        "memory_values": _NAMES,
        "memory_dtypes": _NAMES,
    },
    infer=_infer_dynamic,
    grad=_grad_dynamic,
    grad_reads=("inputs", "initial_states", "static_inputs", "parameters", "step_scopes"),
    doc="DynamicRNN: runs its block once per time step over the top-level sequences of `inputs` (one LoD), "
    "longest first; step_inputs[i] = the t-th elements of the running sequences (rows, or sequences "
    "with their LoD where the input has 2+ levels), static_inputs (one element per sequence: a row, or "
    "a sequence with its LoD) and memories shrink to those sequences; memory j starts as "
    "initial_states[boots[j]] (rows in sequence order) or, when boots[j] < 0, memory_values[j] of "
    "shape [sequences] + memory_shapes[j] (memory_dims cut by memory_ranks: a flat list, which Fluid's "
    "attribute types can store); the block's variable `step_idx` (when named) holds t (int64 [1]); `writes`: what the block writes outside it (an array the steps fill); outputs[k] = step_outputs[k]'s elements in the sequences' order, under the input's top level.",
)


def _infer_dynamic_grad(ctx):
    for slot in ("inputs", "initial_states", "static_inputs", "parameters"):
        for i in range(ctx.num_outputs(slot + "@GRAD")):
            var = ctx.input_var(slot, i)
            ctx.set_output(slot + "@GRAD", var.shape, var.dtype, i=i)


register(
    "dynamic_recurrent_grad",
    kernel_module="dynamic_rnn",
    structured=Structured(
        meta=block_metas.dynamic_recurrent_grad_meta, cpu=cpu_block.dynamic_recurrent_grad_out, python=True
    ),
    lod="drop",
    needs_lod=True,
    inputs=["inputs*", "initial_states*", "static_inputs*", "parameters*", "step_scopes", "outputs@GRAD*"],
    outputs=["inputs@GRAD*", "initial_states@GRAD*", "static_inputs@GRAD*", "parameters@GRAD*"],
    attrs={
        "sub_block": Attr(None),
        "step_outputs": _NAMES,
        "boots": _NAMES,
        "memory_dims": _NAMES,
        "memory_ranks": _NAMES,
        "memory_values": _NAMES,
        "memory_dtypes": _NAMES,
        "out_grads": _NAMES,
        "state_grads": _NAMES,
        "input_grads": _NAMES,
        "ex_state_grads": _NAMES,
        "static_grads": _NAMES,
        "parameter_grads": _NAMES,
    },
    infer=_infer_dynamic_grad,
    doc="The gradient of dynamic_recurrent: the step block's grad ops from the last step to the first.",
)
