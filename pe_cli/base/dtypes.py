"""Data types: numpy names are canonical; Fluid's spellings are accepted everywhere."""

import numpy as np

from .errors import UnknownDtypeError

_ALIASES = {
    "float32": "float32",
    "fp32": "float32",
    "float": "float32",
    "float64": "float64",
    "fp64": "float64",
    "double": "float64",
    "float16": "float16",
    "fp16": "float16",
    "int64": "int64",
    "long": "int64",
    "int32": "int32",
    "int": "int32",
    "int16": "int16",
    "int8": "int8",
    "uint8": "uint8",
    "bool": "bool",
    "complex64": "complex64",
    "complex128": "complex128",  # Paddle 2.x's (the complex family's ops)
}

DTYPE_NAMES = frozenset(_ALIASES.values())  # the canonical names (Fluid's data_feeder.convert_dtype takes only these)
COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}  # a real dtype's complex twin
REAL_OF = {v: k for k, v in COMPLEX_OF.items()}

# Fluid's VarType enum numbers of the dtypes (``int(core.VarDesc.VarType.FP32)`` is 5)
_ENUM = {
    "bool": 0,
    "int16": 1,
    "int32": 2,
    "int64": 3,
    "float16": 4,
    "float32": 5,
    "float64": 6,
    "uint8": 20,
    "int8": 21,
    "bfloat16": 22,
    "complex64": 23,
    "complex128": 24,
}
# dtypes Paddle 2.x names that pe refuses, with the line it raises
_REFUSED = {
    "bfloat16": "paddle.bfloat16: pe has no bfloat16 dtype (numpy has none; pe computes in float16, "
    "float32 and float64)"
}
_BY_ENUM = {v: k for k, v in _ENUM.items()}


class _DTypeName(str):
    """A dtype's name (it equals 'float32') whose ``int()`` is Fluid's VarType number, as scripts and
    Paddle's op tests write ``int(core.VarDesc.VarType.FP32)`` for a dtype attribute."""

    def __int__(self):
        return _ENUM[str(self)]

    __index__ = __int__


class VarType:
    """``fluid.core.VarDesc.VarType`` spellings."""

    FP16, FP32, FP64 = _DTypeName("float16"), _DTypeName("float32"), _DTypeName("float64")
    INT8, UINT8, INT32, INT64, BOOL = (
        _DTypeName("int8"),
        _DTypeName("uint8"),
        _DTypeName("int32"),
        _DTypeName("int64"),
        _DTypeName("bool"),
    )
    INT16 = _DTypeName("int16")
    BF16 = _DTypeName("bfloat16")  # refused where it is used (convert_dtype)
    COMPLEX64, COMPLEX128 = _DTypeName("complex64"), _DTypeName("complex128")
    LOD_TENSOR = "lod_tensor"
    SELECTED_ROWS = "selected_rows"  # a row-sparse value (pe_cli/base/selected_rows.py)
    LOD_TENSOR_ARRAY, LOD_RANK_TABLE = "lod_tensor_array", "LOD_RANK_TABLE"  # Fluid's other variable kinds
    FEED_MINIBATCH, FETCH_LIST, STEP_SCOPES, READER, RAW = (
        "feed_minibatch",
        "fetch_list",
        "step_scopes",
        "reader",
        "raw",
    )
    PLACE_LIST = "place_list"  # get_places' output: the places a program may run on


def convert_dtype(dtype):
    """Any accepted spelling (str, numpy dtype, numpy type) -> canonical name like 'float32'."""
    if dtype is None:
        return None
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool) and int(dtype) in _BY_ENUM:
        dtype = _BY_ENUM[int(dtype)]  # Fluid's VarType number (a ProgramDesc's, an op test's attribute)
    if not isinstance(dtype, str):
        dtype = np.dtype(dtype).name
    if dtype.lower() in _REFUSED:
        raise UnknownDtypeError(_REFUSED[dtype.lower()])
    name = _ALIASES.get(dtype.lower())
    if name is None:
        raise UnknownDtypeError(f"unknown dtype {dtype!r}; use one of {sorted(set(_ALIASES.values()))}")
    return name


def var_type(dtype):
    """``convert_dtype``'s name as Fluid's VarType: it equals 'float32' and its ``int()`` is Fluid's number
    (``fluid.framework.convert_np_dtype_to_dtype_``)."""
    return _DTypeName(convert_dtype(dtype))


def is_float(dtype):
    return dtype in ("float16", "float32", "float64")


def is_complex(dtype):
    return dtype in ("complex64", "complex128")


def carries_grad(dtype):
    """A float or complex value has a gradient (a complex one's is dL/dre + i dL/dim, ops/complex.py)."""
    return is_float(dtype) or is_complex(dtype)
