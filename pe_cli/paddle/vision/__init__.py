"""``paddle.vision`` in pe: ``paddle.vision.transforms`` only (the image transforms of datasets)."""
from . import transforms  # noqa: F401

__all__ = ["transforms"]
