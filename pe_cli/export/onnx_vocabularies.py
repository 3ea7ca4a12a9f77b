"""Category and text feeds as raw strings in an exported ONNX graph: the run's vocabularies
(data/vocabulary.py) become ai.onnx.ml LabelEncoder nodes, the text tokenizer StringNormalizer
(lowercasing) and onnxruntime's com.microsoft Tokenizer, so the graph input takes the column's
strings and the model reads the ids ``pe predict`` gives it (data/preprocessing.py's
``_apply_category`` and ``_apply_text``): unknown values the unknown id, tokens cut at max_length,
an empty text one <pad>, a padded text's lengths in its lengths feed.

A tokenizer is in the graph when TOKENIZER_RULES maps it and its rule can be written faithfully in
these ops: ``space_punct`` and ``regex`` patterns as RE2 patterns of explicit Unicode classes
(onnx_regex.py); a pattern RE2 would run otherwise stays outside, its feed taking ids as before
(docs/ONNX.md)."""

import numpy as np

from ..data.missing import category_fill
from ..data.vocabulary import SPACE_PUNCT
from .onnx_regex import NotInGraph, re2_pattern

ML_DOMAIN, MS_DOMAIN = "ai.onnx.ml", "com.microsoft"
_INT64 = 7  # onnx.TensorProto.INT64
_CASTS = {"int32": 6, "float32": 1, "float64": 11}
_PAD = ""  # what the Tokenizer pads its rows with: never a token (every token has a character)


def _whitespace():
    """An RE2 class of the characters Python's ``str.split()`` splits on (``str.isspace``)."""
    chars = (c for c in range(0x110000) if chr(c).isspace())
    return "[" + "".join(f"\\x{{{c:x}}}" for c in chars) + "]+"


# tokenizer (data/vocabulary.py's TOKENIZERS) -> the com.microsoft Tokenizer attributes that split
# the (lowercased) text exactly as it does; a new tokenizer rule that RE2 can express goes here.
TOKENIZER_RULES = {
    "whitespace": lambda state: {"separators": [_whitespace()]},  # str.split(): runs of whitespace
    "character": lambda state: {"separators": [""]},  # list(s): one token per code point
    "space_punct": lambda state: {"tokenexp": re2_pattern(SPACE_PUNCT.pattern)},  # SPACE_PUNCT.findall
    "regex": lambda state: {"tokenexp": re2_pattern(state["pattern"])},  # finditer's whole matches
}


def text_outside(state):
    """Why a text feed's tokenizer has no ONNX form (TOKENIZER_RULES), or None where it has one."""
    if state["tokenizer"] not in TOKENIZER_RULES:
        return f"tokenizer {state['tokenizer']} has no ONNX form"
    try:
        TOKENIZER_RULES[state["tokenizer"]](state)
    except NotInGraph as e:
        return f"pattern {state['pattern']!r} stays outside: {e}"
    return None


def text_in_graph(state):
    """Whether a text feed's tokenizer has an ONNX form."""
    return text_outside(state) is None


def _ids(graph, strings, vocabulary, default, out, extra=()):
    """LabelEncoder: each string its index in ``vocabulary`` (the last, where an entry repeats, as
    data/vocabulary.py's ``lookup``), ``extra`` (key, id) pairs over those, else ``default``."""
    index = {t: i for i, t in enumerate(vocabulary)}
    index.update(extra)
    graph.node(
        "LabelEncoder",
        [strings],
        [out],
        domain=ML_DOMAIN,
        keys_strings=list(index),
        values_int64s=list(index.values()),
        default_int64=default,
    )
    return out


def _cast(graph, name, dtype, out):
    """``name`` (int64) as the feed's dtype, under the name ``out``."""
    if dtype in _CASTS:
        graph.node("Cast", [name], [out], to=_CASTS[dtype])
    else:
        graph.node("Identity", [name], [out])


def _missing_ids(state, vocabulary):
    """(marker, id) pairs: a missing marker, as written, in lower, upper or title case, is its
    ``fill`` value's id (0 where the vocabulary lacks it), as data/missing.py reads it."""
    fill = category_fill(state.get("fill"))
    fill_id = vocabulary.index(fill) if fill in vocabulary else 0
    return {v: fill_id for m in state.get("missing") or () for v in (m, m.lower(), m.upper(), m.title())}.items()


def category_nodes(graph, feed, state, read_as):
    """The category feed's string input ``feed`` (the feed's shape) -> its ids as ``read_as``
    (0, <unknown>, for a value the vocabulary lacks; a missing marker its ``fill`` value's id)."""
    vocabulary = state["vocabulary"]
    ids = _ids(graph, feed, vocabulary, 0, graph.temp(f"{feed}.ids"), _missing_ids(state, vocabulary))
    _cast(graph, ids, str(graph.block.var(feed).dtype), read_as)


