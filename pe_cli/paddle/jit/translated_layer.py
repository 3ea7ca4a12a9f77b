"""``paddle.jit.translated_layer``: TranslatedLayer (eager), refused in one line (api.py)."""

from .api import TranslatedLayer  # noqa: F401
