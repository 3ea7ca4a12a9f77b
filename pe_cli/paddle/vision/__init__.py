"""``paddle.vision`` in pe: ``paddle.vision.transforms`` (the image transforms of datasets) and
``paddle.vision.ops.distribute_fpn_proposals``."""
from . import ops, transforms  # noqa: F401

__all__ = ["ops", "transforms"]
