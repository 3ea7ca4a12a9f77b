"""``paddle.nn.functional``'s classification losses with 2.x's semantics: cross_entropy (hard or soft
labels, ``ignore_index``, class ``weight``, ``use_softmax``, ``label_smoothing``, ``axis``; pe's
softmax_with_cross_entropy op), softmax_with_cross_entropy, nll_loss, binary_cross_entropy(_with_logits),
sigmoid_focal_loss, log_loss, ctc_loss (warpctc), hsigmoid_loss. ``reduction`` is 'mean', 'sum' or 'none'; a mean over hard labels counts
only the samples not ignored (weighted: divides by their total weight), as Paddle's does. Regression
and ranking losses are in loss_regression.py."""

from .... import layers as L
from ....framework.variable import Variable
from ....layers.helper import LayerHelper
from ... import tensor_create as TC
from ... import tensor_manip as TM
from ... import tensor_math as TMa
from .activation import sigmoid
from .common import one_hot
from ....framework.program_release import paddle_face

__all__ = [
    "cross_entropy",
    "softmax_with_cross_entropy",
    "nll_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "sigmoid_focal_loss",
    "log_loss",
    "ctc_loss",
    "hsigmoid_loss",
    "rnnt_loss",
]


@paddle_face
def reduce_loss(loss, reduction, fn="loss"):
    if reduction == "mean":
        return TMa.mean(loss)
    if reduction == "sum":
        return TMa.sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{fn}: reduction={reduction!r} must be 'mean', 'sum' or 'none'")


def _safe_divide(total, count):
    """total / count, or total when count is 0 (Paddle's ``count + (count == 0)``)."""
    zero = TM.cast(TMa.equal(count, TC.zeros_like(count)), count.dtype)
    return TMa.divide(total, TMa.add(count, zero))


def _ce_op(input, label, soft_label, ignore_index, axis, use_softmax):
    """The per-sample loss, ``axis`` kept with size 1: Paddle 2.6's softmax_with_cross_entropy op (with
    use_softmax=False, ``input`` holds probabilities)."""
    helper = LayerHelper("softmax_with_cross_entropy")
    softmax = helper.create_variable_for_type_inference(input.dtype)
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(
        "softmax_with_cross_entropy",
        {"Logits": [input], "Label": [label]},
        {"Softmax": [softmax], "Loss": [loss]},
        {
            "soft_label": bool(soft_label),
            "ignore_index": int(ignore_index),
            "numeric_stable_mode": True,
            "axis": int(axis),
            "use_softmax": bool(use_softmax),
        },
    )
    return loss


def _class_weight(weight, label, ignore_index, axis, input_dims):
    """weight[label] (0 where label is ignore_index), shaped as label."""
    keep = TM.cast(TMa.not_equal(label, TC.full_like(label, ignore_index)), label.dtype)
    valid = TMa.multiply(label, keep)
    flat = TM.reshape(valid, [-1])
    picked = TM.reshape(TM.gather(weight, flat), [-1 if d in (None, -1) else d for d in label.shape])
    return TMa.multiply(picked, TM.cast(keep, weight.dtype))


