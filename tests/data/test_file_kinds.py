"""A data file is known by its first bytes (pe_cli/data/file_kinds.py), so a reader given the wrong
kind names what it found (issue 77: a PNG or a text file once read as "not an IDX file")."""

import gzip
import pickle
import zipfile

import numpy as np
import pytest

from pe_cli.data import file_kinds
from pe_cli.data.idx import write_idx
from pe_cli.data.readers import DataError, read_npy, read_npz
from pe_cli.data.tables import read_table

PNG = b"\x89PNG\r\n\x1a\n" + bytes(24)


def test_each_kind_is_named_by_its_bytes(tmp_path):
    files = {
        "a.png": PNG,
        "a.jpg": b"\xff\xd8\xff\xe0" + bytes(8),
        "a.csv": b"x,y\n1,2\n",
        "empty": b"",
        "a.gz": gzip.compress(b"hello"),
        "a.pkl": pickle.dumps({1: 2}),
        "a.bin": bytes(range(200, 256)) * 3,
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    np.save(tmp_path / "a.npy", np.zeros(2))
    np.savez(tmp_path / "noext", x=np.zeros(2))
    (tmp_path / "noext.npz").rename(tmp_path / "arrays")  # a zip of .npy members, whatever its name
    write_idx(str(tmp_path / "images-idx3-ubyte"), np.zeros((2, 3, 3), np.uint8))
    write_idx(str(tmp_path / "images.gz"), np.zeros((2, 3), np.uint8))
    with zipfile.ZipFile(tmp_path / "a.zip", "w") as z:
        z.writestr("notes.txt", "x")
    want = {
        "a.png": "a PNG image",
        "a.jpg": "a JPEG image",
        "a.csv": file_kinds.TEXT,
        "empty": file_kinds.EMPTY,
        "a.gz": "a gzip-compressed file (not IDX inside)",
        "a.pkl": "a Python pickle",
        "a.bin": file_kinds.UNKNOWN,
        "a.npy": file_kinds.NPY,
        "arrays": file_kinds.NPZ,
        "images-idx3-ubyte": file_kinds.IDX,
        "images.gz": file_kinds.GZIP_IDX,
        "a.zip": "a zip archive",
    }
    assert {name: file_kinds.sniff(str(tmp_path / name)) for name in want} == want


def test_readers_name_what_they_were_given(tmp_path):
    (tmp_path / "x.png").write_bytes(PNG)
    (tmp_path / "x.txt").write_text("a,b\n1,2\n")
    for reader, path, said in (
        (read_npy, "x.png", "is a PNG image, not an NPY array"),
        (read_npy, "x.txt", "is a text file, not an NPY array"),
        (read_npz, "x.png", "is a PNG image, not an NPZ archive"),
        (lambda p: read_table(p, "csv"), "x.png", "is a PNG image, not a CSV table"),
    ):
        with pytest.raises(DataError, match=said):
            reader(str(tmp_path / path))
