"""``paddle.incubate``: the names of Paddle 2.6's incubating API that static programs use:
``layers`` (Fluid 1.8's contrib layers and Paddle's batch_fc, pow2_decay_with_linear_warmup) and
``optimizer`` (the static-graph optimizer wrappers, LookAhead, ModelAverage); and Paddle 1.8.5's
``hapi`` (its DistributedBatchSampler and colour transforms)."""

from . import hapi, layers, optimizer  # noqa: F401
from .optimizer import LookAhead, ModelAverage  # noqa: F401

__all__ = ["LookAhead", "ModelAverage"]
