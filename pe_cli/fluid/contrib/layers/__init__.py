"""Fluid 1.8's ``paddle.fluid.contrib.layers``: its ``nn``, ``rnn_impl`` and ``metric_op`` names."""
from .rnn_impl import *  # noqa: F401,F403
