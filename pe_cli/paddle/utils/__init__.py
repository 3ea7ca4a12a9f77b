"""``paddle.utils``: ``unique_name`` (generate, guard, switch), the same generator Programs name their
variables with."""
from ...framework import unique_name  # noqa: F401

__all__ = ["unique_name"]
