"""``paddle.fluid.annotations``: the ``deprecated`` decorator of Fluid 1.8."""

import functools
import sys

__all__ = ["deprecated"]


def deprecated(since, instead, extra_message=""):
    """A decorator: each call prints "API <name> is deprecated since <since>. Please use <instead>
    instead." (and ``extra_message`` on the next line) to stderr, then calls the function, whose
    docstring gets the same note."""

    def decorator(func):
        message = f"API {func.__name__} is deprecated since {since}. Please use {instead} instead."
        if extra_message:
            message += "\n" + extra_message

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            print(message, file=sys.stderr)
            return func(*args, **kwargs)

        wrapper.__doc__ = (wrapper.__doc__ or "") + "\n    " + message
        return wrapper

    return decorator
