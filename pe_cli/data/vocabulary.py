"""Vocabularies and tokenizers of the categorical, text and label preprocessing (preprocessing.py).

A vocabulary is a list of strings; an entry's index is its id. Entries are kept when they occur at
least ``min_count`` times in the training split, most frequent first (ties by name), at most
``max_size``; the reserved entries (``<pad>``, ``<unknown>``) come first.
"""

import collections
import re

import numpy as np

from .patterns import UnsafePattern, safe_pattern
from .readers import DataError

PAD, UNKNOWN = "<pad>", "<unknown>"
TOKENIZERS = ("space_punct", "whitespace", "character", "regex")
# space_punct (the default, Ludwig's rule): a token is a run of word characters (Python's Unicode \w:
# letters, digits, underscore) or one character that is neither a word character nor whitespace
# ("match!" -> "match", "!"); whitespace separates tokens and is dropped.
SPACE_PUNCT = re.compile(r"\w+|[^\w\s]")


def build_vocabulary(items, reserved, min_count=1, max_size=None):
    counts = collections.Counter(items)
    kept = sorted((t for t, c in counts.items() if c >= min_count and t not in reserved), key=lambda t: (-counts[t], t))
    if max_size is not None:
        kept = kept[: max(0, max_size - len(reserved))]
    return list(reserved) + kept


def vocabulary_index(vocabulary):
    """{entry: id} of a vocabulary: build it once per batch of lookups (a million entries take a
    second; once per sample, 320 samples took 111 s)."""
    return {t: i for i, t in enumerate(vocabulary)}


def lookup(index, items, unknown=1):
    """The ids of ``items`` in ``index`` (``vocabulary_index``; a vocabulary list is indexed first),
    ``unknown`` for an item not in it."""
    index = index if isinstance(index, dict) else vocabulary_index(index)
    return np.fromiter((index.get(t, unknown) for t in items), dtype=np.int64, count=len(items))


def as_text(value):
    """A table field as text: JSON null and a missing CSV field are ''."""
    return "" if value is None else str(value)


def tokenizer(kind, pattern=None, lowercase=True):
    """A function str -> list of tokens (lowercased first unless ``lowercase`` is false)."""
    if kind == "regex":
        try:
            compiled = safe_pattern(pattern)
        except UnsafePattern as e:
            raise DataError(
                f"pattern {pattern!r}: {e}", ("pattern",), "see docs/CONFIG.md, Preprocessing, for the patterns pe runs"
            ) from None
        except (re.error, TypeError) as e:
            raise DataError(f"pattern {pattern!r} is not a regular expression ({e})", ("pattern",)) from None
        split = _matches(compiled)
    elif kind == "character":
        split = list
    elif kind == "whitespace":
        split = str.split
    elif kind == "space_punct":
        split = SPACE_PUNCT.findall
    else:
        raise DataError(f"tokenizer {kind!r} is not one of {', '.join(TOKENIZERS)}", ("tokenizer",))
    return (lambda s: split(s.lower())) if lowercase else split


def _matches(compiled):
    """The tokens of a regex tokenizer: its whole matches (a group in the pattern changes nothing)."""
    return lambda s: [m.group() for m in compiled.finditer(s)]


def class_ids(classes, values, where):
    """Label ids of class names; a name the training split did not have is a DataError."""
    index = {c: i for i, c in enumerate(classes)}
    out = np.empty(len(values), dtype=np.int64)
    for i, v in enumerate(values):
        name = as_text(v).strip()
        if name not in index:
            raise DataError(
                f"{where}: class '{name[:40]}' (sample {i}) was not in the training data",
                (),
                f"the classes are {', '.join(classes[:12])}{' ...' if len(classes) > 12 else ''}",
            )
        out[i] = index[name]
    return out
