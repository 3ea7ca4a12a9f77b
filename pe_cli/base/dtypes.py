"""Data types: numpy names are canonical; Fluid's spellings are accepted everywhere."""
import numpy as np

from .errors import ArgumentValueError

_ALIASES = {
    "float32": "float32", "fp32": "float32", "float": "float32",
    "float64": "float64", "fp64": "float64", "double": "float64",
    "float16": "float16", "fp16": "float16",
    "int64": "int64", "long": "int64",
    "int32": "int32", "int": "int32",
    "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool",
}


class VarType:
    """``fluid.core.VarDesc.VarType`` spellings."""
    FP16, FP32, FP64 = "float16", "float32", "float64"
    INT8, UINT8, INT16, INT32, INT64, BOOL = "int8", "uint8", "int16", "int32", "int64", "bool"
    LOD_TENSOR = "lod_tensor"
    SELECTED_ROWS = "selected_rows"     # a row-sparse value (pe_cli/base/selected_rows.py)
    LOD_TENSOR_ARRAY, LOD_RANK_TABLE = "lod_tensor_array", "LOD_RANK_TABLE"   # Fluid's other variable kinds
    FEED_MINIBATCH, FETCH_LIST, STEP_SCOPES, READER, RAW = "feed_minibatch", "fetch_list", "step_scopes", "reader", "raw"


def convert_dtype(dtype):
    """Any accepted spelling (str, numpy dtype, numpy type) -> canonical name like 'float32'."""
    if dtype is None:
        return None
    if not isinstance(dtype, str):
        dtype = np.dtype(dtype).name
    name = _ALIASES.get(dtype.lower())
    if name is None:
        raise ArgumentValueError(f"unknown dtype {dtype!r}; use one of {sorted(set(_ALIASES.values()))}")
    return name


def is_float(dtype):
    return dtype in ("float16", "float32", "float64")
