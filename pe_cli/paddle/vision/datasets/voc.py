"""``paddle.vision.datasets.voc2012`` (Paddle's module name): VOC2012, which pe does not read yet (others.py)."""

from .others import VOC2012  # noqa: F401

__all__ = ["VOC2012"]
