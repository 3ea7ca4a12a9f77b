"""``paddle.dataset``: readers over datasets already on this machine, in the formats and at the
paths Paddle uses (~/.cache/paddle/dataset/NAME/). Nothing downloads; a missing file is an error
naming it and where to put it. Only MNIST so far."""
from . import mnist  # noqa: F401

__all__ = ["mnist"]
