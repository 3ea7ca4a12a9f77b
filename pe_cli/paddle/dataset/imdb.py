"""``paddle.dataset.imdb``: the IMDB movie reviews as Paddle 1.8's reader gives them, from Paddle's
cache ``~/.cache/paddle/dataset/imdb/aclImdb_v1.tar.gz`` (read in the archive's order; nothing
downloads). A review is tokenized as Paddle does: trailing newlines dropped, ASCII punctuation
removed, lower-cased, split on white space; its words stay bytes, as in Paddle.

``word_dict()``: the words seen more than 150 times in the four train/test folders, numbered by
falling count then spelling, ``'<unk>'`` last. ``train(word_idx)`` / ``test(word_idx)``: readers of
(word ids, label), label 0 for the ``pos`` reviews (all first), 1 for the ``neg`` ones; the archive
is read when they are called, as Paddle does."""

import collections
import re
import string

from .common import cached_file, member, members, open_tar

__all__ = ["build_dict", "train", "test", "word_dict", "tokenize", "fetch"]

URL = "http://ai.stanford.edu/%7Eamaas/data/sentiment/aclImdb_v1.tar.gz"
_PUNCTUATION = string.punctuation.encode("latin-1")


def _archive():
    return cached_file("imdb", "imdb", "aclImdb_v1.tar.gz", URL, also=("imdb%2FaclImdb_v1.tar.gz",))


def tokenize(pattern):
    """The tokenized reviews of the archive members whose names match ``pattern``."""
    with open_tar("imdb", _archive()) as tf:
        for info in members("imdb", tf):
            if pattern.match(info.name):
                text = member("imdb", tf, info)
                yield text.rstrip(b"\n\r").translate(None, _PUNCTUATION).lower().split()


def build_dict(pattern, cutoff):
    """{word: id} of the words seen more than ``cutoff`` times in the reviews ``pattern`` matches."""
    freq = collections.Counter()
    for doc in tokenize(pattern):
        freq.update(doc)
    kept = sorted(((w, c) for w, c in freq.items() if c > cutoff), key=lambda wc: (-wc[1], wc[0]))
    word_idx = {w: i for i, (w, _) in enumerate(kept)}
    word_idx["<unk>"] = len(kept)
    return word_idx


def reader_creator(pos_pattern, neg_pattern, word_idx):
    unk = word_idx["<unk>"]
    samples = []
    for pattern, label in ((pos_pattern, 0), (neg_pattern, 1)):
        samples.extend(([word_idx.get(w, unk) for w in doc], label) for doc in tokenize(pattern))

    def reader():
        yield from samples

    return reader


def train(word_idx):
    """The training reviews: (word ids, 0 positive / 1 negative)."""
    return reader_creator(
        re.compile(r"aclImdb/train/pos/.*\.txt$"), re.compile(r"aclImdb/train/neg/.*\.txt$"), word_idx
    )


def test(word_idx):
    """The test reviews."""
    return reader_creator(re.compile(r"aclImdb/test/pos/.*\.txt$"), re.compile(r"aclImdb/test/neg/.*\.txt$"), word_idx)


def word_dict():
    """The dictionary Paddle's book programs use (cutoff 150)."""
    return build_dict(re.compile(r"aclImdb/((train)|(test))/((pos)|(neg))/.*\.txt$"), 150)


def fetch():
    """Checks that the archive is in place (pe downloads nothing)."""
    _archive()
