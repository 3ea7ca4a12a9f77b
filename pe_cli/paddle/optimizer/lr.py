"""``paddle.optimizer.lr``: Paddle 2.x's 18 learning-rate schedulers (lr_scheduler.py: the base and
the decays; lr_cyclic.py: the cycles, warm restarts and ReduceOnPlateau)."""

from .lr_cyclic import CosineAnnealingWarmRestarts, CyclicLR, LinearLR, OneCycleLR, ReduceOnPlateau  # noqa: F401
from .lr_scheduler import (
    CosineAnnealingDecay,
    ExponentialDecay,
    InverseTimeDecay,
    LambdaDecay,  # noqa: F401
    LinearWarmup,
    LRScheduler,
    MultiplicativeDecay,
    MultiStepDecay,
    NaturalExpDecay,
    NoamDecay,
    PiecewiseDecay,
    PolynomialDecay,
    StepDecay,
)

__all__ = [
    "LRScheduler",
    "NoamDecay",
    "PiecewiseDecay",
    "NaturalExpDecay",
    "InverseTimeDecay",
    "PolynomialDecay",
    "LinearWarmup",
    "ExponentialDecay",
    "MultiStepDecay",
    "StepDecay",
    "LambdaDecay",
    "ReduceOnPlateau",
    "CosineAnnealingDecay",
    "MultiplicativeDecay",
    "OneCycleLR",
    "CyclicLR",
    "LinearLR",
    "CosineAnnealingWarmRestarts",
]
