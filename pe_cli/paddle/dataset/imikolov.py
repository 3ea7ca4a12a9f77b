"""``paddle.dataset.imikolov``: the Penn Treebank text as Paddle's imikolov reader reads it, from
Paddle's cache ``~/.cache/paddle/dataset/imikolov/simple-examples.tgz`` (members
``./simple-examples/data/ptb.train.txt`` and ``ptb.valid.txt``, one sentence per line). Nothing
downloads: a missing archive is one error naming it.

``build_dict(min_word_freq=50)``: words seen more than ``min_word_freq`` times in both files (with
``<s>`` and ``<e>`` counted once per line), numbered by falling count then spelling, ``<unk>`` last.
``train(word_idx, n)`` / ``test(word_idx, n)``: every n-gram of ``<s> line <e>`` as a tuple of ids
(``DataType.NGRAM``), or (``DataType.SEQ``) each line as (``<s>`` + ids, ids + ``<e>``), lines longer
than n skipped when n > 0.
"""

import collections
import tarfile

from ...base.errors import PeError
from .common import cached_file, member as read_member

URL = "http://www.fit.vutbr.cz/~imikolov/rnnlm/simple-examples.tgz"
TRAIN = "./simple-examples/data/ptb.train.txt"
VALID = "./simple-examples/data/ptb.valid.txt"


class DataType:
    NGRAM = 1
    SEQ = 2


def archive():
    """The cached archive, under the name Fluid 1.8's download gives it (its URL is Paddle's mirror,
    ``imikolov%2Fsimple-examples.tgz``) or the original's."""
    return cached_file("imikolov", "imikolov", "simple-examples.tgz", URL, also=("imikolov%2Fsimple-examples.tgz",))


def _lines(member):
    path = archive()
    try:
        with tarfile.open(path) as tf:
            data = read_member("imikolov", tf, member)
            return [line.decode("utf-8", "replace").split() for line in data.splitlines()]
    except (tarfile.TarError, KeyError) as e:
        raise PeError(f"paddle.dataset.imikolov: {path} has no {member} ({type(e).__name__}: {e})") from None


def build_dict(min_word_freq=50):
    freq = collections.Counter()
    for member in (TRAIN, VALID):
        for words in _lines(member):
            freq.update(words)
            freq.update(["<s>", "<e>"])
    freq.pop("<unk>", None)
    kept = sorted(((w, c) for w, c in freq.items() if c > min_word_freq), key=lambda wc: (-wc[1], wc[0]))
    word_idx = {w: i for i, (w, _) in enumerate(kept)}
    word_idx["<unk>"] = len(kept)
    return word_idx


def _reader(member, word_idx, n, data_type):
    def reader():
        unk = word_idx["<unk>"]
        for words in _lines(member):
            if data_type == DataType.NGRAM:
                if n < 0:
                    raise PeError(f"paddle.dataset.imikolov: the n-gram length must be >= 0, got {n}")
                ids = [word_idx.get(w, unk) for w in ["<s>"] + words + ["<e>"]]
                for i in range(n, len(ids) + 1):
                    yield tuple(ids[i - n : i])
            elif data_type == DataType.SEQ:
                ids = [word_idx.get(w, unk) for w in words]
                src, trg = [word_idx["<s>"]] + ids, ids + [word_idx["<e>"]]
                if n > 0 and len(src) > n:
                    continue
                yield src, trg
            else:
                raise PeError(f"paddle.dataset.imikolov: unknown data_type {data_type!r}")

    return reader


def train(word_idx, n, data_type=DataType.NGRAM):
    return _reader(TRAIN, word_idx, n, data_type)


def test(word_idx, n, data_type=DataType.NGRAM):
    return _reader(VALID, word_idx, n, data_type)
