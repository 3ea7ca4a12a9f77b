"""Paddle's dataset caches are read whole or refused (issue 99 item 3): a ``paddle.dataset.mnist``
cache holding the images but not their labels, or 100 images with 60 labels, is one line naming the
files (and the counts), never pe's bundled images in their place or a silent cut to 60 (Paddle's
``vision.datasets.MNIST`` refuses the same files); ``uci_housing`` with a word among its numbers is one
line naming the file, the line and the word, never a traceback. Real ``pe fluid`` processes."""

import gzip
import struct

import numpy as np

from tests.cli.test_helpers import pe

MNIST = """\
import paddle
import paddle.dataset.mnist as mnist
print("samples", sum(1 for _ in mnist.train()()))
"""
HOUSING = """\
import paddle
import paddle.dataset.uci_housing as uci_housing
print("samples", sum(1 for _ in uci_housing.train()()))
"""


def _idx(path, array):
    kind = {1: 0x0801, 3: 0x0803}[array.ndim]
    header = struct.pack(">I", kind) + b"".join(struct.pack(">I", d) for d in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def _fluid(tmp_path, script):
    (tmp_path / "s.py").write_text(script)
    return pe("fluid", "s.py", cwd=tmp_path, env={"PADDLE_DATA_HOME": str(tmp_path / "home")}, timeout=120)


def _one_line(proc):
    err = proc.stderr.strip()
    assert proc.returncode != 0 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert "samples" not in proc.stdout
    return err


def test_mnist_images_without_labels_are_refused_naming_both_files(tmp_path):
    folder = tmp_path / "home" / "mnist"
    folder.mkdir(parents=True)
    _idx(folder / "train-images-idx3-ubyte.gz", np.zeros((100, 28, 28)))
    err = _one_line(_fluid(tmp_path, MNIST))
    assert f"{folder}/train-images-idx3-ubyte.gz is there but {folder}/train-labels-idx1-ubyte.gz is absent" in err
    assert "bundled" in err  # (what it would read with neither)


def test_mnist_images_and_labels_of_different_counts_are_refused_not_cut(tmp_path):
    folder = tmp_path / "home" / "mnist"
    folder.mkdir(parents=True)
    _idx(folder / "train-images-idx3-ubyte.gz", np.zeros((100, 28, 28)))
    _idx(folder / "train-labels-idx1-ubyte.gz", np.arange(60) % 10)
    err = _one_line(_fluid(tmp_path, MNIST))
    assert f"{folder}/train-images-idx3-ubyte.gz holds 100 images but " in err
    assert f"{folder}/train-labels-idx1-ubyte.gz holds 60 labels" in err
    _idx(folder / "train-labels-idx1-ubyte.gz", np.arange(100) % 10)
    proc = _fluid(tmp_path, MNIST)
    assert proc.returncode == 0 and "samples 100" in proc.stdout, proc.stderr


def test_uci_housing_with_a_word_among_its_numbers_is_one_line(tmp_path):
    folder = tmp_path / "home" / "uci_housing"
    folder.mkdir(parents=True)
    rows = [" ".join(str(v) for v in range(1, 15))] * 5
    rows[3] = rows[3].replace(" 7 ", " seven ")
    (folder / "housing.data").write_text("\n".join(rows) + "\n")
    err = _one_line(_fluid(tmp_path, HOUSING))
    assert f"{folder}/housing.data:4: 'seven' is not a number" in err
