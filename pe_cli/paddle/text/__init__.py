"""``paddle.text``: its datasets (datasets/); ``ViterbiDecoder`` and ``viterbi_decode`` (viterbi_decode.py, the
module's name in Paddle 2.6) build Paddle 2.6's viterbi_decode op."""

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
from .viterbi_decode import ViterbiDecoder, viterbi_decode  # noqa: F401
