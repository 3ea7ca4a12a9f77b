"""``paddle.jit`` for static programs (api.py): ``save`` a paddle.nn Layer as Paddle's inference model,
``to_static`` a decorator that changes nothing; ``load`` and ``TranslatedLayer`` are eager and refused."""

from . import api, layer, translated_layer  # noqa: F401
from .api import (
    TranslatedLayer,
    enable_to_static,
    ignore_module,
    load,
    not_to_static,
    save,  # noqa: F401
    set_code_level,
    set_verbosity,
    to_static,
)

__all__ = [
    "TranslatedLayer",
    "enable_to_static",
    "ignore_module",
    "load",
    "not_to_static",
    "save",
    "set_code_level",
    "set_verbosity",
    "to_static",
]
