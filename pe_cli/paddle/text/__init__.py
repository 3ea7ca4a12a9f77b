"""``paddle.text``: its datasets (datasets/); ``ViterbiDecoder`` and ``viterbi_decode`` say in one line
that pe lacks them (Paddle 2.6's viterbi_decode op)."""

from ...base.errors import unsupported
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

ViterbiDecoder = unsupported("paddle.text.ViterbiDecoder", "pe has no viterbi_decode op yet")
viterbi_decode = unsupported("paddle.text.viterbi_decode", "pe has no viterbi_decode op yet")
