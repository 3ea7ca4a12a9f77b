"""Ranking loss layers of Fluid 1.8's ``fluid.layers``, with its signatures: margin_rank_loss,
rank_loss, bpr_loss; and npair_loss (metric learning), composed of other layers as Fluid's."""

__all__ = ["margin_rank_loss", "rank_loss", "bpr_loss", "npair_loss"]
from .activation import square
from .helper import LayerHelper
from .linalg import matmul
from .logic import equal
from .loss_classification import _outputs, softmax_with_cross_entropy
from .manipulation import cast, reshape, tiled, transpose
from .reduction import reduce_mean, reduce_sum
from .checks import FLOAT32_64, check_variable_and_dtype, fluid_checks


@fluid_checks("margin_rank_loss", label=("float32",))
def margin_rank_loss(label, left, right, margin=0.1, name=None):
    """max(0, -label * (left - right) + margin) per pair; label is 1 (left should rank higher) or -1."""
    helper = LayerHelper("margin_rank_loss", left=left, name=name)
    out, act = _outputs(helper, left.dtype, 2)
    helper.append_op(
        "margin_rank_loss",
        {"X1": [left], "X2": [right], "Label": [label]},
        {"Out": [out], "Activated": [act]},
        {"margin": float(margin)},
    )
    return out


@fluid_checks("rank_loss", label=("float32",), left=("float32",), right=("float32",))
def rank_loss(label, left, right, name=None):
    """RankNet's loss: log(1 + exp(left - right)) - label * (left - right), shapes [N, 1]."""
    helper = LayerHelper("rank_loss", left=left, name=name)
    out = helper.create_variable_for_type_inference(left.dtype)
    helper.append_op("rank_loss", {"Label": [label], "Left": [left], "Right": [right]}, {"Out": [out]})
    return out


@fluid_checks("bpr_loss", input=("float16", "float32", "float64"))
def bpr_loss(input, label, name=None):
    """Bayesian personalized ranking: per row of item scores ``input`` and its positive item
    ``label`` (int64 [N, 1]), the mean over the other items of log(1 + exp(score - positive's))."""
    helper = LayerHelper("bpr_loss", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("bpr_loss", {"X": [input], "Label": [label]}, {"Y": [out]})
    return out


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """The N-pair loss of embeddings ``anchor`` and ``positive`` [B, D] with class ``labels`` [B]: the
    soft-label cross entropy of the similarity matrix anchor positive^T against the same-class matrix
    (rows normalized), weighted by it, summed over rows and averaged, plus l2_reg / 4 times the mean
    squared norms of both embeddings. B must be known when it is built."""
    check_variable_and_dtype(anchor, "anchor", FLOAT32_64, "npair_loss")
    check_variable_and_dtype(positive, "positive", FLOAT32_64, "npair_loss")
    check_variable_and_dtype(labels, "labels", FLOAT32_64 + ("int64",), "npair_loss")
    batch_size = labels.shape[0]
    labels = reshape(labels, shape=[batch_size, 1], inplace=True)
    labels = tiled(labels, expand_times=[1, batch_size])
    labels = cast(equal(labels, transpose(labels, perm=[1, 0])), "float32")
    labels = labels / reduce_sum(labels, dim=1, keep_dim=True)
    l2loss = reduce_mean(reduce_sum(square(anchor), 1)) + reduce_mean(reduce_sum(square(positive), 1))
    l2loss = l2loss * 0.25 * l2_reg
    similarity = matmul(anchor, positive, transpose_x=False, transpose_y=True)
    softmax_ce = softmax_with_cross_entropy(logits=similarity, label=labels, soft_label=True)
    return l2loss + reduce_mean(reduce_sum(labels * softmax_ce, 0))
