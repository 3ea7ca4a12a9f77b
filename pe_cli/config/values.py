"""YAML values that stand for small Python value objects: a ``{type: Name, args}`` mapping of an
initializer, regularizer or clip, and a layer's ``param_attr``. They are checked here, while the
config is checked, by making them once (their constructors are part of the check, e.g. a negative
coefficient), and handed to the build as ``Typed`` values (config/resolved.py), which
pe_cli.run.build makes again for each program it builds.
"""

from ..base.errors import PeError
from ..training.param_attr import ParamAttr
from . import registries
from .resolved import Typed
from .schema import describe
from .typed import check_arguments, resolve


def typed_value(doc, path, value, namespace):
    """``{type: Name, args}`` from ``namespace``, checked (bad arguments reported at their keys) and
    made once; returns it as a Typed."""
    return _checked(doc, path, value, namespace)[0]


def _checked(doc, path, value, namespace):
    """(the Typed value, the object made from it)."""
    name, fn, args = resolve(doc, path, value, namespace)
    what = f"{namespace.what} '{name}'"
    check_arguments(doc, path, fn, args, what)
    try:
        made = fn(**args)
    except (PeError, TypeError, ValueError) as e:
        raise doc.error(path, f"{what}: {e}") from None
    return Typed(namespace.what, name, fn, args, doc, path), made


_PARAM_ATTR_VALUES = (
    ("initializer", registries.initializers),
    ("regularizer", registries.regularizers),
    ("gradient_clip", registries.clips),
)


def param_attr(doc, path, value):
    """A YAML param_attr/bias_attr -> what the builder takes: None, False, a name, or a Typed ParamAttr
    (its initializer, regularizer and gradient_clip Typed too)."""
    if value is None or value is False or isinstance(value, str):
        return value
    if value is True:
        return None
    if not isinstance(value, dict):
        raise doc.error(
            path,
            f"expected a mapping of ParamAttr arguments, a name, or false, got {describe(value)}",
            "e.g. {initializer: {type: Normal, scale: 0.01}}",
        )
    check_arguments(doc, path, ParamAttr, value, "ParamAttr")
    args, made = dict(value), dict(value)
    for key, namespace in _PARAM_ATTR_VALUES:
        if args.get(key) is not None:
            args[key], made[key] = _checked(doc, path + (key,), args[key], namespace())
    ParamAttr(**made)
    return Typed("ParamAttr", "ParamAttr", ParamAttr, args, doc, path)
