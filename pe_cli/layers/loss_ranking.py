"""Ranking loss layers of Fluid 1.8's ``fluid.layers``, with its signatures: margin_rank_loss,
rank_loss, bpr_loss."""
__all__ = ["margin_rank_loss", "rank_loss", "bpr_loss"]
from .helper import LayerHelper
from .loss_classification import _outputs


def margin_rank_loss(label, left, right, margin=0.1, name=None):
    """max(0, -label * (left - right) + margin) per pair; label is 1 (left should rank higher) or -1."""
    helper = LayerHelper("margin_rank_loss", left=left, name=name)
    out, act = _outputs(helper, left.dtype, 2)
    helper.append_op("margin_rank_loss", {"X1": [left], "X2": [right], "Label": [label]},
                     {"Out": [out], "Activated": [act]}, {"margin": float(margin)})
    return out


def rank_loss(label, left, right, name=None):
    """RankNet's loss: log(1 + exp(left - right)) - label * (left - right), shapes [N, 1]."""
    helper = LayerHelper("rank_loss", left=left, name=name)
    out = helper.create_variable_for_type_inference(left.dtype)
    helper.append_op("rank_loss", {"Label": [label], "Left": [left], "Right": [right]}, {"Out": [out]})
    return out


def bpr_loss(input, label, name=None):
    """Bayesian personalized ranking: per row of item scores ``input`` and its positive item
    ``label`` (int64 [N, 1]), the mean over the other items of log(1 + exp(score - positive's))."""
    helper = LayerHelper("bpr_loss", input=input, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("bpr_loss", {"X": [input], "Label": [label]}, {"Y": [out]})
    return out
