"""``paddle.dataset.mnist``: train() and test() readers of (image float32[784] scaled to [-1, 1],
label int), as Paddle's loader yields them.

Files: Paddle's cache ``~/.cache/paddle/dataset/mnist/`` (``$PADDLE_DATA_HOME`` or ``$HOME`` may move
it) holding the IDX files Paddle downloads (train-images-idx3-ubyte.gz, ...). When the cache lacks
them, pe's bundled data/mnist/ (the 10,000 MNIST test images) stands in: train() reads its first 8,000
images and test() its last 2,000, the split pe's configs use; a note on stderr says so once. A cache
holding one file of a pair but not the other, or images and labels of different counts, is refused in
one line naming both files (and the counts): never the bundled set in its place, never a cut.
"""

import os
import sys

import numpy as np

from ...data.idx import load_mnist, read_idx
from ...base.errors import PeError
from .common import dataset_dir

__all__ = ["train", "test", "fetch"]

URL_PREFIX = "http://yann.lecun.com/exdb/mnist/"
TRAIN = ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz")
TEST = ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")
BUNDLED = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))), "data", "mnist"
)
_noted = set()


def cache_dir():
    return dataset_dir("mnist")


def _arrays(files, bundled_split):
    images, labels = (os.path.join(cache_dir(), f) for f in files)
    present = [p for p in (images, labels) if os.path.lexists(p)]
    if len(present) == 2:
        x, y = read_idx(images), read_idx(labels)
        if len(x) != len(y):
            raise PeError(
                f"paddle.dataset.mnist: {images} holds {len(x)} images but {labels} holds {len(y)} labels: "
                f"one label per image (pe cuts neither); put a matching pair in {cache_dir()}"
            )
        return x, y
    if present:
        missing = labels if present[0] == images else images
        raise PeError(
            f"paddle.dataset.mnist: {present[0]} is there but {missing} is absent (pe downloads nothing): "
            f"put both IDX files in {cache_dir()}, or neither to read pe's bundled MNIST"
        )
    if os.path.exists(os.path.join(BUNDLED, TEST[0])):
        if bundled_split not in _noted:
            _noted.add(bundled_split)
            print(
                f"paddle.dataset.mnist: {images} is absent; reading pe's bundled MNIST ({BUNDLED}, "
                f"split '{bundled_split}')",
                file=sys.stderr,
            )
        return load_mnist(BUNDLED, bundled_split)
    raise PeError(
        f"paddle.dataset.mnist: {images} and {labels} are absent (pe downloads nothing): "
        f"put the MNIST IDX files ({files[0]}, {files[1]}) in {cache_dir()} (Paddle downloads them from "
        f"{URL_PREFIX})"
    )


def _reader(files, bundled_split):
    def reader():
        images, labels = _arrays(files, bundled_split)
        images = images.reshape(len(images), -1).astype(np.float32) / 255.0 * 2.0 - 1.0
        for image, label in zip(images, labels):
            yield image, int(label)

    return reader


def train():
    """A reader of the MNIST training set (the bundled 8,000 when the cache has none)."""
    return _reader(TRAIN, "train")


def test():
    """A reader of the MNIST test set (the bundled last 2,000 when the cache has none)."""
    return _reader(TEST, "eval")


def fetch():
    """Checks that both splits can be read (from the cache or pe's bundled stand-in): pe downloads nothing."""
    _arrays(TRAIN, "train")
    _arrays(TEST, "eval")
