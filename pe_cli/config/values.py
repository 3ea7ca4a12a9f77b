"""YAML values that stand for small Python value objects: a ``{type: Name, args}`` mapping of an
initializer, regularizer or clip, and a layer's ``param_attr``. They are made here, while the
config is checked, because their constructors are the check (e.g. a negative coefficient); they
touch no program. Programs, optimizers and data are built by pe_cli.run.build.
"""
from ..base.errors import PeError
from ..training.param_attr import ParamAttr
from . import registries
from .schema import _describe
from .typed import check_arguments, resolve


def make_typed(doc, path, value, namespace, **extra):
    """Makes ``{type: Name, args}`` from ``namespace``, reporting bad arguments at their keys."""
    name, fn, args = resolve(doc, path, value, namespace)
    check_arguments(doc, path, fn, args, f"{namespace.what} '{name}'", reserved=tuple(extra))
    try:
        return fn(**args, **extra)
    except (PeError, TypeError, ValueError) as e:
        raise doc.error(path, f"{namespace.what} '{name}': {e}") from None


def param_attr(doc, path, value):
    """A YAML param_attr/bias_attr -> what the builder takes: None, False, a name, or a ParamAttr."""
    if value is None or value is False or isinstance(value, str):
        return value
    if value is True:
        return None
    if not isinstance(value, dict):
        raise doc.error(path, f"expected a mapping of ParamAttr arguments, a name, or false, got {_describe(value)}",
                        "e.g. {initializer: {type: Normal, scale: 0.01}}")
    check_arguments(doc, path, ParamAttr, value, "ParamAttr")
    kwargs = dict(value)
    if kwargs.get("initializer") is not None:
        kwargs["initializer"] = make_typed(doc, path + ("initializer",), kwargs["initializer"],
                                           registries.initializers())
    if kwargs.get("regularizer") is not None:
        kwargs["regularizer"] = make_typed(doc, path + ("regularizer",), kwargs["regularizer"],
                                           registries.regularizers())
    if kwargs.get("gradient_clip") is not None:
        kwargs["gradient_clip"] = make_typed(doc, path + ("gradient_clip",), kwargs["gradient_clip"],
                                             registries.clips())
    return ParamAttr(**kwargs)
