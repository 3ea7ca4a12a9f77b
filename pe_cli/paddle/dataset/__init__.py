"""``paddle.dataset``: readers over datasets already on this machine, in the formats and at the
paths Paddle 1.8 uses (~/.cache/paddle/dataset/NAME/, common.py), with Paddle's reader signatures.
Nothing downloads; a missing file is one error naming it, where to put it and where Paddle gets it.
Nothing is unpickled (CIFAR's pickled batches are parsed, flowers' .mat files read by pe)."""
from . import (cifar, conll05, flowers, imdb, imikolov, mnist, movielens, sentiment, uci_housing,  # noqa: F401
               wmt14, wmt16)

__all__ = ["cifar", "conll05", "flowers", "imdb", "imikolov", "mnist", "movielens", "sentiment", "uci_housing",
           "wmt14", "wmt16"]