@paddle_face
def cross_entropy(
    input,
    label,
    weight=None,
    ignore_index=-100,
    reduction="mean",
    soft_label=False,
    axis=-1,
    use_softmax=True,
    label_smoothing=0.0,
    name=None,
):
    """Cross entropy of ``input`` (logits; probabilities with use_softmax=False) against int class
    labels (shape input's without ``axis``, or with it of size 1) or soft labels (input's shape)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"cross_entropy: reduction={reduction!r} must be 'mean', 'sum' or 'none'")
    input_dims, label_dims = len(input.shape), len(label.shape)
    axis = axis + input_dims if axis < 0 else axis
    if label_smoothing > 0.0:
        if axis != input_dims - 1:
            raise ValueError("cross_entropy: label_smoothing takes axis=-1")
        if not soft_label:
            label = one_hot(TM.squeeze(label, -1) if label_dims == input_dims else label, input.shape[axis])
        label = L.label_smooth(TM.cast(label, input.dtype), epsilon=float(label_smoothing), dtype=input.dtype)
        soft_label, label_dims = True, input_dims
    squeeze_out = not soft_label and label_dims == input_dims - 1
    if squeeze_out:
        label = TM.unsqueeze(label, axis)
    if not soft_label:
        label = TM.cast(label, "int64")
    out = _ce_op(input, label, soft_label, ignore_index, axis, use_softmax)
    w = None
    if weight is not None:
        w = (
            TM.reshape(TMa.matmul(label, TM.unsqueeze(weight, -1)), [-1 if d in (None, -1) else d for d in out.shape])
            if soft_label
            else _class_weight(weight, label, ignore_index, axis, input_dims)
        )
        out = TMa.multiply(out, w)
    if reduction == "sum":
        return TMa.sum(out, name=name)
    if reduction == "mean":
        if w is not None:
            return _safe_divide(TMa.sum(out), TMa.sum(w))
        if soft_label:
            return TMa.mean(out, name=name)
        count = TMa.sum(TM.cast(TMa.not_equal(label, TC.full_like(label, ignore_index)), input.dtype))
        return _safe_divide(TMa.sum(out), count)
    return TM.squeeze(out, axis) if squeeze_out else out


def softmax_with_cross_entropy(
    logits, label, soft_label=False, ignore_index=-100, numeric_stable_mode=True, return_softmax=False, axis=-1
):
    return L.softmax_with_cross_entropy(
        logits, label, soft_label, ignore_index, numeric_stable_mode, return_softmax, axis
    )


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """-weight[label] * input[label] (input: log-probabilities [N, C] or [N, C, d...]; label [N] or
    [N, d...]); the mean divides by the total weight of the samples not ignored."""
    if len(input.shape) > 2:
        input = TM.transpose(input, [0] + list(range(2, len(input.shape))) + [1])
    keep = TM.cast(TMa.not_equal(label, TC.full_like(label, ignore_index)), label.dtype)
    picked = TMa.sum(
        TMa.multiply(input, TM.cast(one_hot(TMa.multiply(label, keep), input.shape[-1]), input.dtype)), axis=-1
    )
    w = TM.cast(keep, input.dtype) if weight is None else _class_weight(weight, label, ignore_index, -1, 2)
    out = TMa.scale(TMa.multiply(picked, w), -1.0)
    if reduction == "mean":
        return _safe_divide(TMa.sum(out), TMa.sum(w))
    return reduce_loss(out, reduction, "nll_loss")


def _weighted(loss, weight):
    return loss if weight is None else TMa.multiply(loss, weight)


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """-(label * log(input) + (1 - label) * log(1 - input)), each log clamped at -100: the bce_loss op, as
    Paddle's, so no gradient flows to ``label`` and an input outside [0, 1] is refused."""
    if weight is not None and not isinstance(weight, Variable):
        raise ValueError("binary_cross_entropy: weight is not a Tensor; convert it to one")
    helper = LayerHelper("binary_cross_entropy")
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("bce_loss", {"X": [input], "Label": [label]}, {"Out": [loss]}, {})
    return reduce_loss(_weighted(loss, weight), reduction, "binary_cross_entropy")


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean", pos_weight=None, name=None):
    """The binary cross entropy of sigmoid(logit), computed stably; ``pos_weight`` scales the
    positive term."""
    if pos_weight is None:
        loss = L.sigmoid_cross_entropy_with_logits(logit, label)
    else:
        # (1 - y) * x + (1 + (pw - 1) * y) * (log(1 + exp(-|x|)) + max(-x, 0))
        soft = TMa.add(TMa.log1p(TMa.exp(TMa.scale(TMa.abs(logit), -1.0))), L.relu(TMa.scale(logit, -1.0)))
        coef = TMa.scale(TMa.multiply(label, TMa.scale(pos_weight, 1.0, -1.0)), 1.0, 1.0)
        loss = TMa.add(TMa.multiply(TMa.scale(label, -1.0, 1.0), logit), TMa.multiply(coef, soft))
    return reduce_loss(_weighted(loss, weight), reduction, "binary_cross_entropy_with_logits")


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum", name=None):
    """alpha_t * (1 - p_t)^gamma * BCE(logit, label), divided by ``normalizer`` when given."""
    p = sigmoid(logit)
    ce = L.sigmoid_cross_entropy_with_logits(logit, label)
    p_t = TMa.add(TMa.multiply(p, label), TMa.multiply(TMa.scale(p, -1.0, 1.0), TMa.scale(label, -1.0, 1.0)))
    loss = TMa.multiply(ce, TMa.pow(TMa.scale(p_t, -1.0, 1.0), float(gamma)))
    if alpha >= 0:
        alpha_t = TMa.add(TMa.scale(label, alpha), TMa.scale(TMa.scale(label, -1.0, 1.0), 1.0 - alpha))
        loss = TMa.multiply(alpha_t, loss)
    if normalizer is not None:
        loss = TMa.divide(loss, normalizer)
    return reduce_loss(loss, reduction, "sigmoid_focal_loss")


