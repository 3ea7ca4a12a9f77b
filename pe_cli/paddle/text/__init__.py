"""``paddle.text``: its datasets (datasets/), ``ViterbiDecoder`` and ``viterbi_decode`` (viterbi.py: Paddle 2.6's
viterbi_decode op)."""

from . import datasets  # noqa: F401
from .datasets import Conll05st, Imdb, Imikolov, Movielens, UCIHousing, WMT14, WMT16  # noqa: F401

__all__ = [
    "Conll05st",
    "Imdb",
    "Imikolov",
    "Movielens",
    "UCIHousing",
    "WMT14",
    "WMT16",
    "ViterbiDecoder",
    "viterbi_decode",
]
from .viterbi import ViterbiDecoder, viterbi_decode  # noqa: F401
