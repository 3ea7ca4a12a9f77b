"""``paddle.reader``: Fluid's reader decorators (decorator.py)."""

from . import decorator  # noqa: F401
from .decorator import *  # noqa: F401,F403
from .decorator import __all__  # noqa: F401
