"""Writes data/mnist_tokens/mnist_tokens.npz from the bundled data/mnist/ test set: each image as a
variable-length sequence of tokens, one token per non-blank row (the rows of data/mnist_rows, blank
rows at top and bottom trimmed, 10 to 20 steps), for models that start with an embedding.

A row's token: its 28 pixels cut into 7 groups of 4, each group a bit (set when the group's mean
intensity exceeds 64 of 255), the 7 bits read as a number: 128 token ids, 0 for an empty row.

Arrays: ``tokens`` int64 [total steps, 1] (every image's tokens one after another),
``tokens_lengths`` int64 [10000] (steps per image), ``label`` int64 [10000]: an ``.npz`` source with a
ragged feed ``tokens`` (docs/CONFIG.md). Same order as data/mnist, so the same split: train = first
8,000, eval = last 2,000.

    python data/mnist_tokens/make_mnist_tokens.py      (from the repository root; deterministic)
"""

import os

import numpy as np

from pe_cli.data.idx import read_idx

HERE = os.path.dirname(os.path.abspath(__file__))
MNIST = os.path.join(HERE, "..", "mnist")
GROUPS, THRESHOLD = 7, 64
VOCAB = 2**GROUPS


def trimmed(image):
    ink = np.nonzero(image.any(axis=1))[0]
    return image[ink[0] : ink[-1] + 1] if ink.size else image[:1]


def tokens(rows):
    """[steps, 28] uint8 -> [steps] token ids in [0, VOCAB)."""
    groups = rows.reshape(len(rows), GROUPS, -1).astype(np.float64).mean(axis=2) > THRESHOLD
    return groups.astype(np.int64) @ (1 << np.arange(GROUPS - 1, -1, -1))


def main():
    images = read_idx(os.path.join(MNIST, "t10k-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(MNIST, "t10k-labels-idx1-ubyte.gz"))
    seqs = [tokens(trimmed(im)) for im in images]
    np.savez_compressed(
        os.path.join(HERE, "mnist_tokens.npz"),
        tokens=np.concatenate(seqs).astype(np.int64).reshape(-1, 1),
        tokens_lengths=np.array([len(s) for s in seqs], dtype=np.int64),
        label=labels.astype(np.int64),
    )


if __name__ == "__main__":
    main()
