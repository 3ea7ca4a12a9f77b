"""``paddle.incubate.hapi.vision``: the colour augmentations of transforms/."""

from . import transforms  # noqa: F401
from .transforms import *  # noqa: F401,F403

__all__ = transforms.__all__
