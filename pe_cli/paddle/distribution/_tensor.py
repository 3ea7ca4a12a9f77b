"""The tensor functions the distributions build with: pe's ``paddle.tensor`` (every top-level tensor
function, pe_cli/paddle/tensor_*.py), ``paddle.nn.functional`` and Fluid's random layers, under short
names so each distribution reads as Paddle's does."""

from ... import layers as L  # noqa: F401
from .. import tensor as P  # noqa: F401
from ..nn import functional as F  # noqa: F401
from ..static import gradients  # noqa: F401
