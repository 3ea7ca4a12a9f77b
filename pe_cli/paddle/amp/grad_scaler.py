"""``paddle.amp.grad_scaler``: Paddle 2.6.2's GradScaler and AmpScaler (loss scaling of dygraph AMP) are
dygraph-only: made in static mode, each raises Paddle's AssertionError, and in pe (static graphs only) each
always does. A static program scales its loss with ``paddle.static.amp.decorate``'s optimizer."""

import warnings  # noqa: F401 -- a name of Paddle's module
from collections import defaultdict  # noqa: F401 -- a name of Paddle's module
from enum import Enum

import numpy as np  # noqa: F401 -- a name of Paddle's module

from .auto_cast import amp_global_state, dygraph_only  # noqa: F401


class OptimizerState(Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _refused_init(self, *args, **kwargs):
    dygraph_only(_named_init)()


def _named_init():
    """(its name is the one Paddle's assertion gives: '__init__()')"""


_named_init.__name__ = "__init__"


class AmpScaler:
    """Paddle 2.6.2's AmpScaler: dygraph-only (an AssertionError when made in static mode)."""

    __init__ = _refused_init


class GradScaler(AmpScaler):
    """Paddle 2.6.2's GradScaler: dygraph-only (an AssertionError when made in static mode)."""

    def __init__(
        self,
        enable=True,
        init_loss_scaling=65536.0,
        incr_ratio=2.0,
        decr_ratio=0.5,
        incr_every_n_steps=2000,
        decr_every_n_nan_or_inf=1,
        use_dynamic_loss_scaling=True,
    ):
        _refused_init(self)


def in_dynamic_mode():
    """False: pe runs static graphs only."""
    return False
