"""Fluid 1.8's ``.pdparams`` / ``.pdopt`` files: a pickle (protocol 2 as Fluid writes them; 3-5 as
numpy writes them too) of one dict {variable name: numpy.ndarray}.

Nothing is unpickled: ``read_state`` parses the file with pickle_data.py (plain data and numpy
arrays only; anything else is refused with one error naming the file).

pdparams_write.py writes them."""

import os

from ..base.errors import PeError
from ..base.limits import check_bytes, regular_file
from .pickle_data import Refused, array_of, parse_pickle

__all__ = ["read_state", "parse_state"]


def parse_state(data):
    """The dict {name: ndarray} the pickle bytes ``data`` hold; raises Refused."""
    top = parse_pickle(data)
    if not isinstance(top, dict):
        raise Refused("it does not hold one dict of arrays")
    return {name: array_of(name, obj, "the dict") for name, obj in top.items()}


def read_state(path, what="parameters"):
    """The dict {variable name: ndarray} in the Fluid ``.pdparams``/``.pdopt`` file ``path``."""
    try:
        regular_file(path, f"{what} file")
        check_bytes(os.path.getsize(path), f"'{path}'")  # the bytes, then arrays of about as many
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise PeError(f"cannot read {what} file '{path}': {e.strerror or e}") from None
    try:
        return parse_state(data)
    except Refused as e:
        raise PeError(f"'{path}' is not a {what} file of plain arrays as Fluid's save writes it: {e}") from None
    except (ValueError, TypeError, MemoryError, RecursionError) as e:
        raise PeError(
            f"'{path}' is not a {what} file of plain arrays as Fluid's save writes it: {type(e).__name__}: {e}"[:400]
        ) from None
