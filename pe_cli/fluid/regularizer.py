"""``paddle.fluid.regularizer``."""

from ..training.regularizer import (
    L1Decay,
    L1DecayRegularizer,
    L2Decay,
    L2DecayRegularizer,  # noqa: F401
    WeightDecayRegularizer,
    append_regularization_ops,
)

__all__ = ["L1Decay", "L2Decay", "L1DecayRegularizer", "L2DecayRegularizer"]
