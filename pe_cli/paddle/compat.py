"""``paddle.compat``: Fluid 1.8's Python 2/3 helpers, which its programs and tests import as ``cpt``:
text and bytes conversion (of one value, or every item of a list, set or dict; ``inplace`` changes
the container itself), a round that rounds halves away from zero, floor division and an
exception's message."""

import builtins
import math

__all__ = ["long_type", "int_type", "to_text", "to_bytes", "round", "floor_division", "get_exception_message"]

int_type = int
long_type = int


def _text(obj, encoding):
    if isinstance(obj, bytes):
        return obj.decode(encoding)
    if obj is None or isinstance(obj, (str, bool, float)):
        return obj
    return str(obj)


def _bytes(obj, encoding):
    if isinstance(obj, str):
        return obj.encode(encoding)
    if obj is None or isinstance(obj, bytes):
        return obj
    return builtins.bytes(str(obj), "latin-1")


def _convert(obj, one, encoding, inplace, with_dict):
    if isinstance(obj, list):
        if not inplace:
            return [one(item, encoding) for item in obj]
        obj[:] = [one(item, encoding) for item in obj]
        return obj
    if isinstance(obj, set):
        converted = {one(item, encoding) for item in obj}
        if not inplace:
            return converted
        obj.clear()
        obj.update(converted)
        return obj
    if with_dict and isinstance(obj, dict):
        converted = {one(k, encoding): one(v, encoding) for k, v in obj.items()}
        if inplace:
            obj.update(converted)  # as Fluid: the converted keys are added beside the old ones
            return obj
        return converted
    return one(obj, encoding)


def to_text(obj, encoding="utf-8", inplace=False):
    """``obj`` (bytes, or a list, set or dict of them) as str."""
    return _convert(obj, _text, encoding, inplace, with_dict=True)


def to_bytes(obj, encoding="utf-8", inplace=False):
    """``obj`` (str, or a list or set of them) as bytes."""
    return _convert(obj, _bytes, encoding, inplace, with_dict=False)


def round(x, d=0):  # noqa: A001 -- Fluid's name
    """``x`` rounded to ``d`` decimals, halves away from zero (Python 3's round goes to even)."""
    p = 10**d
    if x > 0.0:
        return float(math.floor(x * p + 0.5)) / p
    if x < 0.0:
        return float(math.ceil(x * p - 0.5)) / p
    return math.copysign(0.0, x)


def floor_division(x, y):
    return x // y


def get_exception_message(exc):
    assert exc is not None, "get_exception_message: exc is None"
    return str(exc)
