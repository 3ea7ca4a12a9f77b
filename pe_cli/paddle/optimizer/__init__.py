"""``paddle.optimizer`` (Paddle 2.x, static graphs): the optimizers (optimizers.py, adamw.py) and
``paddle.optimizer.lr``, the learning-rate schedulers (lr.py)."""

from . import lr  # noqa: F401
from .adamw import AdamW  # noqa: F401
from .optimizers import (
    LBFGS,
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    Lamb,
    Momentum,
    Optimizer,  # noqa: F401
    RMSProp,
)

__all__ = [
    "Optimizer",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "RMSProp",
    "Adadelta",
    "SGD",
    "Momentum",
    "Lamb",
    "LBFGS",
    "lr",
]
