"""Classification loss layers of Fluid 1.8's ``fluid.layers``, with its signatures:
softmax_with_cross_entropy, cross_entropy, sigmoid_cross_entropy_with_logits, label_smooth,
kldiv_loss, teacher_student_sigmoid_loss. ``_outputs`` serves the other loss layers too."""

__all__ = [
    "softmax_with_cross_entropy",
    "cross_entropy",
    "sigmoid_cross_entropy_with_logits",
    "label_smooth",
    "kldiv_loss",
    "teacher_student_sigmoid_loss",
    "log_loss",
    "dice_loss",
]
from ..base.errors import PeError
from .helper import LayerHelper
from .indexing import one_hot
from .manipulation import reshape
from .reduction import reduce_mean, reduce_sum
from .checks import check_variable_and_dtype, fluid_checks


def softmax_with_cross_entropy(
    logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True, return_softmax=False, axis=-1
):
    helper = LayerHelper("softmax_with_cross_entropy", logits=logits)
    softmax = helper.create_variable_for_type_inference(logits.dtype)
    loss = helper.create_variable_for_type_inference(logits.dtype)
    helper.append_op(
        "softmax_with_cross_entropy",
        {"Logits": [logits], "Label": [label]},
        {"Softmax": [softmax], "Loss": [loss]},
        {
            "soft_label": soft_label,
            "ignore_index": ignore_index,
            "numeric_stable_mode": numeric_stable_mode,
            "axis": axis,
        },
    )
    return (loss, softmax) if return_softmax else loss


