"""``paddle.fluid.wrapped_decorator`` (Paddle 2.6: ``paddle.base.wrapped_decorator``): decorators that
keep the decorated function's name, docstring and signature."""

import contextlib
import functools

__all__ = ["signature_safe_contextmanager", "wrap_decorator"]


def wrap_decorator(decorator_func):
    """``decorator_func(func)`` returns a wrapper; the result decorates keeping ``func``'s metadata."""

    def decorator(func):
        return functools.wraps(func)(decorator_func(func))

    return decorator


signature_safe_contextmanager = wrap_decorator(contextlib.contextmanager)
