"""Data layers: the variables a program is fed through (and, as Fluid's ``layers.io``, the
py_reader family of readers.py); ``load``, a variable read from a file when the program runs."""

from ..base.dtypes import convert_dtype
from ..framework import default_main_program
from ..framework.source import layer_guard
from .checks import check_type
from .helper import LayerHelper
from .readers import create_py_reader_by_data, double_buffer, py_reader, read_file  # noqa: F401


def data(
    name,
    shape,
    append_batch_size=True,
    dtype="float32",
    lod_level=0,
    type=None,
    stop_gradient=True,
    *,
    check_feed=False,
):
    """A fed variable. With ``append_batch_size`` (Fluid 1.x default) a -1 batch dim is put first,
    unless the shape already has an unknown dim (None, which becomes -1, or a negative), as Fluid's.
    A ``name`` that is not a string or a ``shape`` that is not a list or tuple is a TypeError. As
    Fluid 1.8's, what is fed to it is not checked against the declared shape (a Fluid program may
    declare [batch * max_length, 1] and feed its shorter batches; a value of another dtype is
    converted to it); ``check_feed`` (pe's, for model files' feeds): checked as ``fluid.data``'s are."""
    check_type(name, "name", (bytes, str), "data")
    check_type(shape, "shape", (list, tuple), "data")
    shape = [-1 if d is None else d for d in shape]
    if append_batch_size and not any(isinstance(d, int) and d < 0 for d in shape):
        shape = [-1] + shape
    return _data_var(name, shape, dtype, lod_level, stop_gradient, checked=check_feed)


def _data_var(name, shape, dtype, lod_level, stop_gradient, checked):
    """The data variable; one of the same name declared before with another shape or dtype is a
    ValueError, as Fluid's Variable (re-declaring it as it was returns it)."""
    block = default_main_program().global_block()
    old = block.vars.get(name)
    if old is not None and old.shape is not None and tuple(old.shape) != tuple(shape):
        raise ValueError(
            f"Variable {name} has been created before. the previous shape is {tuple(old.shape)}; "
            f"the new shape is {tuple(shape)}. They are not matched."
        )
    if old is not None and old.dtype is not None and convert_dtype(old.dtype) != convert_dtype(dtype):
        raise ValueError(
            f"Variable {name} has been created before. The previous data type is "
            f"{convert_dtype(old.dtype)}; the new data type is {convert_dtype(dtype)}. They are not matched."
        )
    with layer_guard(name):
        return block.create_var(
            name=name,
            shape=shape,
            dtype=dtype,
            lod_level=lod_level,
            stop_gradient=stop_gradient,
            is_data=True,
            need_check_feed=checked,
        )


def static_data(name, shape, dtype="float32", lod_level=0):
    """``fluid.data`` / ``paddle.static.data``: a fed variable whose ``shape`` includes the batch
    dimension (None or -1 there): ``data`` with ``append_batch_size=False``, whose feeds are checked
    (rank, fixed dimensions, dtype; a FeedError, a ValueError, as Fluid's ``need_check_feed``)."""
    check_type(name, "name", (bytes, str), "data")
    check_type(shape, "shape", (list, tuple), "data")
    shape = [-1 if d is None else int(d) for d in shape]
    return _data_var(name, shape, dtype, lod_level, True, checked=True)


def load(out, file_path, load_as_fp16=None):
    """Appends Fluid's ``load`` op: when the program runs, ``out`` takes the tensor (and its LoD) that
    Fluid's save op or ``fluid.io.save_vars`` wrote to ``file_path``; float16 with ``load_as_fp16``."""
    attrs = {"file_path": file_path}
    if load_as_fp16 is not None:
        attrs["load_as_fp16"] = load_as_fp16
    LayerHelper("load").append_op("load", {}, {"Out": [out]}, attrs)
