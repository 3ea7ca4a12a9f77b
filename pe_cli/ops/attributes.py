"""An op attribute as an op type declares it: its default and its check (``Attr``), the checks op
families write (``positive``, ``in_range``, ``is_int``, ...), and the attributes Fluid 1.8 declares for
backends pe does not have (``backend_attrs``). define.py re-exports every name, so family modules
import them from there with the rest of what defines an op."""

import numbers
from dataclasses import dataclass

import numpy as np

from ..base.dtypes import convert_dtype
from ..base.errors import ArgumentValueError, PeError


@dataclass(frozen=True)
class Attr:
    """An attribute's default, and an optional check: ``check(value) -> True`` or a string
    explaining the expected values (``"> 0"``); ``choices`` lists the allowed values. ``long``: Fluid
    declares it LONG or LONGS (int64), which its attribute checker fills from a float given for it,
    truncated toward zero (``as_long``); an INT attribute it refuses as a float. ``unsupported``: what
    a value other than ``default`` would make Paddle compute that pe does not (an attribute Paddle 2.6
    declares and pe does not implement): the registry refuses such a value in one line
    (``refuse_unsupported``), wherever the op comes from. ``fill``: False for an attribute Paddle 2.x
    added: an op not given it holds none (its kernels read the default), so pe's programs and the Fluid
    models pe saves stay Fluid 1.8's. ``alias_of``: Paddle 2.x's name of the attribute pe keeps under
    Fluid 1.8's name (flip's ``axis`` is Fluid's ``dims``): a value given under it is moved there."""

    default: object = None
    check: object = None
    expect: str = ""
    choices: tuple = ()
    long: bool = False
    unsupported: str = ""
    fill: bool = True
    alias_of: str = ""

    def validate(self, op, name, value):
        """A bad value: a ValueError naming Fluid's InvalidArgumentError too (test_prelu_op.py looks for it)."""
        if self.choices and value not in self.choices:
            raise ArgumentValueError(
                f"{op.describe()}: attribute {name}={value!r} is not one of {list(self.choices)} (InvalidArgumentError)"
            )
        if self.check is not None and not self.check(_as_stored(self.default, value)):
            raise ArgumentValueError(
                f"{op.describe()}: attribute {name}={value!r} is out of range; expected "
                f"{self.expect} (InvalidArgumentError)"
            )


def is_default(default, value):
    """Whether ``value`` is ``default`` as Paddle stores it (a float as its float32, a list element by
    element, an empty list as None's empty default)."""
    if isinstance(default, (list, tuple)) or isinstance(value, (list, tuple)):
        a, b = list(default or ()), list(value or ()) if isinstance(value, (list, tuple)) else None
        return b is not None and len(a) == len(b) and all(is_default(x, y) for x, y in zip(a, b))
    if isinstance(default, float) and isinstance(value, numbers.Real) and not isinstance(value, bool):
        return bool(np.float32(default) == np.float32(value))
    return value == default and type(value) is not bool or value is default


def as_long(value):
    """A LONG (LONGS) attribute's value as Fluid's checker makes it from a float (floats): Python's float,
    stored as a float32, truncated toward zero (``eye(num_rows=2.0)`` has 2 rows); other values as they are."""

    def one(v):
        return int(np.float32(v)) if isinstance(v, float) and np.isfinite(np.float32(v)) else v

    if isinstance(value, (list, tuple)) and any(isinstance(v, float) for v in value):
        return [one(float(v)) if isinstance(v, numbers.Real) and not isinstance(v, bool) else v for v in value]
    return one(value)


def _as_stored(default, value):
    """``value`` as Fluid holds it when its checks see it: a float attribute (FLOAT) is a float32, so
    layer_norm's epsilon=1e-3 is 0.0010000000474974513 and still within [0, 0.001]."""
    if isinstance(default, float) and isinstance(value, numbers.Real) and not isinstance(value, bool):
        with np.errstate(over="ignore"):
            return float(np.float32(value))
    return value


