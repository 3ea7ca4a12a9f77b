"""LayerHelper: what every layer builder uses to name things, create parameters and append ops."""

import copy
import numbers

import numpy as np

from ..base.dtypes import convert_dtype
from ..base.errors import ArgumentTypeError, PeError
from ..base.limits import usable_memory
from ..framework import default_main_program, default_startup_program, unique_name
from ..framework.source import layer_guard
from ..framework.variable import Variable
from ..framework.lod_tensor import LoDTensor
from .checks import check_type
from ..training.initializer import ConstantInitializer, XavierInitializer
from ..training.param_attr import ParamAttr, WeightNormParamAttr
from .weight_norm import weight_normalized


MAX_NAME_BYTES = 200  # a checkpoint file is <name>.npy: file systems allow 255 bytes


def _check_fits_in_memory(helper, shape, dtype):
    """A parameter larger than the machine's memory is refused where the layer declares it, with
    an estimate, instead of failing (or swapping) when the startup program allocates it."""
    nbytes = np.dtype(convert_dtype(dtype)).itemsize
    for d in shape:
        nbytes *= int(d)
    ram = usable_memory()
    if ram and nbytes > ram:
        raise PeError(
            f"{helper.layer_type} '{helper.name}': a parameter of shape {list(shape)} needs "
            f"{_human(nbytes)}, more than this machine's {_human(ram)} of memory; use smaller sizes"
        )


_TAKE_ARRAYS = {"assign"}  # layers whose input may be a numpy array (assign copies its values in)


def _check_not_arrays(layer_type, kwargs):
    """A numpy array given where a layer takes Variables: Fluid's TypeError (feed it through
    fluid.data, or make it a variable with layers.assign)."""
    if layer_type in _TAKE_ARRAYS:
        return
    for key in ("input", "x", "y"):
        value = kwargs.get(key)
        for i, item in enumerate(value if isinstance(value, (list, tuple)) else [value]):
            if isinstance(item, np.ndarray):
                where = f"{key}[{i}]" if isinstance(value, (list, tuple)) else key
                raise ArgumentTypeError(
                    f"The type of '{where}' in {layer_type} must be Variable, but received "
                    f"numpy.ndarray; feed it through fluid.data or make it a variable "
                    f"with layers.assign"
                )


def _human(nbytes):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if nbytes < 1024 or unit == "PiB":
            return f"{nbytes:.3g} {unit}"
        nbytes /= 1024


