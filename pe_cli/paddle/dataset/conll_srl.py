"""``paddle.dataset.conll05``: the CoNLL-2005 semantic role labelling test set (the public part, which
Paddle's book trains on) as Paddle 1.8's reader gives it, from Paddle's cache
``~/.cache/paddle/dataset/conll05st/``: ``conll05st-tests.tar.gz`` and the dictionaries and
embedding Paddle downloads as ``conll05st%2FwordDict.txt``, ``conll05st%2FverbDict.txt``,
``conll05st%2FtargetDict.txt``, ``conll05st%2Femb`` (the plain names ``wordDict.txt``, ... are read
too). Nothing downloads.

``get_dict()``: (word dict, verb dict, label dict): a word or verb is numbered by its line; the
labels are ``B-x``/``I-x`` for each tag x of the target dictionary, then ``O``. Paddle numbers the
tags in a set's iteration order, which changes between Python processes; pe numbers them sorted.
``test()``: a reader of 9 fields per (sentence, predicate): word ids, the ids of the predicate's
context words -2..+2 (each repeated over the sentence), the predicate id, the context mark, the
label ids."""

import os

from ...base.errors import PeError
from .common import cached_file, gunzip, member, open_tar

__all__ = ["get_dict", "get_embedding", "test", "fetch"]

DATA_URL = "http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz"
_URL = "http://paddlemodels.bj.bcebos.com/conll05st%2F"
WORDS = "conll05st-release/test.wsj/words/test.wsj.words.gz"
PROPS = "conll05st-release/test.wsj/props/test.wsj.props.gz"
UNK_IDX = 0


def _file(name):
    return cached_file("conll05", "conll05st", "conll05st%2F" + name, _URL + name, also=(name,))


def _lines(path):
    with open(path, "rb") as f:
        return [line.decode("utf-8", "replace").strip() for line in f]


def load_dict(filename):
    return {word: i for i, word in enumerate(_lines(filename))}


def load_label_dict(filename):
    tags = sorted({line[2:] for line in _lines(filename) if line.startswith(("B-", "I-"))})
    labels = {}
    for tag in tags:
        labels["B-" + tag] = len(labels)
        labels["I-" + tag] = len(labels)
    labels["O"] = len(labels)
    return labels


def _bracket_labels(column):
    """A props column (``(A0*``, ``*``, ``*)``, ``(V*)``) as B-/I-/O labels."""
    tag, inside, out = "O", False, []
    for mark in column:
        if mark == "*":
            out.append("I-" + tag if inside else "O")
        elif mark == "*)":
            out.append("I-" + tag)
            inside = False
        elif "(" in mark:
            tag = mark[1 : mark.find("*")]
            out.append("B-" + tag)
            inside = ")" not in mark
        else:
            raise PeError(f"paddle.dataset.conll05: unexpected label {mark!r} in {PROPS}")
    return out


def corpus_reader(data_path, words_name, props_name):
    """A reader of (sentence words, predicate, labels), one per predicate of each sentence."""

    def reader():
        with open_tar("conll05", data_path) as tf:
            words = gunzip("conll05", member("conll05", tf, words_name), words_name).splitlines()
            props = gunzip("conll05", member("conll05", tf, props_name), props_name).splitlines()
        sentence, rows = [], []
        for word, prop in zip(words, props):
            word, prop = word.strip().decode(), prop.strip().decode().split()
            if prop:
                sentence.append(word)
                rows.append(prop)
                continue
            if rows:
                columns = [list(c) for c in zip(*rows)]
                verbs = [v for v in columns[0] if v != "-"]
                for i, column in enumerate(columns[1:]):
                    yield sentence, verbs[i], _bracket_labels(column)
            sentence, rows = [], []

    return reader


def _context(sentence, verb_index):
    n = len(sentence)
    mark = [0] * n
    words = []
    for offset in (-2, -1, 0, 1, 2):
        at = verb_index + offset
        if 0 <= at < n:
            mark[at] = 1
            words.append(sentence[at])
        else:
            words.append("bos" if at < 0 else "eos")
    return words, mark


def reader_creator(corpus_reader, word_dict=None, predicate_dict=None, label_dict=None):
    def reader():
        for sentence, predicate, labels in corpus_reader():
            n = len(sentence)
            context, mark = _context(sentence, labels.index("B-V"))
            ctx_ids = [[word_dict.get(w, UNK_IDX)] * n for w in context]
            yield (
                [word_dict.get(w, UNK_IDX) for w in sentence],
                *ctx_ids,
                [predicate_dict.get(predicate)] * n,
                mark,
                [label_dict.get(w) for w in labels],
            )

    return reader


def get_dict():
    """(word dict, verb dict, label dict) of the dictionaries in Paddle's cache."""
    return load_dict(_file("wordDict.txt")), load_dict(_file("verbDict.txt")), load_label_dict(_file("targetDict.txt"))


def get_embedding():
    """The path of the pre-trained word embedding file."""
    return _file("emb")


def test():
    """The test set's reader (9 fields per sample, see the module's doc)."""
    word_dict, verb_dict, label_dict = get_dict()
    data = cached_file("conll05", "conll05st", os.path.basename(DATA_URL), DATA_URL)
    return reader_creator(corpus_reader(data, WORDS, PROPS), word_dict, verb_dict, label_dict)


def fetch():
    """Checks that every file is in place (pe downloads nothing)."""
    get_dict()
    get_embedding()
    cached_file("conll05", "conll05st", os.path.basename(DATA_URL), DATA_URL)
