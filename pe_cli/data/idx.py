"""The IDX format (MNIST, Fashion-MNIST): a big-endian header, then the values in row-major order.

Header: two zero bytes, one byte for the value type, one byte for the number of dimensions, then one
big-endian u32 size per dimension. Files may be gzip-compressed (``.gz``); the magic bytes decide,
not the name.
"""

import gzip
import os
import zlib

import numpy as np

from ..base.atomic_file import atomic_write
from ..base.errors import PeError
from ..base.limits import check_bytes, regular_file
from . import file_kinds

# type byte -> big-endian numpy dtype
_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}

MNIST_FILES = {
    "images": "t10k-images-idx3-ubyte.gz",
    "labels": "t10k-labels-idx1-ubyte.gz",
}
# The bundled split of the 10,000-image MNIST test set (data/mnist/README.md).
MNIST_SPLITS = {"train": (0, 8000), "eval": (8000, 10000), "all": (0, None)}


def _open(path):
    with open(path, "rb") as f:
        magic = f.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def read_idx(path):
    """Reads an IDX file (gzip or not) into a numpy array of its native dtype (uint8 for MNIST).
    The header is read and checked first, and then exactly the bytes it announces: a header that
    claims 10^9 items, or a gzip that inflates past the declared size, costs no memory."""
    if not os.path.exists(path):
        raise PeError(f"{path}: no such file")
    regular_file(path, "IDX file")
    try:
        with _open(path) as f:
            dtype, shape, count, header = _read_header(path, f)
            want = count * np.dtype(dtype).itemsize
            data = _read_at_most(f, want + 1)
    except (OSError, EOFError, zlib.error) as e:
        raise PeError(f"{path}: cannot read: {e}") from None
    if len(data) != want:
        raise PeError(
            f"{path}: IDX header says shape {list(shape)} ({want} bytes of data) "
            f"but the file holds {'more' if len(data) > want else len(data)}"
        )
    array = np.frombuffer(data, dtype, count=count).reshape(shape)
    return array.astype(np.dtype(dtype).newbyteorder("="))


def _read_at_most(f, n, chunk=16 << 20):
    """Up to ``n`` bytes, read in chunks: memory follows what the file holds, not what it claims."""
    parts, got = [], 0
    while got < n:
        part = f.read(min(chunk, n - got))
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _read_header(path, f):
    head = f.read(4)
    if len(head) < 4 or head[0] != 0 or head[1] != 0:
        raise PeError(
            f"{path} is {file_kinds.sniff(path)}, not an IDX file (MNIST's format: a header of two zero "
            f"bytes, the value type and the number of dimensions)"
        )
    type_byte, ndim = head[2], head[3]
    dtype = _TYPES.get(type_byte)
    if dtype is None:
        raise PeError(f"{path}: unknown IDX value type 0x{type_byte:02x}")
    dims = f.read(4 * ndim)
    if len(dims) < 4 * ndim:
        raise PeError(f"{path}: truncated IDX header")
    shape = tuple(int(d) for d in np.frombuffer(dims, ">u4", count=ndim))
    count = 1
    for d in shape:
        count *= d
    check_bytes(count * np.dtype(dtype).itemsize, f"{path}: the IDX header's shape {list(shape)}")
    return dtype, shape, count, 4 + 4 * ndim


def write_idx(path, array):
    """Writes an array as IDX (gzip-compressed when ``path`` ends in .gz). Used by tests and tools."""
    array = np.asarray(array)
    codes = {np.dtype(v).newbyteorder("="): k for k, v in _TYPES.items()}
    code = codes.get(array.dtype)
    if code is None:
        raise PeError(f"write_idx: dtype {array.dtype} has no IDX type code")
    header = bytes([0, 0, code, array.ndim]) + np.asarray(array.shape, ">u4").tobytes()
    body = array.astype(np.dtype(_TYPES[code])).tobytes()
    data = gzip.compress(header + body) if path.endswith(".gz") else header + body
    atomic_write(path, data)


def load_mnist(directory, split="train", images=None, labels=None):
    """(images uint8 [N, 28, 28], labels int64 [N]) of a split of the bundled MNIST files.

    ``split`` is 'train' (first 8,000), 'eval' (last 2,000) or 'all'; ``images``/``labels`` name
    other files in ``directory`` (full MNIST, Fashion-MNIST), in which case 'all' is the natural split.
    """
    if split not in MNIST_SPLITS:
        raise PeError(f"load_mnist: split must be one of {list(MNIST_SPLITS)}, got {split!r}")
    x = read_idx(os.path.join(directory, images or MNIST_FILES["images"]))
    y = read_idx(os.path.join(directory, labels or MNIST_FILES["labels"])).astype(np.int64)
    if len(x) != len(y):
        raise PeError(f"{directory}: {len(x)} images but {len(y)} labels")
    start, stop = MNIST_SPLITS[split]
    return x[start:stop], y[start:stop]
