"""Data layers: the variables a program is fed through."""
from ..framework import default_main_program
from ..framework.source import layer_guard


def data(name, shape, append_batch_size=True, dtype="float32", lod_level=0, type=None, stop_gradient=True):
    """A fed variable. With ``append_batch_size`` (Fluid 1.x default) a -1 batch dim is put first,
    unless the shape already has a -1 in it."""
    shape = list(shape)
    if append_batch_size and -1 not in shape:
        shape = [-1] + shape
    with layer_guard(name):
        return default_main_program().global_block().create_var(
            name=name, shape=shape, dtype=dtype, lod_level=lod_level, stop_gradient=stop_gradient,
            is_data=True, need_check_feed=True)
