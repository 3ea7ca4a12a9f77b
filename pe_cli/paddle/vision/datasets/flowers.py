"""``paddle.vision.datasets.flowers``: Flowers, which pe does not read yet (others.py)."""

from .others import Flowers  # noqa: F401

__all__ = ["Flowers"]
