"""``paddle.incubate.hapi.vision.transforms``: colour augmentations of HWC BGR images (transforms.py)."""

from . import transforms  # noqa: F401
from .transforms import *  # noqa: F401,F403

__all__ = transforms.__all__
