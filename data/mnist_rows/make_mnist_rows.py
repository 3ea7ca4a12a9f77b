"""Writes data/mnist_rows/mnist_rows.npz from the bundled data/mnist/ test set: each image as a
variable-length sequence of its rows (28 pixel values per step), the blank rows (all zero) at its
top and bottom trimmed, so the sequences run 10 to 20 steps (19.8 on average).

Arrays: ``rows`` uint8 [total steps, 28] (every image's rows one after another), ``rows_lengths``
int64 [10000] (steps per image), ``label`` int64 [10000]: an ``.npz`` source with a ragged feed
``rows`` (docs/CONFIG.md). Same order as data/mnist, so the same split: train = first 8,000,
eval = last 2,000.

    python data/mnist_rows/make_mnist_rows.py      (from the repository root; deterministic)
"""

import os

import numpy as np

from pe_cli.data.idx import read_idx

HERE = os.path.dirname(os.path.abspath(__file__))
MNIST = os.path.join(HERE, "..", "mnist")


def trimmed(image):
    ink = np.nonzero(image.any(axis=1))[0]
    return image[ink[0] : ink[-1] + 1] if ink.size else image[:1]


def main():
    images = read_idx(os.path.join(MNIST, "t10k-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(MNIST, "t10k-labels-idx1-ubyte.gz"))
    seqs = [trimmed(im) for im in images]
    np.savez_compressed(
        os.path.join(HERE, "mnist_rows.npz"),
        rows=np.concatenate(seqs).astype(np.uint8),
        rows_lengths=np.array([len(s) for s in seqs], dtype=np.int64),
        label=labels.astype(np.int64),
    )


if __name__ == "__main__":
    main()
