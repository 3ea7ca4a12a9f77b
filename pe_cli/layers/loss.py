"""Fluid 1.8's ``layers.loss``: the loss layers, which pe defines in its loss_classification,
loss_regression, loss_ranking and loss_sampled modules (and warpctc in ctc.py, edit_distance in
metric.py)."""

from .ctc import warpctc
from .loss_classification import (
    cross_entropy,
    kldiv_loss,
    sigmoid_cross_entropy_with_logits,
    softmax_with_cross_entropy,
    teacher_student_sigmoid_loss,
)
from .loss_ranking import bpr_loss, margin_rank_loss, npair_loss, rank_loss
from .loss_regression import center_loss, huber_loss, mse_loss, square_error_cost
from .loss_sampled import hsigmoid, nce, sampled_softmax_with_cross_entropy
from .sequence_metric import edit_distance

__all__ = [
    "bpr_loss",
    "center_loss",
    "cross_entropy",
    "edit_distance",
    "hsigmoid",
    "huber_loss",
    "kldiv_loss",
    "margin_rank_loss",
    "mse_loss",
    "nce",
    "npair_loss",
    "rank_loss",
    "sampled_softmax_with_cross_entropy",
    "sigmoid_cross_entropy_with_logits",
    "softmax_with_cross_entropy",
    "square_error_cost",
    "teacher_student_sigmoid_loss",
    "warpctc",
]
