"""``paddle.hapi``: Paddle 2.x's high-level API. pe has its helpers (``model.to_list``); ``Model``
(training loops over a Layer, in dygraph or in a static program of its own) is not in pe: it raises one
line, as ``paddle.Model`` does."""

from . import model  # noqa: F401
from .model import Model  # noqa: F401