def cross_entropy(input, label, soft_label=False, ignore_index=-100):
    """Y = -log(input[label]) per row; ``input`` holds probabilities (e.g. a softmax output). Hard
    labels build the op ``cross_entropy2`` and soft ones ``cross_entropy``, as Fluid 1.x does. A hard
    label without the trailing 1 (``[N]`` for input ``[N, C]``) is taken as Fluid 1.8 takes it: the
    loss then has the label's shape."""
    check_variable_and_dtype(input, "input", ("float16", "float32", "float64"), "cross_entropy")
    if (
        not soft_label
        and label.shape is not None
        and input.shape is not None
        and len(label.shape) == len(input.shape) - 1
    ):
        rank = len(label.shape)
        out = cross_entropy(input, reshape(label, [0] * rank + [1]), soft_label, ignore_index)
        return reshape(out, [0] * (rank - 1) + [-1])
    if not soft_label:
        helper = LayerHelper("cross_entropy2", input=input)
        out, xshape, match_x = (helper.create_variable_for_type_inference(input.dtype) for _ in range(3))
        helper.append_op(
            "cross_entropy2",
            {"X": [input], "Label": [label]},
            {"Y": [out], "MatchX": [match_x], "XShape": [xshape]},
            {"ignore_index": ignore_index},
        )
        return out
    helper = LayerHelper("cross_entropy", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(
        "cross_entropy",
        {"X": [input], "Label": [label]},
        {"Y": [out]},
        {"soft_label": True, "ignore_index": ignore_index},
    )
    return out


@fluid_checks("sigmoid_cross_entropy_with_logits", x=("float16", "float32", "float64"))
def sigmoid_cross_entropy_with_logits(x, label, ignore_index=-100, name=None, normalize=False):
    helper = LayerHelper("sigmoid_cross_entropy_with_logits", x=x, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(
        "sigmoid_cross_entropy_with_logits",
        {"X": [x], "Label": [label]},
        {"Out": [out]},
        {"ignore_index": ignore_index, "normalize": normalize},
    )
    return out


@fluid_checks("label_smooth", label=("float32", "float64"))
def label_smooth(label, prior_dist=None, epsilon=0.1, dtype="float32", name=None):
    """(1 - epsilon) * label + epsilon * prior_dist (uniform 1 / classes without it), for one-hot
    labels. ``label`` becomes stop_gradient, as Fluid 1.8's and Paddle 2.6's static label_smooth make it: no
    gradient flows back through it (nor to what computed it)."""
    if not 0 <= epsilon <= 1:
        raise PeError(f"label_smooth: epsilon={epsilon} must lie in [0, 1]")
    helper = LayerHelper("label_smooth", label=label, name=name)
    label.stop_gradient = True
    out = helper.create_variable_for_type_inference(label.dtype)
    inputs = {"X": [label]}
    if prior_dist is not None:
        inputs["PriorDist"] = [prior_dist]
    helper.append_op("label_smooth", inputs, {"Out": [out]}, {"epsilon": float(epsilon)})
    return out


@fluid_checks("kldiv_loss", x=("float32", "float64"), target=("float32", "float64"), reduction=str)
def kldiv_loss(x, target, reduction="mean", name=None):
    """The Kullback-Leibler divergence of ``target`` from exp(x) (x holds log-probabilities), reduced
    by ``reduction``: 'none', 'batchmean', 'mean' or 'sum'."""
    helper = LayerHelper("kldiv_loss", x=x, name=name)
    loss = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("kldiv_loss", {"X": [x], "Target": [target]}, {"Loss": [loss]}, {"reduction": reduction})
    return loss


def teacher_student_sigmoid_loss(input, label, soft_max_up_bound=15.0, soft_max_lower_bound=-15.0):
    """Sigmoid cross-entropy of logits ``input`` [N, 1] with a click and an optional teacher value
    coded in ``label`` [N, 1]: -2 / -1 (no teacher, click 0 / 1), q / 1 + q (teacher q, click 0 / 1).
    The gradient is 0 where the logit lies outside (soft_max_lower_bound, soft_max_up_bound)."""
    check_variable_and_dtype(input, "input", ("float32", "float64"), "teacher_student_sigmoid_loss")  # Fluid 1.8's
    check_variable_and_dtype(label, "label", ("float32", "float64"), "teacher_student_sigmoid_loss")
    helper = LayerHelper("teacher_student_sigmoid_loss", input=input)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(
        "teacher_student_sigmoid_loss",
        {"X": [input], "Label": [label]},
        {"Y": [out]},
        {"soft_max_up_bound": float(soft_max_up_bound), "soft_max_lower_bound": float(soft_max_lower_bound)},
    )
    return out


def _outputs(helper, dtype, n, stop_gradient=False):
    return [helper.create_variable_for_type_inference(dtype, stop_gradient=stop_gradient) for _ in range(n)]


def log_loss(input, label, epsilon=1e-4, name=None):
    """The negative log likelihood of probabilities ``input`` [N, 1] against 0/1 ``label`` [N, 1]
    (float32, as Fluid's check): -label log(input + epsilon) - (1 - label) log(1 - input + epsilon)."""
    check_variable_and_dtype(input, "input", ("float32",), "log_loss")
    check_variable_and_dtype(label, "label", ("float32",), "log_loss")
    helper = LayerHelper("log_loss", input=input, name=name)
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("log_loss", {"Predicted": [input], "Labels": [label]}, {"Loss": [loss]}, {"epsilon": epsilon})
    return loss


def dice_loss(input, label, epsilon=0.00001, name=None):
    """1 - 2 |input * one_hot(label)| / (|input| + |one_hot(label)| + epsilon) per sample (sums over every
    dim but the first), averaged over the batch: ``input`` [N, ..., K] holds probabilities, ``label``
    [N, ..., 1] class ids (Fluid's composition of one_hot, reduce_sum and reduce_mean)."""
    label = one_hot(label, depth=input.shape[-1])
    dims = list(range(1, len(input.shape)))
    inse = reduce_sum(input * label, dim=dims)
    denominator = reduce_sum(input, dim=dims) + reduce_sum(label, dim=dims)
    return reduce_mean(1 - inse * 2 / (denominator + epsilon))