class LayerHelper:
    def __init__(self, layer_type, **kwargs):
        self.layer_type = layer_type
        self.kwargs = kwargs
        _check_not_arrays(layer_type, kwargs)
        for key, value in kwargs.items():  # Fluid's layers refuse a tensor's value where a Variable goes
            if isinstance(value, LoDTensor):
                raise ArgumentTypeError(f"{layer_type}: {key} must be a Variable, got a LoDTensor")
        name = kwargs.get("name")
        self.name = name if name else unique_name.generate(layer_type)

    @property
    def param_attr(self):
        """The ``param_attr`` the layer was given, as a ParamAttr (Fluid's LayerHelper property)."""
        return ParamAttr._to_attr(self.kwargs.get("param_attr"))

    @property
    def bias_attr(self):
        return ParamAttr._to_attr(self.kwargs.get("bias_attr"))

    @property
    def main_program(self):
        return default_main_program()

    @property
    def startup_program(self):
        return default_startup_program()

    @property
    def block(self):
        return self.main_program.current_block()

    def append_op(self, type, inputs=None, outputs=None, attrs=None):
        with layer_guard(self.name):
            return self.block.append_op(type, inputs, outputs, attrs)

    def create_variable_for_type_inference(self, dtype=None, stop_gradient=False):
        return self.block.create_var(
            name=unique_name.generate(f"{self.name}.tmp"), dtype=dtype or "float32", stop_gradient=stop_gradient
        )

    create_tmp_variable = create_variable_for_type_inference

    def create_variable(self, **kwargs):
        return self.block.create_var(**kwargs)

    def create_global_variable(self, name=None, persistable=False, **kwargs):
        """A variable of the main program's global block; without a name, the block's (``_generated_var_N``, as
        Fluid's helper names it: a checkpoint of auc's state loads by name on both)."""
        return self.main_program.global_block().create_var(name=name, persistable=persistable, **kwargs)

    def set_variable_initializer(self, var, initializer):
        """Declares ``var`` persistable in the startup program and appends its initializer there."""
        block = self.startup_program.global_block()
        svar = block.create_var(name=var.name, shape=var.shape, dtype=var.dtype, persistable=True)
        initializer(svar, block)
        return var

    def input_dtype(self, input_param_name="input"):
        inputs = self.kwargs.get(input_param_name)
        inputs = inputs if isinstance(inputs, (list, tuple)) else [inputs]
        dtypes = {v.dtype for v in inputs}
        if len(dtypes) != 1:
            raise PeError(f"{self.layer_type} '{self.name}': inputs have mixed dtypes {sorted(dtypes)}")
        return dtypes.pop()

    def create_parameter(self, attr, shape, dtype="float32", is_bias=False, default_initializer=None):
        """A Parameter in the main program, and its initializer in the startup program.
        ``attr`` is a ParamAttr (or anything ParamAttr._to_attr accepts); names follow Fluid:
        ``fc_0.w_0`` for weights, ``fc_0.b_0`` for biases."""
        attr = copy.copy(ParamAttr._to_attr(attr))
        if any(d is not None and (d == 0 or d < -1) for d in shape):
            raise PeError(
                f"{self.layer_type} '{self.name}': parameter shape {list(shape)} has a dimension below 1; "
                f"sizes, filters and channels must be >= 1"
            )
        if any(d is None or d < 0 for d in shape):
            raise PeError(
                f"{self.layer_type} '{self.name}': parameter shape {list(shape)} is not fully known; "
                f"does its input have an unknown dimension other than the batch?"
            )
        _check_fits_in_memory(self, shape, dtype)
        suffix = "b" if is_bias else "w"
        name = attr.name or unique_name.generate(f"{self.name}.{suffix}")
        if len(name.encode()) > MAX_NAME_BYTES:
            raise PeError(
                f"{self.layer_type} '{self.name[:40]}...': the parameter name is {len(name.encode())} "
                f"bytes; checkpoints store one file per parameter, and names may have at most "
                f"{MAX_NAME_BYTES} bytes: give the layer a shorter name"
            )
        init = attr.initializer or default_initializer or (ConstantInitializer(0.0) if is_bias else XavierInitializer())
        if isinstance(attr, WeightNormParamAttr):
            return weight_normalized(self, attr, name, shape, dtype, init)
        main_block = self.main_program.global_block()
        if main_block.has_var(name):
            return main_block.var(name)  # a shared parameter (same ParamAttr name)
        param = main_block.create_parameter(
            name,
            shape,
            dtype,
            trainable=attr.trainable,
            regularizer=attr.regularizer,
            optimize_attr={"learning_rate": attr.learning_rate},
            gradient_clip_attr=attr.gradient_clip,
            do_model_average=attr.do_model_average,
            need_clip=getattr(attr, "need_clip", True),
        )
        param.initializer = init  # its op goes to the startup program, below
        startup_block = self.startup_program.global_block()
        if not startup_block.has_var(name):
            svar = startup_block.create_var(name=name, shape=shape, dtype=dtype, persistable=True)
            init(svar, startup_block)
        return param

    def append_bias_op(self, input_var, dim_start=1, dim_end=None, bias_attr=None):
        bias_attr = self.kwargs.get("bias_attr") if bias_attr is None else bias_attr
        if bias_attr is False:
            return input_var
        size = list(input_var.shape[dim_start:dim_end])
        bias = self.create_parameter(bias_attr, size, input_var.dtype, is_bias=True)
        out = self.create_variable_for_type_inference(input_var.dtype)
        self.append_op("elementwise_add", {"X": [input_var], "Y": [bias]}, {"Out": [out]}, {"axis": dim_start})
        return out

    def append_activation(self, input_var, act=None):
        act = self.kwargs.get("act") if act is None else act
        if act is None:
            return input_var
        if isinstance(act, dict):
            act = dict(act)
            act_type, attrs = act.pop("type"), act
        else:
            act_type, attrs = act, {}
        if self.kwargs.get("use_cudnn"):  # (a conv layer's use_cudnn=True, as Fluid's helper passes it on)
            attrs["use_cudnn"] = True
        if "use_mkldnn" in self.kwargs:
            attrs["use_mkldnn"] = self.kwargs["use_mkldnn"]
        out = self.create_variable_for_type_inference(input_var.dtype)
        self.append_op(act_type, {"X": [input_var]}, {"Out": [out]}, attrs)
        return out


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def check_ints(layer, what, values):
    if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in values):
        raise ArgumentTypeError(f"{layer}: {what} must be a list of ints, got {values!r}")
    return [int(v) for v in values]


def single(op_type, x, inputs, attrs, name=None, act=None, dtype=None, stop_gradient=False, **helper_kwargs):
    """Appends op_type with one output 'Out' (act applied after); returns the output."""
    check_type(x, "x", Variable, op_type)  # Fluid's layers refuse a non-Variable with a TypeError
    helper = LayerHelper(op_type, x=x, name=name, act=act, **helper_kwargs)
    out = helper.create_variable_for_type_inference(dtype or x.dtype, stop_gradient=stop_gradient)
    helper.append_op(op_type, inputs, {"Out": [out]}, attrs)
    return helper.append_activation(out)
