"""``paddle.text.datasets``'s module of Conll05st, which pe does not build yet (others.py)."""

from .others import Conll05st  # noqa: F401

__all__ = ["Conll05st"]
