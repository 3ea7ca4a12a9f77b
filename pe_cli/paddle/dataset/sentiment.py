"""``paddle.dataset.sentiment``: NLTK's movie_reviews corpus as Paddle 1.8's module reads it, from
Paddle's cache: ``~/.cache/paddle/dataset/corpora/movie_reviews/`` (folders ``neg/`` and ``pos/`` of
.txt reviews) or ``corpora/movie_reviews.zip`` there, where ``nltk.download`` puts it. pe needs no
NLTK: it tokenizes as NLTK's corpus reader does (runs of word characters, runs of other non-space
characters) and downloads nothing.

``get_word_dict()``: [(word, id)] by falling count over the whole corpus (ties in order of first
appearance); Paddle 1.8's own sort is Python 2 code that fails on Python 3. ``train()`` /
``test()``: as Paddle's, a generator (not a reader) of (word ids, 0 neg / 1 pos) over the reviews
taken neg, pos, neg, pos, ... in file order, the first 1600 for training, the rest for testing."""

import collections
import itertools
import os
import re
import zipfile

from ...base.errors import PeError
from .common import data_home

__all__ = ["train", "test", "get_word_dict", "fetch"]

NUM_TRAINING_INSTANCES = 1600
NUM_TOTAL_INSTANCES = 2000
_TOKEN = re.compile(r"\w+|[^\w\s]+")


def _texts():
    """{'neg/cv000_29416.txt': text, ...} of the corpus in Paddle's cache."""
    corpora = os.path.join(data_home(), "corpora")
    folder, archive = os.path.join(corpora, "movie_reviews"), os.path.join(corpora, "movie_reviews.zip")
    texts = {}
    if os.path.isdir(folder):
        for category in ("neg", "pos"):
            sub = os.path.join(folder, category)
            for name in sorted(os.listdir(sub)) if os.path.isdir(sub) else []:
                if name.endswith(".txt") and not name.startswith("."):
                    with open(os.path.join(sub, name), "rb") as f:
                        texts[f"{category}/{name}"] = f.read().decode("utf-8", "replace")
    elif os.path.isfile(archive):
        try:
            with zipfile.ZipFile(archive) as zf:
                for name in sorted(zf.namelist()):
                    match = re.match(r"movie_reviews/((neg|pos)/[^/.][^/]*\.txt)$", name)
                    if match:
                        texts[match.group(1)] = zf.read(name).decode("utf-8", "replace")
        except (zipfile.BadZipFile, OSError) as e:
            raise PeError(f"paddle.dataset.sentiment: {archive} is not a readable zip archive ({e})") from None
    if not texts:
        raise PeError(
            f"paddle.dataset.sentiment: {folder} (or movie_reviews.zip) is absent (pe downloads nothing): "
            f"put NLTK's movie_reviews corpus in {corpora} (Paddle downloads it with "
            f"nltk.download('movie_reviews', download_dir='{data_home()}'))"
        )
    return texts


def _words(text):
    return _TOKEN.findall(text)


def _word_dict(texts):
    counts = collections.Counter()
    for text in texts.values():
        counts.update(_words(text))
    ranked = sorted(counts.items(), key=lambda wc: wc[1], reverse=True)
    return [(word, index) for index, (word, _) in enumerate(ranked)]


def get_word_dict():
    """[(word, id)] by falling count."""
    return _word_dict(_texts())


def _sorted_files(texts):
    names = sorted(texts)
    neg = [n for n in names if n.startswith("neg/")]
    pos = [n for n in names if n.startswith("pos/")]
    return list(itertools.chain.from_iterable(zip(neg, pos)))


def sort_files():
    """The review files taken neg, pos, neg, pos, ..."""
    return _sorted_files(_texts())


def load_sentiment_data():
    texts = _texts()
    ids = dict(_word_dict(texts))
    return [
        ([ids.get(w.lower(), ids[w]) for w in _words(texts[name])], 0 if "neg" in name else 1)
        for name in _sorted_files(texts)
    ]


def reader_creator(data):
    for words, category in data:
        yield words, category


def train():
    return reader_creator(load_sentiment_data()[0:NUM_TRAINING_INSTANCES])


def test():
    return reader_creator(load_sentiment_data()[NUM_TRAINING_INSTANCES:])


def fetch():
    """Checks that the corpus is in place (pe downloads nothing)."""
    _texts()
