"""``paddle.fluid.layers.layer_function_generator``: layer functions made from an op's proto (the
registry's, pe_cli/layers/op_proto.py), and the docstring decorators Fluid's layers use.
(``fluid.layers`` is pe_cli.layers; ``pe fluid`` maps this submodule here.)"""

import functools
import re
import warnings

from ..base.dtypes import convert_dtype
from ..framework.variable import Variable
from ..layers.checks import check_variable_and_dtype
from ..layers.helper import LayerHelper
from ..layers.op_proto import OpProtoHolder

__all__ = ["deprecated", "generate_layer_fn", "generate_activation_fn", "autodoc", "templatedoc"]


def _snake(name):
    """An op slot's name as a layer argument: ``X`` -> ``x``, ``InputGrad`` -> ``input_grad``."""
    return re.sub("([a-z0-9])([A-Z])", r"\1_\2", re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)).lower()


def _doc(proto, extra=()):
    lines = [proto.comment or "", "", "Args:"]
    lines += [
        f"    {_snake(s.name)}: {s.comment}"
        + ("  Duplicatable." if s.duplicable else "")
        + ("  Optional." if s.dispensable else "")
        for s in proto.inputs
    ]
    skip = OpProtoHolder.generated_op_attr_names() | {"use_mkldnn", "is_test", "use_cudnn"}
    lines += [f"    {a.name}: {a.comment}" for a in proto.attrs if a.name not in skip]
    lines += [f"    {line.strip()}" for line in extra]
    return "\n".join(lines) + "\n"


def _inputs(proto, op_type, args, kwargs):
    """{slot: [Variables]} from the call's arguments (by snake-case slot name, else in slot order),
    and the dtype they share (``dtype`` in kwargs, else float32, when none is given)."""
    inputs, dtype, args = {}, None, list(args)
    for slot in proto.inputs:
        value = kwargs.pop(_snake(slot.name), [])
        value = list(value) if isinstance(value, (list, tuple)) else [value]
        if not value and args:
            value = [args.pop(0)]
        for v in value:
            if not isinstance(v, Variable):
                raise ValueError(f"input of {op_type} must be variable")
            if dtype is not None and v.dtype != dtype:
                raise ValueError(f"operator {op_type} must input same dtype. {dtype} vs {v.dtype}")
            dtype = v.dtype
        inputs[slot.name] = value
    return inputs, dtype or convert_dtype(kwargs.pop("dtype", None) or "float32")


def generate_layer_fn(op_type):
    """A layer function appending one ``op_type`` op: inputs by slot name (``x=``, ``y=``) or in
    order, attributes as keyword arguments, the first output slot returned (the others made as
    intermediates)."""
    proto = OpProtoHolder.instance().get_op_proto(op_type)
    if not proto.outputs or proto.outputs[0].duplicable:
        raise ValueError(f"Only non duplicable op can be automatically generated: {op_type}")

    def func(*args, **kwargs):
        helper = LayerHelper(op_type, **kwargs)
        kwargs.pop("name", None)
        act = kwargs.pop("act", None)
        inputs, dtype = _inputs(proto, op_type, args, kwargs)
        main = proto.outputs[0].name
        out = kwargs.pop(_snake(main), None)
        out = out[0] if isinstance(out, (list, tuple)) else out
        outputs = {main: [out if out is not None else helper.create_variable_for_type_inference(dtype)]}
        for slot in proto.outputs[1:]:
            outputs[slot.name] = [helper.create_variable_for_type_inference(dtype)]
        helper.append_op(op_type, inputs, outputs, kwargs)
        return helper.append_activation(outputs[main][0], act)

    func.__name__ = func.__qualname__ = op_type
    func.__doc__ = _doc(proto)
    return func


def generate_activation_fn(op_type):
    """``fn(x, name=None)``: one ``op_type`` op on x (float; abs, exp and square take ints too)."""
    proto = OpProtoHolder.instance().get_op_proto(op_type)
    dtypes = ("float16", "float32", "float64") + (("int32", "int64") if op_type in ("abs", "exp", "square") else ())

    def func(x, name=None):
        check_variable_and_dtype(x, "x", dtypes, op_type)
        helper = LayerHelper(op_type, x=x, name=name)
        out = helper.create_variable_for_type_inference(x.dtype)
        helper.append_op(op_type, {"X": [x]}, {"Out": [out]})
        return out

    func.__name__ = func.__qualname__ = op_type
    func.__doc__ = _doc(proto, ["name(str, optional): the layer's name; None: made up."])
    return func


def deprecated(func_or_class):
    """Marks a function or class deprecated: calling it warns (DeprecationWarning) and calls it."""

    @functools.wraps(func_or_class)
    def wrapper(*args, **kwargs):
        warnings.warn(f"The {func_or_class.__name__} is deprecated.", DeprecationWarning, stacklevel=2)
        return func_or_class(*args, **kwargs)

    return wrapper


def autodoc(comment=""):
    """A decorator giving the function the docstring of the op of its name, then ``comment``."""

    def decorator(func):
        func.__doc__ = _doc(OpProtoHolder.instance().get_op_proto(func.__name__)) + comment
        return func

    return decorator


def templatedoc(op_type=None):
    """A decorator filling ``${comment}``, ``${<slot>_comment}`` and ``${<attr>_type}`` in the
    function's docstring from the op's proto (the op of the function's name by default)."""

    def decorator(func):
        proto = OpProtoHolder.instance().get_op_proto(op_type or func.__name__)
        values = {"comment": proto.comment or ""}
        for slot in proto.inputs + proto.outputs:
            values[f"{_snake(slot.name)}_comment"] = slot.comment
        for attr in proto.attrs:
            values[f"{attr.name}_comment"] = attr.comment or ""
            values[f"{attr.name}_type"] = type(attr.default).__name__
        doc = func.__doc__ or ""
        func.__doc__ = re.sub(r"\$\{(\w+)\}", lambda m: str(values.get(m.group(1), m.group(0))), doc)
        return func

    return decorator
