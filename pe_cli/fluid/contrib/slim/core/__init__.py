"""Fluid 1.8's ``contrib.slim.core``."""

from . import compressor, config, strategy  # noqa: F401
from .compressor import *  # noqa: F401,F403
from .config import *  # noqa: F401,F403
from .strategy import *  # noqa: F401,F403

__all__ = compressor.__all__ + config.__all__ + strategy.__all__