# -- attributes Fluid 1.8 declares for backends pe does not have ------------------------------------
# Fluid's op protos carry attributes for its oneDNN (MKL-DNN) int8 and fused kernels, cuDNN, its
# parameter-server training and its executor's garbage collector. Fluid's plain CPU kernels do nothing
# with them, and neither do pe's: an op declares the ones Fluid declares for it, with Fluid's
# defaults, so that a program Fluid saved loads as it is (``backend_attrs("fuse_relu", "Scale_in")``).
BACKEND_ATTRS = {
    # which library's kernel Fluid runs: an op whose proto declares them carries them (its grad op copies
    # them, and Fluid's grad kernels read them when they pick their kernel)
    "use_mkldnn": False,
    "use_cudnn": False,
    # oneDNN: int8 quantization scales, fused activations and residual adds, its layouts
    "use_quantizer": False,
    "force_fp32_output": False,
    "Scale_in": 1.0,
    "Scale_out": 1.0,
    "Scale_in_eltwise": 1.0,
    "Scale_weights": [1.0],
    "Scale_x": 1.0,
    "Scale_y": 1.0,
    "scale_x": 1.0,
    "scale_y": [1.0],
    "scale_out": 1.0,
    "fuse_relu": False,
    "fuse_brelu": False,
    "fuse_brelu_threshold": 6.0,
    "fuse_activation": "",
    "fuse_alpha": 0.0,
    "fuse_beta": 0.0,
    "fuse_residual_connection": False,
    "x_data_format": "",
    "y_data_format": "",
    "is_test": False,
    # cuDNN's workspace and algorithm search
    "workspace_size_MB": 512,
    "exhaustive_search": False,
    # parameter-server training: a table split over servers, prefetched from them
    "trainer_id": 0,
    "height_sections": [],
    "epmap": [],
    "table_names": [],
    "remote_prefetch": False,
    # the executor's garbage collector and run-time shape inference
    "skip_eager_deletion_vars": [],
    "@ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE@": True,
}


# a layout's name where only a backend reads it (softmax's, transpose's data_format, which Fluid's and Paddle
# 2.6.2's kernels parse with StringToDataLayout: another string fails there, tools/paddle26_enum_attrs.py)
LAYOUT_NAME = Attr("AnyLayout", choices=("AnyLayout", "NCHW", "NHWC"))


def backend_attrs(*names):
    """The attributes ``names`` of BACKEND_ATTRS, each with Fluid's default and no check (height_sections:
    Fluid's LONGS)."""
    return {n: Attr(BACKEND_ATTRS[n], long=n == "height_sections") for n in names}


def positive(x):
    return x > 0


def in_range(lo, hi):
    """check: lo <= x <= hi, compared as the float32 values Fluid compares (its 0.001f bound holds the
    float32 1e-3, 0.0010000000474974513, which Fluid stores for 1e-3)."""
    lo32, hi32 = np.float32(lo), np.float32(hi)
    return lambda x: isinstance(x, numbers.Real) and not isinstance(x, bool) and lo32 <= np.float32(x) <= hi32


def is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def int_list(v):
    return isinstance(v, (list, tuple)) and all(is_int(i) for i in v)


def dtype_or_none(v):
    """check: None, or a dtype name convert_dtype knows."""
    if v is None:
        return True
    try:
        convert_dtype(v)
        return True
    except PeError:
        return False


# -- attributes a model file may give any op without the op declaring them ---------------------------
# (registry.refuse_undeclared: every other undeclared attribute of a model file is refused)
# what only steers backends, placement or debugging (never the numbers on a CPU or GPU)
MODEL_BACKEND_ATTRS = {
    "op_callstack",
    "op_role",
    "op_role_var",
    "op_namescope",
    "op_device",
    "use_mkldnn",
    "use_cudnn",
    "mkldnn_data_type",
    "use_quantizer",
    "x_data_format",
    "y_data_format",
    "Scale_x",
    "Scale_y",
    "Scale_out",
    "scale_x",
    "scale_y",
    "scale_out",
    "force_fp32_output",
    "workspace_size_MB",
    "exhaustive_search",
    "with_quant_attr",
    "is_test",
}
# what Fluid's slim quantization passes note on the ops they quantize (for int8 engines; pe computes
# with the fake quantize ops the program holds): these names, and any with a dot (``<input>.min``);
# the op keeps them, as Fluid's does, so a model saved again still has them
QUANT_INFO_ATTRS = {
    "quantization_type",
    "skip_quant",
    "activation_bits",
    "out_threshold",
    "out_min",
    "out_max",
    "quantize_weight_bits",
}
# attributes a later Fluid added whose value here means "as before" (no layout, no cast)
NEUTRAL_ATTRS = {"data_format": ("AnyLayout",), "in_dtype": (-1,), "out_dtype": (-1,)}


def undeclared_kind(name, value):
    """What an attribute an op does not declare is, when a model file may carry it: "quant" (a
    quantization note, kept on the op), "backend" (a backend or debugging switch, dropped) or "neutral"
    (a value meaning "as before", dropped); None for anything else (refused)."""
    if name in QUANT_INFO_ATTRS or "." in name or name.endswith("_quant_scale"):
        return "quant"
    if name in MODEL_BACKEND_ATTRS:
        return "backend"
    if value in NEUTRAL_ATTRS.get(name, ()):
        return "neutral"
    return None


def dtype_code(v):
    """check: a dtype Paddle's VarType code (or any spelling convert_dtype knows) names, kept as given (an INT
    attribute of Paddle 2.x's ops: set_value's dtype, transfer_dtype's out_dtype, ...)."""
    return v is not None and dtype_or_none(v)
