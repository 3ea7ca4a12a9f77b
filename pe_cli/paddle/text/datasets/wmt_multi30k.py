"""``paddle.text.datasets``'s module of WMT16, which pe does not build yet (others.py)."""

from .others import WMT16  # noqa: F401

__all__ = ["WMT16"]
