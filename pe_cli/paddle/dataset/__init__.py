"""``paddle.dataset``: readers over datasets already on this machine, in the formats and at the
paths Paddle 1.8 uses (~/.cache/paddle/dataset/NAME/, common.py), with Paddle's reader signatures.
Nothing downloads; a missing file is one error naming it, where to put it and where Paddle gets it.
Nothing is unpickled (CIFAR's pickled batches are parsed, flowers' .mat files read by pe).
``conll05``, ``wmt14``, ``wmt16``, ``mq2007`` and ``voc2012`` live in conll_srl.py, wmt_fr_en.py,
wmt_multi30k.py, letor.py and voc_segmentation.py (under
``pe fluid``, ``import paddle.dataset.wmt16`` finds them: pe_cli/fluid/runner.py)."""

from . import cifar, flowers, imdb, imikolov, mnist, movielens, sentiment, uci_housing  # noqa: F401
from . import common, image  # noqa: F401
from . import conll_srl as conll05
from . import letor as mq2007
from . import voc_segmentation as voc2012
from . import wmt_fr_en as wmt14
from . import wmt_multi30k as wmt16

__all__ = [
    "cifar",
    "conll05",
    "flowers",
    "imdb",
    "imikolov",
    "mnist",
    "movielens",
    "sentiment",
    "uci_housing",
    "wmt14",
    "wmt16",
    "image",
    "mq2007",
    "voc2012",
]
