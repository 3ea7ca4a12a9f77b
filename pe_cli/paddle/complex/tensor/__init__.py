"""``paddle.complex.tensor``: the complex layers (math.py, manipulation.py, linalg.py)."""

from . import linalg, manipulation, math  # noqa: F401
from .linalg import *  # noqa: F401,F403
from .manipulation import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403

__all__ = math.__all__ + manipulation.__all__ + linalg.__all__
