"""``paddle.text.datasets``'s module of WMT14, which pe does not build yet (others.py)."""

from .others import WMT14  # noqa: F401

__all__ = ["WMT14"]
