"""``paddle.dataset.wmt16``: the Multi30K English-German set (WMT16 multimodal task 1) as Paddle 1.8's
reader gives it, from Paddle's cache ``~/.cache/paddle/dataset/wmt16/wmt16.tar.gz`` (members
``wmt16/train``, ``wmt16/test``, ``wmt16/val``; a line is ``english<TAB>german``). Nothing
downloads.

A dictionary of ``dict_size`` words is ``<s>``, ``<e>``, ``<unk>`` then the training set's words of
that language by falling count (ties in order of first appearance). Paddle writes it to
``wmt16/<lang>_<size>.dict`` in its cache and reads that file back; pe reads such a file when it
is there with ``dict_size`` lines and otherwise builds the same dictionary in memory (it writes
nothing). A sample is (``<s>`` source ``<e>`` ids, ``<s>`` target ids, target ids ``<e>``)."""

import collections
import os

from .common import cached_file, dataset_dir, member, open_tar

__all__ = ["train", "test", "validation", "get_dict", "fetch"]

DATA_URL = "http://cloud.dlnel.org/filepub/?uuid=46a0808e-ddd8-427c-bacd-0dbc6d045fed"
TOTAL_EN_WORDS = 11250
TOTAL_DE_WORDS = 19220
START_MARK, END_MARK, UNK_MARK = "<s>", "<e>", "<unk>"


def _archive():
    return cached_file("wmt16", "wmt16", "wmt16.tar.gz", DATA_URL)


def _pairs(tar_file, name):
    with open_tar("wmt16", tar_file) as tf:
        data = member("wmt16", tf, name)
    for line in data.splitlines():
        parts = line.decode("utf-8").strip().split("\t")
        if len(parts) == 2:
            yield parts


def _words(tar_file, dict_size, lang):
    dict_path = os.path.join(dataset_dir("wmt16"), "%s_%d.dict" % (lang, dict_size))
    if os.path.isfile(dict_path):
        with open(dict_path, "rb") as f:
            words = [line.strip().decode("utf-8") for line in f]
        if len(words) == dict_size:
            return words
    counts = collections.Counter()
    for english, german in _pairs(tar_file, "wmt16/train"):
        counts.update((english if lang == "en" else german).split())
    ranked = sorted(counts.items(), key=lambda wc: wc[1], reverse=True)[: max(dict_size - 3, 0)]
    return [START_MARK, END_MARK, UNK_MARK] + [w for w, _ in ranked]


def _load_dict(tar_file, dict_size, lang, reverse=False):
    words = _words(tar_file, dict_size, lang)
    return dict(enumerate(words)) if reverse else {w: i for i, w in enumerate(words)}


def _dict_sizes(src_dict_size, trg_dict_size, src_lang):
    if src_lang not in ("en", "de"):
        raise ValueError("An error language type.  Only support: en (for English); de(for Germany).")
    english, german = (src_dict_size, trg_dict_size) if src_lang == "en" else (trg_dict_size, src_dict_size)
    english, german = min(english, TOTAL_EN_WORDS), min(german, TOTAL_DE_WORDS)
    return (english, german) if src_lang == "en" else (german, english)


def reader_creator(tar_file, file_name, src_dict_size, trg_dict_size, src_lang):
    def reader():
        trg_lang = "de" if src_lang == "en" else "en"
        src_dict = _load_dict(tar_file, src_dict_size, src_lang)
        trg_dict = _load_dict(tar_file, trg_dict_size, trg_lang)
        start, end, unk = src_dict[START_MARK], src_dict[END_MARK], src_dict[UNK_MARK]
        src_col = 0 if src_lang == "en" else 1
        for parts in _pairs(tar_file, file_name):
            src_ids = [start] + [src_dict.get(w, unk) for w in parts[src_col].split()] + [end]
            trg_ids = [trg_dict.get(w, unk) for w in parts[1 - src_col].split()]
            yield src_ids, [start] + trg_ids, trg_ids + [end]

    return reader


def _reader(file_name, src_dict_size, trg_dict_size, src_lang):
    src_dict_size, trg_dict_size = _dict_sizes(src_dict_size, trg_dict_size, src_lang)
    return reader_creator(_archive(), file_name, src_dict_size, trg_dict_size, src_lang)


def train(src_dict_size, trg_dict_size, src_lang="en"):
    return _reader("wmt16/train", src_dict_size, trg_dict_size, src_lang)


def test(src_dict_size, trg_dict_size, src_lang="en"):
    return _reader("wmt16/test", src_dict_size, trg_dict_size, src_lang)


def validation(src_dict_size, trg_dict_size, src_lang="en"):
    return _reader("wmt16/val", src_dict_size, trg_dict_size, src_lang)


def get_dict(lang, dict_size, reverse=False):
    """{word: id} of ``lang``'s dictionary of ``dict_size`` words ({id: word} with ``reverse``)."""
    dict_size = min(dict_size, TOTAL_EN_WORDS if lang == "en" else TOTAL_DE_WORDS)
    return _load_dict(_archive(), dict_size, lang, reverse)


def fetch():
    """Checks that the archive is in place (pe downloads nothing)."""
    _archive()
