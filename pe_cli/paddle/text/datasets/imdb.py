"""``paddle.text.datasets``'s module of Imdb, which pe does not build yet (others.py)."""

from .others import Imdb  # noqa: F401

__all__ = ["Imdb"]
