"""ctc_greedy_decoder of Fluid 1.8's ``fluid.layers``: the best class per step (top_k), then
ctc_align (blanks dropped, repeats merged)."""
__all__ = ["ctc_greedy_decoder"]
from .helper import LayerHelper
from .metric import topk
from .tensor import squeeze


def ctc_greedy_decoder(input, blank, input_length=None, padding_value=0, name=None):
    """Greedy CTC decoding of per-step class scores: ``input`` [T, C] sequences (a LoD), giving int64
    [T', 1] sequences; or padded [N, T, C] with ``input_length`` [N, 1], giving ([N, T] ids padded
    with ``padding_value``, their lengths [N, 1])."""
    helper = LayerHelper("ctc_greedy_decoder", input=input, name=name)
    _, ids = topk(input, k=1)
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    attrs = {"merge_repeated": True, "blank": blank}
    if input_length is None:
        helper.append_op("ctc_align", {"Input": [ids]}, {"Output": [out]}, attrs)
        return out
    length = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op("ctc_align", {"Input": [squeeze(ids, [2])], "InputLength": [input_length]},
                     {"Output": [out], "OutputLength": [length]}, dict(attrs, padding_value=padding_value))
    return out, length
