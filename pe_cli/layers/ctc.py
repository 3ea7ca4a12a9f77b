"""CTC layers of Fluid 1.8's ``fluid.layers``: warpctc (the CTC loss) and ctc_greedy_decoder (the best
class per step, top_k, then ctc_align: blanks dropped, repeats merged)."""

__all__ = ["ctc_greedy_decoder", "warpctc"]
from .checks import check_variable_and_dtype, fluid_checks, optional
from .helper import LayerHelper
from .indexing import topk
from .manipulation import squeeze


def ctc_greedy_decoder(input, blank, input_length=None, padding_value=0, name=None):
    """Greedy CTC decoding of per-step class scores: ``input`` [T, C] sequences (a LoD), giving int64
    [T', 1] sequences; or padded [N, T, C] with ``input_length`` [N, 1], giving ([N, T] ids padded
    with ``padding_value``, their lengths [N, 1])."""
    check_variable_and_dtype(input, "input", ("float32", "float64"), "ctc_greedy_decoder")
    helper = LayerHelper("ctc_greedy_decoder", input=input, name=name)
    _, ids = topk(input, k=1)
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    attrs = {"merge_repeated": True, "blank": blank}
    if input_length is None:
        helper.append_op("ctc_align", {"Input": [ids]}, {"Output": [out]}, attrs)
        return out
    length = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(
        "ctc_align",
        {"Input": [squeeze(ids, [2])], "InputLength": [input_length]},
        {"Output": [out], "OutputLength": [length]},
        dict(attrs, padding_value=padding_value),
    )
    return out, length


@fluid_checks(
    "warpctc",
    input=("float32",),
    label=("int32",),
    input_length=optional(("int64",)),
    label_length=optional(("int64",)),
)
def warpctc(input, label, blank=0, norm_by_times=False, input_length=None, label_length=None):
    """The CTC loss [sequences, 1] of unscaled logits ``input`` against ``label``: LoD sequences
    ([steps, classes] and [length, 1] int32), or time-major padded [max_time, batch, classes] logits
    and [batch, max_length] labels with int64 ``input_length`` and ``label_length``.
    ``norm_by_times`` divides the gradient (not the loss) by each sequence's steps, as Fluid."""
    helper = LayerHelper("warpctc", input=input)
    inputs = {"Logits": [input], "Label": [label]}
    if input_length is not None and label_length is not None:
        inputs.update(LogitsLength=[input_length], LabelLength=[label_length])
    loss = helper.create_variable_for_type_inference(input.dtype)
    grad = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op(
        "warpctc",
        inputs,
        {"WarpCTCGrad": [grad], "Loss": [loss]},
        {"blank": blank, "norm_by_times": bool(norm_by_times)},
    )
    return loss
