"""``paddle.static.amp.function_overload``: Paddle's helper choosing ``decorate``'s overload by its
arguments; pe's ``decorate`` takes them all in one signature."""

import enum

__all__ = ["FunctionType", "overload"]


class FunctionType(enum.IntEnum):
    FP16_ONLY = 0
    COMMON = 1


def overload(key):
    """A decorator that leaves the function as it is (pe has one ``decorate``)."""
    return lambda func: func
