"""``paddle.nn``'s loss layers: each holds the arguments it was made with and calls its
``paddle.nn.functional`` form on (input, label); HSigmoidLoss holds its weights."""

from .. import functional as F
from ..functional.loss_regression import check_margin
from ..layer import Layer

__all__ = [
    "CrossEntropyLoss",
    "NLLLoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "MSELoss",
    "L1Loss",
    "SmoothL1Loss",
    "KLDivLoss",
    "MarginRankingLoss",
    "HingeEmbeddingLoss",
    "CosineEmbeddingLoss",
    "SoftMarginLoss",
    "TripletMarginLoss",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
    "MultiLabelSoftMarginLoss",
    "MultiMarginLoss",
    "TripletMarginWithDistanceLoss",
    "CTCLoss",
    "RNNTLoss",
    "HSigmoidLoss",
]


class _Loss(Layer):
    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none", "batchmean"):
            raise ValueError(f"{type(self).__name__}: reduction={reduction!r} must be 'mean', 'sum' or 'none'")
        self.reduction = reduction


class CrossEntropyLoss(_Loss):
    def __init__(
        self,
        weight=None,
        ignore_index=-100,
        reduction="mean",
        soft_label=False,
        axis=-1,
        use_softmax=True,
        label_smoothing=0.0,
        name=None,
    ):
        super().__init__(reduction)
        self.weight, self.ignore_index, self.soft_label = weight, ignore_index, soft_label
        self.axis, self.use_softmax, self.label_smoothing = axis, use_softmax, label_smoothing

    def forward(self, input, label):
        return F.cross_entropy(
            input,
            label,
            self.weight,
            self.ignore_index,
            self.reduction,
            self.soft_label,
            self.axis,
            self.use_softmax,
            self.label_smoothing,
        )


class NLLLoss(_Loss):
    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def forward(self, input, label):
        return F.nll_loss(input, label, self.weight, self.ignore_index, self.reduction)


class BCELoss(_Loss):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self.weight, self.reduction, self.pos_weight)


class MSELoss(_Loss):
    def __init__(self, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.mse_loss(input, label, self.reduction)


class L1Loss(_Loss):
    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.l1_loss(input, label, self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, reduction="mean", delta=1.0, name=None):
        super().__init__(reduction)
        self.delta = delta

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta)


class KLDivLoss(_Loss):
    def __init__(self, reduction="mean"):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.kl_div(input, label, self.reduction)


class MarginRankingLoss(_Loss):
    def __init__(self, margin=0.0, reduction="mean", name=None):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction)


class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, reduction="mean", name=None):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, self.margin, self.reduction)


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0, reduction="mean", name=None):
        check_margin(margin, "CosineEmbeddingLoss")
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction)


class SoftMarginLoss(_Loss):
    def __init__(self, reduction="mean", name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction)


class TripletMarginLoss(_Loss):
    def __init__(self, margin=1.0, p=2.0, epsilon=1e-06, swap=False, reduction="mean", name=None):
        super().__init__(reduction)
        self.margin, self.p, self.epsilon, self.swap = margin, p, epsilon, swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(
            input, positive, negative, self.margin, self.p, self.epsilon, self.swap, self.reduction
        )


class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, epsilon=1e-08, reduction="mean", name=None):
        super().__init__(reduction)
        self.log_input, self.full, self.epsilon = log_input, full, epsilon

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon, self.reduction)


class GaussianNLLLoss(_Loss):
    def __init__(self, full=False, epsilon=1e-06, reduction="mean", name=None):
        super().__init__(reduction)
        self.full, self.epsilon = full, epsilon

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon, self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    def __init__(self, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, self.weight, self.reduction)


class MultiMarginLoss(_Loss):
    def __init__(self, p=1, margin=1.0, weight=None, reduction="mean", name=None):
        super().__init__(reduction)
        self.p, self.margin, self.weight = p, margin, weight

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, self.p, self.margin, self.weight, self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction="mean", name=None):
        super().__init__(reduction)
        self.distance_function, self.margin, self.swap = distance_function, margin, swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(
            input, positive, negative, self.distance_function, self.margin, self.swap, self.reduction
        )


class CTCLoss(_Loss):
    def __init__(self, blank=0, reduction="mean"):
        super().__init__(reduction)
        self.blank = blank

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank, self.reduction, norm_by_times)


class RNNTLoss(_Loss):
    def __init__(self, blank=0, fastemit_lambda=0.001, reduction="mean", name=None):
        super().__init__(reduction)
        self.blank, self.fastemit_lambda, self.name = blank, fastemit_lambda, name

    def forward(self, input, label, input_lengths, label_lengths):
        return F.rnnt_loss(
            input, label, input_lengths, label_lengths, self.blank, self.fastemit_lambda, self.reduction, self.name
        )


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid over num_classes: weight [num_classes - 1, feature_size] (num_classes rows
    with a custom tree), bias [rows, 1]."""

    def __init__(
        self, feature_size, num_classes, weight_attr=None, bias_attr=None, is_custom=False, is_sparse=False, name=None
    ):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError(f"HSigmoidLoss: num_classes={num_classes} must be >= 2")
        rows = num_classes if is_custom else num_classes - 1
        self._num_classes, self._is_sparse = num_classes, is_sparse
        self.weight = self.create_parameter([rows, feature_size], weight_attr)
        self.bias = self.create_parameter([rows, 1], bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(
            input, label, self._num_classes, self.weight, self.bias, path_table, path_code, self._is_sparse
        )
