"""``paddle.dataset``: readers over datasets already on this machine, in the formats and at the
paths Paddle uses (~/.cache/paddle/dataset/NAME/). Nothing downloads; a missing file is an error
naming it and where to put it. MNIST, UCI housing, imikolov (PTB) and MovieLens so far."""
from . import imikolov, mnist, movielens, uci_housing  # noqa: F401

__all__ = ["imikolov", "mnist", "movielens", "uci_housing"]
