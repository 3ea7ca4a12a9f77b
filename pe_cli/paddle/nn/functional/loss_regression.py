"""``paddle.nn.functional``'s regression, ranking and embedding losses (2.x's names and semantics),
each a few registered ops: mse_loss, l1_loss, smooth_l1_loss (pe's huber_loss op, 2.x's ``delta``),
kl_div (kldiv_loss), square_error_cost, margin_ranking_loss, hinge_embedding_loss,
cosine_embedding_loss, soft_margin_loss, triplet_margin_loss, poisson_nll_loss, gaussian_nll_loss,
multi_label_soft_margin_loss, dice_loss, multi_margin_loss,
triplet_margin_with_distance_loss and npair_loss. ``reduction`` is 'mean', 'sum' or 'none'."""

import math

from .... import layers as L
from ....layers.helper import LayerHelper
from ... import tensor_create as TC
from ... import tensor_manip as TM
from ... import tensor_math as TMa
from .activation import log_sigmoid, relu
from .common import cosine_similarity, one_hot, pairwise_distance
from .loss import reduce_loss
from ....framework.program_release import paddle_face

__all__ = [
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "kl_div",
    "square_error_cost",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "cosine_embedding_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "poisson_nll_loss",
    "gaussian_nll_loss",
    "multi_label_soft_margin_loss",
    "dice_loss",
    "multi_margin_loss",
    "triplet_margin_with_distance_loss",
    "npair_loss",
]


def square_error_cost(input, label):
    return TMa.square(TMa.subtract(input, label))


def mse_loss(input, label, reduction="mean", name=None):
    return reduce_loss(square_error_cost(input, label), reduction, "mse_loss")


