"""``paddle.jit.dy2static.utils``: the signature helpers Paddle 2.6's op tests call to line up an
op's inputs and attributes with a Python API's parameters."""

import inspect

__all__ = ["parse_arg_and_kwargs", "parse_varargs_name"]


def parse_arg_and_kwargs(function):
    """(the parameter names of ``function`` without a leading ``self``, {name: default})."""
    spec = inspect.getfullargspec(function)
    names = spec.args[1:] if spec.args[:1] == ["self"] else list(spec.args)
    defaults = spec.defaults or ()
    return names, dict(zip(names[len(names) - len(defaults) :], defaults)) if defaults else {}


def parse_varargs_name(function):
    """The name of the ``*args`` parameter of ``function`` (None without one)."""
    return inspect.getfullargspec(function).varargs
