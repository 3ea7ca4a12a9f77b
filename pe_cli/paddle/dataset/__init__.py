"""``paddle.dataset``: readers over datasets already on this machine, in the formats and at the
paths Paddle uses (~/.cache/paddle/dataset/NAME/). Nothing downloads; a missing file is an error
naming it and where to put it. MNIST and UCI housing so far."""
from . import mnist, uci_housing  # noqa: F401

__all__ = ["mnist", "uci_housing"]
