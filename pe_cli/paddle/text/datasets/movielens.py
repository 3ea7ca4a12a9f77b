"""``paddle.text.datasets``'s module of Movielens, which pe does not build yet (others.py)."""

from .others import Movielens  # noqa: F401

__all__ = ["Movielens"]
