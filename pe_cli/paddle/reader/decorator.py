"""``paddle.reader.decorator``: Fluid's reader decorators (shuffle, buffered, cache, compose, chain,
firstn, map_readers, xmap_readers, multiprocess_reader; pe_cli/data/reader_decorators.py and
reader_processes.py, which ``fluid.io`` shares)."""

from ...data.reader_decorators import *  # noqa: F401,F403
from ...data.reader_decorators import __all__ as _decorators
from ...data.reader_processes import multiprocess_reader  # noqa: F401

__all__ = list(_decorators) + ["multiprocess_reader"]