def one_hot_nodes(graph, feed, state, read_as):
    """A one-hot category's string input ``feed`` [N, columns] -> float32 [N, the vocabulary sizes
    summed] as ``read_as`` (data/one_hot.py): per column a LabelEncoder of its vocabulary (as
    category_nodes), a OneHot of its size, the columns side by side (Concat)."""
    parts = []
    for i, vocabulary in enumerate(state["vocabularies"]):
        column, hot = graph.temp(f"{feed}.{i}"), graph.temp(f"{feed}.{i}.hot")
        graph.node("Slice", [feed] + [graph.constant(np.array([v], np.int64)) for v in (i, i + 1, 1)], [column])
        ids = _ids(graph, column, vocabulary, 0, graph.temp(f"{feed}.{i}.ids"), _missing_ids(state, vocabulary))
        graph.node(
            "OneHot",
            [ids, graph.constant(np.array(len(vocabulary), np.int64)), graph.constant(np.array([0, 1], np.float32))],
            [hot],
            axis=-1,
        )  # [N, 1, size]
        parts.append(graph.reshape(hot, [0, len(vocabulary)]))
    graph.node("Concat", parts, [read_as], axis=1)


def _lowercase_locale(vocabulary):
    """StringNormalizer's locale: "C" (ASCII letters; every platform has it) where the vocabulary is
    ASCII, so a token with another capital is unknown either way; else "C.UTF-8"."""
    return "C" if all(t.isascii() for t in vocabulary) else "C.UTF-8"


def _tokens(graph, feed, state):
    """The text input [N, 1] -> its tokens [N, <= max_length] (padded with _PAD)."""
    flat = graph.reshape(feed, [-1], graph.temp(f"{feed}.flat"))
    if state["lowercase"]:
        lowered = graph.temp(f"{feed}.lower")
        graph.node(
            "StringNormalizer",
            [flat],
            [lowered],
            case_change_action="LOWER",
            locale=_lowercase_locale(state["vocabulary"]),
        )
        flat = lowered
    tokens = graph.temp(f"{feed}.tokens")
    graph.node(
        "Tokenizer",
        [flat],
        [tokens],
        domain=MS_DOMAIN,
        mark=0,
        mincharnum=1,
        pad_value=_PAD,
        **TOKENIZER_RULES[state["tokenizer"]](state),
    )
    return _slice(graph, tokens, state["max_length"])


def _slice(graph, name, end):
    out = graph.temp(f"{name}.cut")
    graph.node(
        "Slice",
        [
            name,
            graph.constant(np.array([0], np.int64)),
            graph.constant(np.array([end], np.int64)),
            graph.constant(np.array([1], np.int64)),
        ],
        [out],
    )
    return out


def text_nodes(graph, feed, state, read_as, lengths_out):
    """The text feed's string input ``feed`` [N, 1] -> the ids the model reads as ``read_as`` (a ragged
    feed: [N, T, ...] padded with 0 past each length; padded: [N, max_length]) and each sample's number
    of tokens as ``lengths_out`` (ragged: ``NAME_lengths`` [N]; padded: the lengths feed)."""
    var = graph.block.var(feed)
    ragged = state["sequence"] == "ragged"
    coded = _ids(
        graph, _tokens(graph, feed, state), state["vocabulary"], 1, graph.temp(f"{feed}.coded"), extra=[(_PAD, -1)]
    )
    width = 1 if ragged else state["max_length"]  # an empty text is one <pad>: at least one column
    padded = graph.temp(f"{feed}.padded")
    graph.node(
        "Pad",
        [coded, graph.constant(np.array([0, 0, 0, width], np.int64)), graph.constant(np.array(-1, np.int64))],
        [padded],
    )
    if not ragged:
        padded = _slice(graph, padded, width)
    mask, counts, lengths = graph.temp(f"{feed}.mask"), graph.temp(f"{feed}.counts"), graph.temp(f"{feed}.len")
    graph.node("Greater", [padded, graph.constant(np.array(-1, np.int64))], [mask])
    graph.node("Cast", [mask], [counts + ".each"], to=_INT64)
    graph.node("ReduceSum", [counts + ".each", graph.constant(np.array([1], np.int64))], [counts], keepdims=0)
    graph.node("Max", [counts, graph.constant(np.array(1, np.int64))], [lengths])
    ids = graph.temp(f"{feed}.ids")
    graph.node("Where", [mask, padded, graph.constant(np.array(0, np.int64))], [ids])
    dims = [0, -1] + list(var.shape[1:]) if ragged else [0] + list(var.shape[1:])
    _cast(graph, graph.reshape(ids, dims), str(var.dtype), read_as)
    if ragged:
        graph.node("Identity", [lengths], [lengths_out])
        return
    lengths_var = graph.block.var(lengths_out)
    _cast(graph, graph.reshape(lengths, [-1] + list(lengths_var.shape[1:])), str(lengths_var.dtype), lengths_out)
