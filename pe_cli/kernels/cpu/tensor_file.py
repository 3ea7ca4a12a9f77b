"""CPU kernel of ops/tensor_file.py: load reads one variable from ``file_path`` as Fluid's save op (and
``save_vars``) wrote it, a serialized LoDTensor; or from ``file_path + '.npy'``, as pe's ``save_vars``
writes it (of the two, the one saved last, as pe's load_vars reads them). Sizes are checked against
pe's data limit first; a missing, irregular, truncated or longer file is a one-line error."""
import os

import numpy as np

from ...base.errors import PeError
from ...base.limits import check_bytes, regular_file
from ...base.lod_tensor_file import read_lod_tensors
from ...base.npy import read_npy


def _mtime(path):
    return os.stat(path).st_mtime_ns if os.path.isfile(path) else None


def read_tensor_file(path):
    """(array, lod) of the variable saved at ``path`` (Fluid's file, or pe's ``path.npy``)."""
    fluid_time, npy_time = _mtime(path), _mtime(path + ".npy")
    try:
        if npy_time is not None and (fluid_time is None or npy_time >= fluid_time):
            return read_npy(path + ".npy"), []
        regular_file(path, "tensor file")
        check_bytes(os.path.getsize(path), f"load: {path}")
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise PeError(f"load: cannot open {path} (nor {path}.npy) to load the variable: {e.strerror or e}") from None
    return read_lod_tensors(data, f"load: {path}", count=1)[0]


def _part(array, attrs):
    """Fluid's seek: Out = the ``shape`` values that start at value ``seek`` of the saved tensor (row-major);
    seek -1 (the default): the whole tensor."""
    seek, shape = attrs.get("seek", -1), list(attrs.get("shape") or [])
    if seek == -1:
        return array
    count = int(np.prod(shape, dtype=np.int64))
    if seek < 0 or any(d < 0 for d in shape) or seek + count > array.size:
        raise PeError(f"load: seek={seek} with shape={shape} asks for values {seek}..{seek + count - 1} of "
                      f"{attrs['file_path']}, which holds {array.size}: give seek >= 0 and a shape that fits")
    return array.reshape(-1)[seek:seek + count].reshape(shape)


def load(ins, attrs):
    array, lod = read_tensor_file(attrs["file_path"])
    array = _part(array, attrs)
    if attrs["load_as_fp16"]:
        array = array.astype(np.float16)
    outs = {"Out": array}
    if lod:
        outs["@LOD"] = {"Out": lod}
    return outs
