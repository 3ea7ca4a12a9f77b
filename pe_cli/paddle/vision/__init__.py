"""``paddle.vision`` in pe: ``paddle.vision.transforms`` (the image transforms of datasets),
``paddle.vision.models`` (the classification architectures) and ``paddle.vision.ops``."""
from . import models, ops, transforms  # noqa: F401

__all__ = ["models", "ops", "transforms"]
