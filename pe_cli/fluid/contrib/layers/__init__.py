"""Fluid 1.8's ``paddle.fluid.contrib.layers``: its ``nn``, ``rnn_impl`` and ``metric_op`` names."""

from . import metric_op, nn, rnn_impl  # noqa: F401
from .metric_op import *  # noqa: F401,F403
from .nn import *  # noqa: F401,F403
from .rnn_impl import *  # noqa: F401,F403

__all__ = nn.__all__ + rnn_impl.__all__ + metric_op.__all__