def l1_loss(input, label, reduction="mean", name=None):
    return reduce_loss(TMa.abs(TMa.subtract(input, label)), reduction, "l1_loss")


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, name=None):
    """0.5 * d^2 where |d| < delta, else delta * (|d| - 0.5 * delta); d = input - label."""
    helper = LayerHelper("huber_loss", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    residual = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op(
        "huber_loss", {"X": [input], "Y": [label]}, {"Out": [out], "Residual": [residual]}, {"delta": float(delta)}
    )
    return reduce_loss(out, reduction, "smooth_l1_loss")


@paddle_face
def kl_div(input, label, reduction="mean", name=None):
    """label * (log(label) - input) (input: log-probabilities); reduction also 'batchmean'."""
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"kl_div: reduction={reduction!r} must be 'mean', 'batchmean', 'sum' or 'none'")
    if {str(input.dtype), str(label.dtype)} == {"float32", "float64"}:  # (Paddle's: the float32 one cast up)
        input, label = TM.cast(input, "float64"), TM.cast(label, "float64")
    loss = L.kldiv_loss(input, label, "none", name)  # reduced as Paddle 2.6's: 0-D, the batch size read at run time
    if reduction == "batchmean":
        return TMa.divide(TMa.sum(loss), TM.cast(TM.shape(input)[0], loss.dtype))
    return reduce_loss(loss, reduction, "kl_div")


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """max(0, -label * (input - other) + margin). The result's name starts with
    ``margin_ranking_loss_N`` (its layer's, as Paddle's)."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            f"The value of 'reduction' in MarginRankingLoss should be 'sum', 'mean' or 'none', but "
            f"received {reduction}, which is not allowed."
        )
    diff = TMa.multiply(TMa.scale(label, -1.0), TMa.subtract(input, other))
    layer = LayerHelper("margin_ranking_loss").name
    hinge = relu(TMa.scale(diff, 1.0, float(margin)), name=layer if reduction == "none" else None)
    return hinge if reduction == "none" else (TMa.mean if reduction == "mean" else TMa.sum)(hinge, name=layer)


def _where_positive(label, pos, neg):
    """pos where label == 1, else neg."""
    is_pos = TM.cast(TMa.equal(label, TC.ones_like(label)), pos.dtype)
    return TMa.add(TMa.multiply(is_pos, pos), TMa.multiply(TMa.scale(is_pos, -1.0, 1.0), neg))


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """input where label is 1, max(0, margin - input) where it is -1."""
    if reduction not in ("sum", "mean", "none"):
        raise ValueError(
            f"'reduction' in 'hinge_embedding_loss' should be 'sum', 'mean' or 'none', but received {reduction}."
        )
    loss = _where_positive(label, input, relu(TMa.scale(input, -1.0, float(margin))))
    return reduce_loss(loss, reduction, "hinge_embedding_loss")


def check_margin(margin, where):
    """A cosine margin outside [-1, 1] is a ValueError."""
    if not -1 <= margin <= 1:
        raise ValueError(f"{where}: margin={margin} must be in the interval [-1, 1]")


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """1 - cos(input1, input2) where label is 1, max(0, cos - margin) where it is -1; ``margin`` is
    in [-1, 1] (a ValueError otherwise, as Paddle's)."""
    check_margin(margin, "cosine_embedding_loss")
    cos = cosine_similarity(input1, input2, axis=-1)
    loss = _where_positive(label, TMa.scale(cos, -1.0, 1.0), relu(TMa.scale(cos, 1.0, -float(margin))))
    return reduce_loss(loss, reduction, "cosine_embedding_loss")


def soft_margin_loss(input, label, reduction="mean", name=None):
    """log(1 + exp(-label * input))."""
    loss = TMa.scale(log_sigmoid(TMa.multiply(TM.cast(label, input.dtype), input)), -1.0)
    return reduce_loss(loss, reduction, "soft_margin_loss")


def triplet_margin_loss(
    input, positive, negative, margin=1.0, p=2, epsilon=1e-06, swap=False, reduction="mean", name=None
):
    """max(d(input, positive) - d(input, negative) + margin, 0), d the p-norm distance."""
    d_pos = pairwise_distance(input, positive, p, epsilon)
    d_neg = pairwise_distance(input, negative, p, epsilon)
    if swap:
        d_neg = TMa.minimum(d_neg, pairwise_distance(positive, negative, p, epsilon))
    loss = relu(TMa.scale(TMa.subtract(d_pos, d_neg), 1.0, float(margin)))
    return reduce_loss(loss, reduction, "triplet_margin_loss")


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-08, reduction="mean", name=None):
    """exp(input) - label * input (log_input), else input - label * log(input + epsilon); ``full``
    adds Stirling's term for label > 1."""
    if log_input:
        loss = TMa.subtract(TMa.exp(input), TMa.multiply(label, input))
    else:
        loss = TMa.subtract(input, TMa.multiply(label, TMa.log(TMa.scale(input, 1.0, float(epsilon)))))
    if full:
        safe = TMa.maximum(label, TC.ones_like(label))
        stirling = TMa.add(
            TMa.subtract(TMa.multiply(label, TMa.log(safe)), label),
            TMa.scale(TMa.log(TMa.scale(safe, 2 * math.pi)), 0.5),
        )
        keep = TM.cast(TMa.greater_than(label, TC.ones_like(label)), input.dtype)
        loss = TMa.add(loss, TMa.multiply(stirling, keep))
    return reduce_loss(loss, reduction, "poisson_nll_loss")


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-06, reduction="mean", name=None):
    """0.5 * (log(max(variance, epsilon)) + (input - label)^2 / max(variance, epsilon)) (+ 0.5 log 2pi)."""
    var = TMa.clip(variance, min=float(epsilon))
    loss = TMa.scale(TMa.add(TMa.log(var), TMa.divide(TMa.square(TMa.subtract(input, label)), var)), 0.5)
    if full:
        loss = TMa.scale(loss, 1.0, 0.5 * math.log(2 * math.pi))
    return reduce_loss(loss, reduction, "gaussian_nll_loss")


