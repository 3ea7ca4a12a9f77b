"""CPU out-kernels of ops/tensor_file.py (meta rules: shapes/tensor_file.py), in Fluid's formats
(pe_cli/base/lod_tensor_file.py). load also reads ``file_path + '.npy'``, as pe's ``save_vars`` wrote it before it
wrote Fluid's files (of the two, the one saved last). Sizes are checked against pe's data limit first; a missing, irregular, truncated or
longer file is a one-line error; every file is written to a temporary name and renamed into place."""

import os

import numpy as np

from ...base.atomic_file import write_file
from ...base.errors import PeError
from ...base.limits import read_regular_file
from ...base.lod_tensor_file import read_lod_tensors, read_selected_rows, write_lod_tensor, write_selected_rows
from ...base.npy import read_npy
from ...base.selected_rows import SelectedRows
from ...base.dims import numel
from ...shapes import tensor_file as rules
from ..structured import adapter


def _mtime(path):
    return os.stat(path).st_mtime_ns if os.path.isfile(path) else None


def _file_bytes(op, path):
    try:
        return read_regular_file(path, "tensor file", f"{op}: {path}")
    except OSError as e:
        raise PeError(f"{op}: cannot open {path} to load the variable: {e.strerror or e}") from None


def read_tensor_file(path):
    """(array, lod) of the variable saved at ``path`` (Fluid's file, or pe's ``path.npy``)."""
    fluid_time, npy_time = _mtime(path), _mtime(path + ".npy")
    if npy_time is not None and (fluid_time is None or npy_time >= fluid_time):
        return read_npy(path + ".npy"), []
    if fluid_time is None and npy_time is None:
        raise PeError(f"load: cannot open {path} (nor {path}.npy) to load the variable: no such file")
    data = _file_bytes("load", path)
    return read_lod_tensors(data, f"load: {path}", count=1)[0]


def _part(array, attrs):
    """Fluid's seek: Out = the ``shape`` values that start at value ``seek`` of the saved tensor (row-major);
    seek -1 (the default): the whole tensor."""
    seek, shape = attrs.get("seek", -1), list(attrs.get("shape") or [])
    if seek == -1:
        return array
    count = numel(shape)  # Python's ints: int64 wrapped [2^32, 2^32] to 0
    if seek < 0 or any(d < 0 for d in shape) or seek + count > array.size:
        raise PeError(
            f"load: seek={seek} with shape={shape} asks for values {seek}..{seek + count - 1} of "
            f"{attrs['file_path']}, which holds {array.size}: give seek >= 0 and a shape that fits"
        )
    return array.reshape(-1)[seek : seek + count].reshape(shape)


def _fp16(array, attrs):
    return array.astype(np.float16) if attrs["load_as_fp16"] else array


def load_out(ins, outs, attrs, meta, ctx):
    if "Out" in (ctx.row_sparse or ()):  # Paddle's load_sr: the file's SelectedRows, as save wrote it
        rows, height, values = read_selected_rows(
            _file_bytes("load", attrs["file_path"]), f"load: {attrs['file_path']}"
        )
        outs["Out"] = SelectedRows(np.asarray(rows, np.int64), values, height)
        return
    array, lod = read_tensor_file(attrs["file_path"])
    outs["Out"] = _fp16(_part(array, attrs), attrs)
    if lod:
        ctx.set_lod_map({"Out": lod})


def load_combine_out(ins, outs, attrs, meta, ctx):
    path = attrs["file_path"]
    if attrs["model_from_memory"]:
        data, where = (path.encode("latin-1") if isinstance(path, str) else bytes(path)), "load_combine: the bytes"
    else:
        data, where = _file_bytes("load_combine", path), f"load_combine: {path}"
    tensors = read_lod_tensors(data, where, count=ctx.output_counts["Out"])
    ctx.set_lods("Out", [lod or None for _, lod in tensors])
    outs["Out"] = [_fp16(a, attrs) for a, _ in tensors]


def _serialized(value, lod, attrs):
    if isinstance(value, SelectedRows):
        return write_selected_rows(np.asarray(value.rows), value.height, np.asarray(value.values))
    array = np.asarray(value)
    if attrs["save_as_fp16"] and array.dtype.kind == "f":
        array = array.astype(np.float16)
    return write_lod_tensor(array, lod or ())


def _write(op, path, data, attrs):
    if os.path.exists(path) and not attrs["overwrite"]:
        raise PeError(f"{op}: {path} exists!, cannot save to it when overwrite is set to false.")
    write_file(path, lambda f: f.write(data))


def save_out(ins, outs, attrs, meta, ctx):
    _write("save", attrs["file_path"], _serialized(ins["X"], ctx.lod.get("X"), attrs), attrs)


def save_combine_out(ins, outs, attrs, meta, ctx):
    """save_combine's "file": every X serialized (its refusal of a row-sparse X: the meta rule's), into the file,
    or, with save_to_memory, into Y as bytes."""
    lods = ctx.lod.get("X") or [None] * len(ins["X"])
    data = b"".join(_serialized(x, lod, attrs) for x, lod in zip(ins["X"], lods))
    if attrs["save_to_memory"]:
        outs["Y"] = np.frombuffer(data, np.uint8).copy()
        return
    _write("save_combine", attrs["file_path"], data, attrs)


def read_file_out(ins, outs, attrs, meta):
    """read_file (paddle.vision.ops.read_file): the bytes of the file ``filename``, uint8 (a missing file or a
    directory a one-line error: Paddle's kernel fails on them with PreconditionNotMetError / MemoryError)."""
    try:
        data = read_regular_file(attrs["filename"], "file", f"read_file: {attrs['filename']}")
    except OSError as e:
        raise PeError(f"read_file: cannot read {attrs['filename']!r}: {e.strerror or e}") from None
    outs["Out"] = np.frombuffer(data, np.uint8).copy()


load_out.takes_context = load_combine_out.takes_context = True  # (the LoDs read, the count of outputs)
save_out.takes_context = save_combine_out.takes_context = True  # (the LoDs written)
load_out.launches = load_combine_out.launches = save_out.launches = save_combine_out.launches = None
read_file_out.launches = None

# the kernels by name CUDA's kernels are given (kernels/cuda/tensor_file.py's HOST_OPS): the adapters
load = adapter(rules.load_meta, load_out, "load")
load_combine = adapter(rules.load_combine_meta, load_combine_out, "load_combine")
save = adapter(rules.save_meta, save_out, "save")
save_combine = adapter(rules.save_combine_meta, save_combine_out, "save_combine")
read_file = adapter(rules.read_file_meta, read_file_out, "read_file")
