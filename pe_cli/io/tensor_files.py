"""One LoDTensor or one SelectedRows in a file (or a BytesIO) of its own, in Fluid's binary forms
(pe_cli/base/lod_tensor_file.py): Fluid core's ``save_lod_tensor`` / ``load_lod_tensor`` /
``save_selected_rows`` / ``load_selected_rows`` and ``paddle.save(..., use_binary_format=True)``.
A file is written atomically; reading checks every count against the bytes that are there."""

import io
import os

import numpy as np

from ..base.limits import read_regular_file
from ..base.lod_tensor_file import read_lod_tensors, read_selected_rows, write_lod_tensor, write_selected_rows
from ..executor.scope import ScopeVariable
from ..framework.lod_tensor import LoDTensor
from .atomic import write_file

__all__ = [
    "is_file_path",
    "is_memory_buffer",
    "write_bytes",
    "read_bytes",
    "save_lod_tensor",
    "load_lod_tensor",
    "save_selected_rows",
    "load_selected_rows",
    "new_selected_rows",
]


def is_file_path(path):
    return isinstance(path, (str, os.PathLike))


def is_memory_buffer(path):
    return isinstance(path, io.BytesIO)


def write_bytes(path, data):
    """Writes ``data`` to the file ``path`` (atomically) or into the BytesIO ``path``."""
    if is_file_path(path):
        write_file(os.fspath(path), lambda f: f.write(data))
    elif is_memory_buffer(path):
        path.write(data)
    else:
        raise NotImplementedError(f"Only supports saving objects to file or BytesIO, but received {type(path)}")


def read_bytes(path, what="file"):
    """The bytes of the file ``path``, or what is left in the BytesIO ``path`` (its position kept)."""
    if is_memory_buffer(path):
        return path.getvalue()[path.tell() :]
    if not is_file_path(path):
        raise NotImplementedError(f"Only supports load objects from file or BytesIO, but received {type(path)}")
    path = os.fspath(path)
    return read_regular_file(path, what, f"'{path}'")


def new_selected_rows(rows=(), height=0):
    """A row-sparse value of its own (no scope), as Fluid core's ``SelectedRows(rows, height)``."""
    holder = ScopeVariable("selected_rows").get_selected_rows()
    holder.set_rows(rows)
    holder.set_height(height)
    return holder


def save_lod_tensor(tensor, path):
    """Writes ``tensor`` (a LoDTensor holding data) at ``path``; returns the bytes written."""
    if not isinstance(tensor, LoDTensor) or tensor._array is None:
        raise ValueError("The saved tensor is not initialized.")
    data = write_lod_tensor(np.asarray(tensor), tensor.lod())
    write_bytes(path, data)
    return len(data)


def save_selected_rows(selected_rows, path):
    """Writes ``selected_rows`` (its rows, height and values) at ``path``; returns the bytes written."""
    if selected_rows._held() is None:
        raise ValueError("The saved tensor is not initialized.")
    data = write_selected_rows(selected_rows.rows(), selected_rows.height(), np.asarray(selected_rows.get_tensor()))
    write_bytes(path, data)
    return len(data)


def load_lod_tensor(path):
    """(LoDTensor, bytes read) of the one LoDTensor at ``path``."""
    data = read_bytes(path, "tensor file")
    ((array, lod),) = read_lod_tensors(data, f"'{path}'" if is_file_path(path) else "the buffer", count=1)
    return LoDTensor(array, lod), len(data)


def load_selected_rows(path):
    """(SelectedRows, bytes read) of the one SelectedRows at ``path``."""
    data = read_bytes(path, "tensor file")
    rows, height, values = read_selected_rows(data, f"'{path}'" if is_file_path(path) else "the buffer")
    holder = new_selected_rows(rows, height)
    holder.get_tensor().set(values)
    return holder, len(data)