@paddle_face
def multi_label_soft_margin_loss(input, label, weight=None, reduction="mean", name=None):
    """-mean over classes of (label * log sigmoid(input) + (1 - label) * log sigmoid(-input))."""
    label = TM.cast(label, input.dtype)
    loss = TMa.add(
        TMa.multiply(label, log_sigmoid(input)),
        TMa.multiply(TMa.scale(label, -1.0, 1.0), log_sigmoid(TMa.scale(input, -1.0))),
    )
    if weight is not None:
        loss = TMa.multiply(loss, weight)
    loss = TMa.scale(TMa.mean(loss, axis=-1), -1.0)
    return reduce_loss(loss, reduction, "multi_label_soft_margin_loss")


@paddle_face
def dice_loss(input, label, epsilon=1e-05, name=None):
    """1 - 2 * |input * one_hot(label)| / (|input| + |one_hot(label)|) per sample, averaged."""
    hot = TM.cast(one_hot(TM.squeeze(label, -1), input.shape[-1]), input.dtype)
    dims = list(range(1, len(input.shape)))
    inter = TMa.sum(TMa.multiply(input, hot), axis=dims)
    union = TMa.add(TMa.sum(input, axis=dims), TMa.sum(hot, axis=dims))
    dice = TMa.divide(TMa.scale(inter, 2.0), TMa.scale(union, 1.0, float(epsilon)))
    return TMa.mean(TMa.scale(dice, -1.0, 1.0))


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction="mean", name=None):
    """sum over j != label of max(0, margin - input[label] + input[j])^p / C (times weight[label])."""
    classes = input.shape[-1]
    hot = TM.cast(one_hot(label, classes), input.dtype)
    target = TMa.sum(TMa.multiply(input, hot), axis=-1, keepdim=True)
    terms = relu(TMa.add(TMa.scale(target, -1.0, float(margin)), input))
    if p != 1:
        terms = TMa.pow(terms, float(p))
    loss = TMa.scale(TMa.sum(TMa.multiply(terms, TMa.scale(hot, -1.0, 1.0)), axis=-1), 1.0 / classes)
    if weight is not None:
        loss = TMa.multiply(loss, TM.gather(weight, label))
    return reduce_loss(loss, reduction, "multi_margin_loss")


def triplet_margin_with_distance_loss(
    input, positive, negative, distance_function=None, margin=1.0, swap=False, reduction="mean", name=None
):
    """max(d(input, positive) - d(input, negative) + margin, 0), d ``distance_function`` (default
    pairwise_distance)."""
    distance = distance_function or pairwise_distance
    d_pos, d_neg = distance(input, positive), distance(input, negative)
    if swap:
        d_neg = TMa.minimum(d_neg, distance(positive, negative))
    loss = relu(TMa.scale(TMa.subtract(d_pos, d_neg), 1.0, float(margin)))
    return reduce_loss(loss, reduction, "triplet_margin_with_distance_loss")


@paddle_face
def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """Cross entropy of anchor @ positive^T against the rows' same-label targets (each row sums to 1),
    plus l2_reg / 4 times the mean squared norms of anchor and positive, as Paddle's."""
    lab = TM.cast(TM.reshape(labels, [-1, 1]), anchor.dtype)
    same = TMa.abs(TMa.subtract(lab, TM.transpose(lab, [1, 0])))
    target = TM.cast(TMa.less_than(same, TC.full_like(same, 0.5)), anchor.dtype)
    target = TMa.divide(target, TMa.sum(target, axis=1, keepdim=True))
    l2 = TMa.add(TMa.mean(TMa.sum(TMa.square(anchor), axis=1)), TMa.mean(TMa.sum(TMa.square(positive), axis=1)))
    similarity = TMa.matmul(anchor, positive, transpose_y=True)
    ce = L.softmax_with_cross_entropy(similarity, target, soft_label=True)
    return TMa.add(TMa.scale(l2, 0.25 * float(l2_reg)), TMa.mean(TMa.sum(TMa.multiply(target, ce), axis=0)))
