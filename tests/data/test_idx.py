"""The IDX reader: the bundled MNIST files, round trips, gzip or not, and broken files."""

import gzip

import numpy as np
import pytest

from pe_cli.data.idx import load_mnist, read_idx, write_idx
from pe_cli.base.errors import PeError


def test_bundled_mnist_split():
    x, y = load_mnist("data/mnist", "train")
    assert x.shape == (8000, 28, 28) and x.dtype == np.uint8
    assert y.shape == (8000,) and y.dtype == np.int64
    ex, ey = load_mnist("data/mnist", "eval")
    assert ex.shape == (2000, 28, 28) and len(ey) == 2000
    _, all_y = load_mnist("data/mnist", "all")
    assert np.bincount(all_y).tolist() == [980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    assert np.array_equal(np.concatenate([y, ey]), all_y)


@pytest.mark.parametrize("name", ["a.idx", "a.idx.gz"])
@pytest.mark.parametrize("dtype", ["uint8", "int32", "float32", "float64"])
def test_round_trip(tmp_path, name, dtype):
    a = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    if dtype == "uint8":
        a = np.arange(24, dtype=dtype).reshape(2, 3, 4)
    path = str(tmp_path / name)
    write_idx(path, a)
    b = read_idx(path)
    assert b.dtype == a.dtype and np.array_equal(a, b)


def test_gzip_detected_by_magic_not_name(tmp_path):
    raw = tmp_path / "raw.idx"
    write_idx(str(raw), np.arange(5, dtype=np.uint8))
    gz = tmp_path / "looks_plain.idx"
    gz.write_bytes(gzip.compress(raw.read_bytes()))
    assert read_idx(str(gz)).tolist() == [0, 1, 2, 3, 4]


def test_broken_files(tmp_path):
    bad = tmp_path / "bad.idx"
    bad.write_bytes(b"\x01\x02\x08\x01")
    with pytest.raises(PeError, match="not an IDX file"):
        read_idx(str(bad))
    image = tmp_path / "t10k-images-idx3-ubyte"  # what was found is named (issue 77)
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    with pytest.raises(PeError, match="is a PNG image, not an IDX file"):
        read_idx(str(image))
    short = tmp_path / "short.idx"
    short.write_bytes(bytes([0, 0, 8, 1]) + np.asarray([10], ">u4").tobytes() + b"abc")
    with pytest.raises(PeError, match="holds 3"):
        read_idx(str(short))
    with pytest.raises(PeError, match="no such file"):
        read_idx(str(tmp_path / "missing.idx"))
