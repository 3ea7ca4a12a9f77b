"""Loss layers."""
__all__ = ["softmax_with_cross_entropy"]
from .helper import LayerHelper


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    helper = LayerHelper("softmax_with_cross_entropy", logits=logits)
    softmax = helper.create_variable_for_type_inference(logits.dtype)
    loss = helper.create_variable_for_type_inference(logits.dtype)
    helper.append_op("softmax_with_cross_entropy", {"Logits": [logits], "Label": [label]},
                     {"Softmax": [softmax], "Loss": [loss]},
                     {"soft_label": soft_label, "ignore_index": ignore_index,
                      "numeric_stable_mode": numeric_stable_mode, "axis": axis})
    return (loss, softmax) if return_softmax else loss
