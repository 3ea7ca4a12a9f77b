"""Data layers: the variables a program is fed through (and, as Fluid's ``layers.io``, the
py_reader family of readers.py); ``load``, a variable read from a file when the program runs."""
from ..framework import default_main_program
from ..framework.source import layer_guard
from .helper import LayerHelper
from .readers import create_py_reader_by_data, double_buffer, py_reader, read_file  # noqa: F401


def data(name, shape, append_batch_size=True, dtype="float32", lod_level=0, type=None, stop_gradient=True, *,
         need_check_feed=False):
    """A fed variable. With ``append_batch_size`` (Fluid 1.x default) a -1 batch dim is put first,
    unless the shape already has an unknown dim (None, which becomes -1, or a negative), as Fluid's.
    As Fluid's, a feed's shape is not checked against it (``fluid.data``'s is)."""
    shape = [-1 if d is None else d for d in shape]
    if append_batch_size and not any(isinstance(d, int) and d < 0 for d in shape):
        shape = [-1] + shape
    with layer_guard(name):
        return default_main_program().global_block().create_var(
            name=name, shape=shape, dtype=dtype, lod_level=lod_level, stop_gradient=stop_gradient,
            is_data=True, need_check_feed=need_check_feed)


def static_data(name, shape, dtype="float32", lod_level=0):
    """``fluid.data`` / ``paddle.static.data``: a fed variable whose ``shape`` includes the batch
    dimension (None or -1 there): ``data`` with ``append_batch_size=False``."""
    shape = [-1 if d is None else int(d) for d in shape]
    return data(name=name, shape=shape, append_batch_size=False, dtype=dtype, lod_level=lod_level,
                need_check_feed=True)


def load(out, file_path, load_as_fp16=None):
    """Appends Fluid's ``load`` op: when the program runs, ``out`` takes the tensor (and its LoD) that
    Fluid's save op or ``fluid.io.save_vars`` wrote to ``file_path``; float16 with ``load_as_fp16``."""
    attrs = {"file_path": file_path}
    if load_as_fp16 is not None:
        attrs["load_as_fp16"] = load_as_fp16
    LayerHelper("load").append_op("load", {}, {"Out": [out]}, attrs)
