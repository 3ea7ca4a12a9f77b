"""``paddle.nn.functional.margin_cross_entropy`` and ``class_center_sample`` (Paddle 2.x's face-recognition
loss and PartialFC's class-center sampling) with 2.6.2's signatures: the ops of the loss_margin family
(ops/loss_margin.py) as one process computes them. A ``group`` other than None or False (a collective
group of several processes) is refused: pe splits no class dimension across processes."""

from ....base.errors import PeError
from ....framework import default_main_program
from ....layers.checks import check_variable_and_dtype
from ....layers.helper import LayerHelper
from ... import tensor_manip as TM
from ... import tensor_math as TMa
from ....framework.program_release import paddle_face

__all__ = ["margin_cross_entropy", "class_center_sample"]


def _one_process(group, who):
    if group is not None and group is not False:
        raise PeError(
            f"paddle.nn.functional.{who}: group={group!r}: pe computes it in one process (nranks 1); pass group=None"
        )


@paddle_face
def margin_cross_entropy(
    logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0, group=None, return_softmax=False, reduction="mean"
):
    """-log softmax(scale * z)[label], z the cosines ``logits`` [N, D] with the label's cos(theta) made
    cos(margin1 theta + margin2) - margin3; ``reduction`` 'mean', 'sum', or 'none' / None ([N, 1]);
    with ``return_softmax`` also that softmax."""
    assert reduction in ["mean", "sum", "none", None]
    _one_process(group, "margin_cross_entropy")
    if len(logits.shape) - 1 != len(label.shape) and len(logits.shape) != len(label.shape):
        raise ValueError(
            f"Expected input_dims - 1 = label_dims or input_dims == label_dims (got input_dims"
            f"{len(logits.shape)}, label_dims{len(label.shape)})"
        )
    if len(logits.shape) - 1 == len(label.shape):
        label = TM.unsqueeze(label, axis=-1)
    check_variable_and_dtype(logits, "logits", ("float16", "float32", "float64"), "margin_cross_entropy")
    check_variable_and_dtype(label, "label", ("int32", "int64"), "margin_cross_entropy")
    helper = LayerHelper("margin_cross_entropy")
    softmax = helper.create_variable_for_type_inference(logits.dtype)
    loss = helper.create_variable_for_type_inference(logits.dtype)
    helper.append_op(
        "margin_cross_entropy",
        {"Logits": [logits], "Label": [label]},
        {"Softmax": [softmax], "Loss": [loss]},
        {
            "return_softmax": bool(return_softmax),
            "ring_id": 0,
            "rank": 0,
            "nranks": 1,
            "margin1": float(margin1),
            "margin2": float(margin2),
            "margin3": float(margin3),
            "scale": float(scale),
        },
    )
    if reduction == "mean":
        loss = TMa.mean(loss)
    elif reduction == "sum":
        loss = TMa.sum(loss)
    return (loss, softmax) if return_softmax else loss


def class_center_sample(label, num_classes, num_samples, group=None):
    """(each label's place among the sampled class centers, the centers: the labels' classes ascending,
    then random others up to ``num_samples``); seeded by the program's random_seed when it has one."""
    _one_process(group, "class_center_sample")
    if num_samples > num_classes:
        raise ValueError(f"Expected num_samples less than or equal to {num_classes}, got num_samples {num_samples}")
    if len(label.shape) != 1:
        raise ValueError(f"Expected label_dims == 1 (got label_dims: {len(label.shape)})")
    check_variable_and_dtype(label, "label", ("int64", "int32"), "class_center_sample")
    seed = default_main_program().random_seed or None
    helper = LayerHelper("class_center_sample")
    remapped = helper.create_variable_for_type_inference(label.dtype, stop_gradient=True)
    centers = helper.create_variable_for_type_inference(label.dtype, stop_gradient=True)
    helper.append_op(
        "class_center_sample",
        {"Label": [label]},
        {"RemappedLabel": [remapped], "SampledLocalClassCenter": [centers]},
        {
            "num_classes": int(num_classes),
            "num_samples": int(num_samples),
            "ring_id": 0,
            "nranks": 1,
            "rank": 0,
            "fix_seed": seed is not None,
            "seed": seed or 0,
        },
    )
    return remapped, centers
