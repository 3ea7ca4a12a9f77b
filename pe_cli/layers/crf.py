"""Linear-chain CRF layers with Fluid's signatures: linear_chain_crf (the training cost) and
crf_decoding (Viterbi), sharing the transition parameter by its ParamAttr name."""

from ..base.errors import PeError
from ..training.param_attr import ParamAttr
from .checks import check_variable_and_dtype
from .helper import LayerHelper
from .checks import fluid_checks

__all__ = ["linear_chain_crf", "crf_decoding"]


@fluid_checks("linear_chain_crf", input=("float32", "float64"), label=("int64",))
def linear_chain_crf(input, label, param_attr=None, length=None):
    """Per sequence, -log p(label | input) under a linear-chain CRF whose transition parameter
    [D + 2, D] (start row, end row, tag-to-tag rows) this layer creates (or shares by
    ``param_attr``'s name). ``input`` is [N, D] over LoD sequences, or [B, T, D] padded with
    ``length`` [B] (then ``label`` is [B, T] or [B, T, 1]). Returns [num_sequences, 1]."""
    check_variable_and_dtype(input, "input", ("float32", "float64"), "linear_chain_crf")  # Fluid 1.8's TypeErrors
    check_variable_and_dtype(label, "label", ("int64",), "linear_chain_crf")
    helper = LayerHelper("linear_chain_crf", input=input, param_attr=param_attr)
    shape = input.shape or ()
    if len(shape) != (3 if length is not None else 2):
        want = "[B, T, D] with length=" if length is not None else "[N, D] (a LoD sequence), or [B, T, D] with length="
        raise PeError(f"linear_chain_crf '{helper.name}': input {list(shape)} must be {want}")
    size = shape[-1]
    transition = helper.create_parameter(param_attr, [size + 2, size], input.dtype)
    alpha, emission_exps, transition_exps, log_likelihood = (
        helper.create_variable_for_type_inference(input.dtype) for _ in range(4)
    )
    inputs = {"Emission": [input], "Transition": [transition], "Label": [label]}
    if length is not None:
        inputs["Length"] = [length]
    helper.append_op(
        "linear_chain_crf",
        inputs,
        {
            "Alpha": [alpha],
            "EmissionExps": [emission_exps],
            "TransitionExps": [transition_exps],
            "LogLikelihood": [log_likelihood],
        },
    )
    return log_likelihood


def _transition(helper, param_attr):
    name = param_attr if isinstance(param_attr, str) else getattr(ParamAttr._to_attr(param_attr), "name", None)
    block = helper.main_program.global_block()
    if not name or not block.has_var(name):
        raise PeError(
            f"crf_decoding '{helper.name}': param_attr must name the transition parameter of a "
            f"linear_chain_crf built before it (ParamAttr(name=...) on both); "
            f"got {name!r}, which is not a parameter of this program"
        )
    return block.var(name)


def crf_decoding(input, param_attr, label=None, length=None):
    """The best tag path of each sequence under the CRF whose transition parameter ``param_attr``
    names: int64 [N, 1] tag ids (LoD input) or [B, T] (padded, with ``length``). With ``label``,
    1 where the path equals the label and 0 elsewhere."""
    helper = LayerHelper("crf_decoding", input=input)
    transition = _transition(helper, param_attr)
    path = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    inputs = {"Emission": [input], "Transition": [transition]}
    if label is not None:
        inputs["Label"] = [label]
    if length is not None:
        inputs["Length"] = [length]
    helper.append_op("crf_decoding", inputs, {"ViterbiPath": [path]})
    return path
