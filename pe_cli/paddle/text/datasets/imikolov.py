"""``paddle.text.datasets``'s module of Imikolov, which pe does not build yet (others.py)."""

from .others import Imikolov  # noqa: F401

__all__ = ["Imikolov"]