def log_loss(input, label, epsilon=0.0001, name=None):
    """-label * log(input + epsilon) - (1 - label) * log(1 - input + epsilon): the log_loss op, as Paddle's (no
    gradient flows to ``label``)."""
    return L.log_loss(input, label, epsilon, name)


@paddle_face
def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean", norm_by_times=False):
    """CTC loss of padded log_probs [T, N, C] against padded labels [N, S] (pe's warpctc op); 'mean'
    averages each sample's loss divided by its label length."""
    loss = TM.squeeze(L.warpctc(log_probs, labels, blank, norm_by_times, input_lengths, label_lengths), -1)
    if reduction == "mean":
        return TMa.mean(TMa.divide(loss, TM.cast(label_lengths, loss.dtype)))
    return reduce_loss(loss, reduction, "ctc_loss")


@paddle_face
def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
    """RNN-T loss (pe's warprnnt op) of input [B, T, U + 1, V] log-probabilities (no softmax is applied,
    as Paddle's) against int32 label [B, U] with int32 lengths [B]; 'mean' is the sum over the batch
    divided by B. FastEmit scales the gradient of label emissions by 1 + fastemit_lambda."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"rnnt_loss: reduction={reduction!r} must be 'mean', 'sum' or 'none'")
    for what, value, dtypes in (
        ("input", input, ("float32", "float64")),
        ("label", label, ("int32",)),
        ("input_lengths", input_lengths, ("int32",)),
        ("label_lengths", label_lengths, ("int32",)),
    ):
        if value.dtype not in dtypes:
            raise TypeError(f"rnnt_loss: {what} must be {' or '.join(dtypes)}, got {value.dtype}")
    helper = LayerHelper("warprnnt", name=name)
    loss = helper.create_variable_for_type_inference(input.dtype)
    grad = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op(
        "warprnnt",
        {"input": [input], "label": [label], "input_lengths": [input_lengths], "label_lengths": [label_lengths]},
        {"warprnntgrad": [grad], "loss": [loss]},
        {"blank": int(blank), "fastemit_lambda": float(fastemit_lambda)},
    )
    if reduction == "mean":
        batch = input.shape[0]
        return TMa.scale(TMa.sum(loss), 1.0 / batch) if batch is not None and batch > 0 else TMa.mean(loss)
    return TMa.sum(loss) if reduction == "sum" else loss


def hsigmoid_loss(
    input, label, num_classes, weight, bias=None, path_table=None, path_code=None, is_sparse=False, name=None
):
    """Hierarchical sigmoid (pe's hierarchical_sigmoid op): weight [num_classes - 1, D] over the default
    tree, or [num_classes, D] with path_table/path_code; [N, 1]."""
    helper = LayerHelper("hierarchical_sigmoid", name=name)
    inputs = {"X": [input], "W": [weight], "Label": [label]}
    if path_table is not None:
        inputs.update(PathTable=[path_table], PathCode=[path_code])
    if bias is not None:
        inputs["Bias"] = [bias]
    out = helper.create_variable_for_type_inference(input.dtype)
    pre_out = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op(
        "hierarchical_sigmoid",
        inputs,
        {"Out": [out], "PreOut": [pre_out], "W_Out": [weight]},
        {"num_classes": int(num_classes), "is_sparse": bool(is_sparse), "remote_prefetch": False},
    )
    return out
