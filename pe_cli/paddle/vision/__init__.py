"""``paddle.vision`` in pe: ``paddle.vision.transforms`` (the image transforms of datasets),
``paddle.vision.models`` (the classification architectures) and ``paddle.vision.ops``."""

from . import datasets, image, models, ops, transforms  # noqa: F401
from .image import get_image_backend, image_load, set_image_backend  # noqa: F401

__all__ = ["datasets", "models", "ops", "transforms"]
