"""The text tokenizers as onnxruntime runs them in an exported graph (pe_cli/export/onnx_regex.py,
onnx_vocabularies.py): the default ``space_punct`` and regex patterns rewritten for RE2 find the
tokens pe's own tokenizers (data/vocabulary.py) find, on a random sample of all of Unicode in
several contexts and on hostile texts; the patterns RE2 would run otherwise stay outside, naming
why. (docs/ONNX.md reports the full sweep of every code point.)"""

import re

import numpy as np
import pytest

from pe_cli.data.patterns import UnsafePattern
from pe_cli.data.vocabulary import SPACE_PUNCT, tokenizer
from pe_cli.export.onnx_regex import NotInGraph, re2_pattern

import onnx
import onnxruntime as ort

HOSTILE = [
    "",
    " ",
    "match. match! match",
    "Café, naïve; Straße",
    "a_b __init__ x²y ١٢٣ 3.14",
    "e\u0301t\u00e9",
    "日本語のテキスト",
    "👍🏽 ok",
    "tab\tnl\nnbsp\u00a0em\u2003nel\u0085end",
    "\x00\x01\x7f",
    "don't-stop",
    "σας ΣΑΣ",
    "\u0130stanbul",
    "\u212a",
    "ǅ ǆ Ǆ",
    "a" * 300,
    "!" * 50,
    "\ufeffbom",
    "\U0010fffd\U000e0001",
]


def _tokenize(pattern, texts, locale=None):
    """The graph's tokens: [StringNormalizer LOWER] + com.microsoft Tokenizer(tokenexp=pattern)."""
    helper, proto = onnx.helper, onnx.TensorProto
    nodes, source = [], "x"
    if locale:
        nodes.append(helper.make_node("StringNormalizer", ["x"], ["low"], case_change_action="LOWER", locale=locale))
        source = "low"
    nodes.append(
        helper.make_node(
            "Tokenizer", [source], ["y"], domain="com.microsoft", mark=0, mincharnum=1, pad_value="", tokenexp=pattern
        )
    )
    graph = helper.make_graph(
        nodes,
        "t",
        [helper.make_tensor_value_info("x", proto.STRING, ["N"])],
        [helper.make_tensor_value_info("y", proto.STRING, None)],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    )
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rows = session.run(None, {"x": np.array(texts, dtype=object)})[0]
    return [[t for t in row if t] for row in rows] if rows.shape[-1] else [[] for _ in texts]


def test_space_punct_in_the_graph_splits_as_pe_over_unicode():
    rng = np.random.default_rng(0)
    points = rng.integers(0, 0x110000, 3000)
    chars = [chr(c) for c in points if not 0xD800 <= c <= 0xDFFF] + ["_", "\u0301", "\u00b2", "\u3000", "\x1c"]
    texts = [form.replace("X", c) for c in chars for form in ("X", "aXb", "!X!", " X ", "XX", "1X\u0301")] + HOSTILE
    want = [SPACE_PUNCT.findall(t) for t in texts]
    assert _tokenize(re2_pattern(SPACE_PUNCT.pattern), texts) == want


def test_lowercasing_in_the_graph_matches_python_but_for_two_characters():
    """StringNormalizer (C.UTF-8) maps one character to one, without context: Python's str.lower()
    gives 'i̇' for 'İ' and a word-final 'ς' for 'Σ' (docs/ONNX.md); every other text agrees."""
    split = tokenizer("space_punct")
    got = _tokenize(re2_pattern(SPACE_PUNCT.pattern), HOSTILE, locale="C.UTF-8")
    differ = {t for t, g in zip(HOSTILE, got) if g != split(t)}
    assert differ == {"σας ΣΑΣ", "\u0130stanbul"}


@pytest.mark.parametrize(
    "pattern",
    [
        r"[a-z]+",
        r"[a-z]+(?:'[a-z]+)?",
        r"\d+(?:\.\d+)?",
        r"\w+(?:-\w+)*",
        r"\S+",
        r"#\w+",
        r"(?i)[a-zß]+",
        r"(?s)x.",
        r"(?m)^\w+",
        r"\W",
        r"[^\W\d]+",
        r"x(?:a|)",
    ],
)
def test_a_regex_pattern_in_the_graph_finds_pes_tokens(pattern):
    texts = HOSTILE + ["#tag #Ünï x\ny", "line\nnext\n", "3.14.15 1e5 -2", "SS ß ẞ K k", "xa x"]
    assert _tokenize(re2_pattern(pattern), texts) == [[m.group() for m in re.finditer(pattern, t)] for t in texts]


@pytest.mark.parametrize(
    "pattern, why",
    [
        (r"[a-z]+?", "lazy"),
        (r"x(?:|a)", "alternative that can match nothing"),
        (r"a$", "\\$ without \\(\\?m\\)"),
        (r"\bx", "\\\\b"),
        (r"ba{0,2000}", "above RE2's 1000"),
    ],
)
def test_a_pattern_re2_runs_otherwise_stays_outside(pattern, why):
    with pytest.raises(NotInGraph, match=why):
        re2_pattern(pattern)


def test_a_pattern_that_can_match_the_empty_string_never_reaches_the_graph():
    # refused as a tokenizer at all (every text would become empty tokens), before RE2's reading of it
    with pytest.raises(UnsafePattern, match="can match the empty string"):
        re2_pattern(r"[a-z]*")
