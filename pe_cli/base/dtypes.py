"""Data types: numpy names are canonical; Fluid's spellings are accepted everywhere."""
import numpy as np

from .errors import UnknownDtypeError

_ALIASES = {
    "float32": "float32", "fp32": "float32", "float": "float32",
    "float64": "float64", "fp64": "float64", "double": "float64",
    "float16": "float16", "fp16": "float16",
    "int64": "int64", "long": "int64",
    "int32": "int32", "int": "int32",
    "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
}

DTYPE_NAMES = frozenset(_ALIASES.values())       # the canonical names (Fluid's data_feeder.convert_dtype takes only these)

# Fluid's VarType enum numbers of the dtypes (``int(core.VarDesc.VarType.FP32)`` is 5)
_ENUM = {"bool": 0, "int16": 1, "int32": 2, "int64": 3, "float16": 4, "float32": 5, "float64": 6,
         "uint8": 20, "int8": 21}
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
    INT8, UINT8, INT32, INT64, BOOL = (_DTypeName("int8"), _DTypeName("uint8"), _DTypeName("int32"),
                                       _DTypeName("int64"), _DTypeName("bool"))
    INT16 = _DTypeName("int16")
    LOD_TENSOR = "lod_tensor"
    SELECTED_ROWS = "selected_rows"     # a row-sparse value (pe_cli/base/selected_rows.py)
    LOD_TENSOR_ARRAY, LOD_RANK_TABLE = "lod_tensor_array", "LOD_RANK_TABLE"   # Fluid's other variable kinds
    FEED_MINIBATCH, FETCH_LIST, STEP_SCOPES, READER, RAW = "feed_minibatch", "fetch_list", "step_scopes", "reader", "raw"
    PLACE_LIST = "place_list"           # get_places' output: the places a program may run on


def convert_dtype(dtype):
    """Any accepted spelling (str, numpy dtype, numpy type) -> canonical name like 'float32'."""
    if dtype is None:
        return None
    if isinstance(dtype, (int, np.integer)) and not isinstance(dtype, bool) and int(dtype) in _BY_ENUM:
        dtype = _BY_ENUM[int(dtype)]         # Fluid's VarType number (a ProgramDesc's, an op test's attribute)
    if not isinstance(dtype, str):
        dtype = np.dtype(dtype).name
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
