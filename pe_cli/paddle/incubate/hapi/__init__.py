"""``paddle.incubate.hapi`` (Paddle 1.8.5): the high-level API's pieces of that release that static
programs use: ``distributed.DistributedBatchSampler`` and ``vision.transforms``' colour augmentations.
(Paddle 2.x's hapi is ``paddle.hapi``.)"""

from . import distributed, vision  # noqa: F401

__all__ = ["distributed", "vision"]
