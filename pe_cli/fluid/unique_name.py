"""``paddle.fluid.unique_name``: generate, switch and guard, pe's one name generator."""

from ..framework.unique_name import UniqueNameGenerator, generate, guard, switch  # noqa: F401

__all__ = ["generate", "switch", "guard"]
