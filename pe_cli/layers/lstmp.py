"""dynamic_lstmp with Fluid 1.8's signature: the LSTM with a recurrent projection (the lstmp op, over
LoD input)."""

import copy

from ..base.errors import PeError
from ..training.param_attr import ParamAttr
from .checks import check_recurrent_inputs
from .helper import LayerHelper
from .checks import fluid_checks, optional

__all__ = ["dynamic_lstmp"]


def _proj_attr(param_attr):
    """The projection weight's attribute: param_attr's, with ``<name>.proj`` when it names the
    weight (Fluid gives both weights the one attribute, which cannot name two parameters)."""
    attr = ParamAttr._to_attr(param_attr)
    if attr and attr.name:
        attr = copy.copy(attr)
        attr.name = f"{attr.name}.proj"
    return attr


def _check_lstmp(helper, size, bias_attr, cell_clip, proj_clip):
    """dynamic_lstmp's refusals: a size not 4 x the hidden size, no bias, a negative clip."""
    if size % 4:
        raise PeError(f"dynamic_lstmp layer '{helper.name}': size {size} must be 4 x the hidden size")
    if bias_attr is False:
        raise PeError(f"dynamic_lstmp layer '{helper.name}': bias_attr=False is not allowed (as in Fluid)")
    for what, clip in (("cell_clip", cell_clip), ("proj_clip", proj_clip)):
        if clip is not None and clip < 0:
            raise PeError(f"dynamic_lstmp layer '{helper.name}': {what} {clip} must be >= 0")


def _lstmp_outputs(helper, dtype):
    """The lstmp op's outputs {slot: [variable]}, made in Fluid's order."""
    projection = helper.create_variable_for_type_inference(dtype)
    cell = helper.create_variable_for_type_inference(dtype)
    # Fluid's layer makes an OrderedP0 variable it never uses (its op has no such output): made too, so the
    # variables after it have Fluid's names
    helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    batch_hidden, batch_gate, batch_cell_pre_act = (
        helper.create_variable_for_type_inference(dtype, stop_gradient=True) for _ in range(3)
    )
    return {
        "Projection": [projection],
        "Cell": [cell],
        "BatchHidden": [batch_hidden],
        "BatchGate": [batch_gate],
        "BatchCellPreAct": [batch_cell_pre_act],
    }


@fluid_checks(
    "dynamic_lstmp",
    input=("float32", "float64"),
    h_0=optional(("float32", "float64")),
    c_0=optional(("float32", "float64")),
)
def dynamic_lstmp(
    input,
    size,
    proj_size,
    param_attr=None,
    bias_attr=None,
    use_peepholes=True,
    is_reverse=False,
    gate_activation="sigmoid",
    cell_activation="tanh",
    candidate_activation="tanh",
    proj_activation="tanh",
    dtype="float32",
    name=None,
    h_0=None,
    c_0=None,
    cell_clip=None,
    proj_clip=None,
):
    """An LSTM with a recurrent projection over each sequence of ``input`` [T, size] (an fc to 4 x
    the hidden size D; gates candidate/input/forget/output): the state carried between steps is
    r = proj_activation(h ProjWeight) [proj_size], clipped to +-proj_clip, and the cell is clipped
    to +-cell_clip (None or 0: no clip). ``h_0`` [N, proj_size], ``c_0`` [N, D]. Returns
    (projection [T, proj_size], cell [T, D]) with the input's LoD."""
    check_recurrent_inputs("dynamic_lstmp", input, h_0=h_0, c_0=c_0)
    helper = LayerHelper("lstmp", input=input, param_attr=param_attr, bias_attr=bias_attr, name=name)
    _check_lstmp(helper, size, bias_attr, cell_clip, proj_clip)
    d = size // 4
    weight = helper.create_parameter(param_attr, [proj_size, size], dtype)
    proj_weight = helper.create_parameter(_proj_attr(param_attr), [d, proj_size], dtype)
    bias = helper.create_parameter(bias_attr, [1, 7 * d if use_peepholes else size], dtype, is_bias=True)
    outputs = _lstmp_outputs(helper, dtype)
    inputs = {"Input": [input], "Weight": [weight], "ProjWeight": [proj_weight], "Bias": [bias]}
    if h_0 is not None:
        inputs["H0"] = [h_0]
    if c_0 is not None:
        inputs["C0"] = [c_0]
    helper.append_op(
        "lstmp",
        inputs,
        outputs,
        {
            "use_peepholes": use_peepholes,
            "is_reverse": is_reverse,
            "cell_clip": float(cell_clip or 0.0),
            "proj_clip": float(proj_clip or 0.0),
            "gate_activation": gate_activation,
            "cell_activation": cell_activation,
            "candidate_activation": candidate_activation,
            "proj_activation": proj_activation,
        },
    )
    return outputs["Projection"][0], outputs["Cell"][0]
