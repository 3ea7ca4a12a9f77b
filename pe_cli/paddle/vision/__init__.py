"""``paddle.vision`` in pe: ``paddle.vision.transforms`` (the image transforms of datasets),
``paddle.vision.models`` (the classification architectures) and ``paddle.vision.ops``."""
from . import datasets, models, ops, transforms  # noqa: F401

__all__ = ["datasets", "models", "ops", "transforms"]
