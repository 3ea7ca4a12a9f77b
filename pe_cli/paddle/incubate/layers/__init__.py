"""``paddle.incubate.layers``: the layers of ``nn`` (Paddle 2.6's incubate layers)."""

from . import nn  # noqa: F401
from .nn import *  # noqa: F401,F403
from .nn import _pull_box_extended_sparse, _pull_box_sparse, _pull_gpups_sparse  # noqa: F401
