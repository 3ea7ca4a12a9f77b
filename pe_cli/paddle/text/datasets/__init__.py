"""``paddle.text.datasets``: UCIHousing from Paddle's cache folder (or the file given; pe downloads
nothing); Conll05st, Imdb, Imikolov, Movielens, WMT14 and WMT16 say in one line that pe does not build
them yet, naming the ``paddle.dataset`` reader of the same file."""

from . import conll, imdb, imikolov, movielens, uci_housing, wmt_fr_en, wmt_multi30k  # noqa: F401
from .others import Conll05st, Imdb, Imikolov, Movielens, WMT14, WMT16  # noqa: F401
from .uci_housing import UCIHousing  # noqa: F401

__all__ = ["Conll05st", "Imdb", "Imikolov", "Movielens", "UCIHousing", "WMT14", "WMT16"]
