"""``paddle.compat`` (Paddle 1.8): text and number helpers Fluid's scripts and tests use.
``to_text`` / ``to_bytes`` convert a bytes or str object, or each element of a list or set (in
place with ``inplace=True``); ``round`` rounds halves away from zero (Python 2's round);
``floor_division`` is ``x // y``; ``get_exception_message`` is the exception's text."""
import math

__all__ = []


def _convert(obj, one, inplace):
    if obj is None:
        return obj
    if isinstance(obj, list):
        if inplace:
            obj[:] = [one(v) for v in obj]
            return obj
        return [one(v) for v in obj]
    if isinstance(obj, set):
        if inplace:
            converted = {one(v) for v in obj}
            obj.clear()
            obj.update(converted)
            return obj
        return {one(v) for v in obj}
    return one(obj)


def to_text(obj, encoding="utf-8", inplace=False):
    """bytes -> str (``encoding``); str and other objects are returned as they are."""
    return _convert(obj, lambda v: v.decode(encoding) if isinstance(v, bytes) else v, inplace)


def to_bytes(obj, encoding="utf-8", inplace=False):
    """str -> bytes (``encoding``); bytes and other objects are returned as they are."""
    return _convert(obj, lambda v: v.encode(encoding) if isinstance(v, str) else v, inplace)


def round(x, d=0):
    """``x`` rounded to ``d`` decimals, halves away from zero (as Python 2 rounds)."""
    p = 10 ** d
    value = math.floor(abs(x) * p + 0.5) / p
    return float(math.copysign(value, x)) if x != 0 else 0.0


def floor_division(x, y):
    return x // y


def get_exception_message(exc):
    """The message of the exception ``exc``."""
    assert exc is not None
    return str(exc)
