"""The tokenizers of text preprocessing (pe_cli/data/vocabulary.py) and the safe subset of regular
expressions a regex tokenizer runs (pe_cli/data/patterns.py)."""

import time

import pytest

from pe_cli.data.patterns import UnsafePattern, safe_pattern
from pe_cli.data.readers import DataError
from pe_cli.data.vocabulary import tokenizer

TEXT = "What a match! A match. Match, really? It's 3.5 (not 4)...\tok"


def test_space_punct_splits_punctuation_and_whitespace_keeps_it():
    tokens = tokenizer("space_punct")(TEXT)
    assert tokens == [
        "what",
        "a",
        "match",
        "!",
        "a",
        "match",
        ".",
        "match",
        ",",
        "really",
        "?",
        "it",
        "'",
        "s",
        "3",
        ".",
        "5",
        "(",
        "not",
        "4",
        ")",
        ".",
        ".",
        ".",
        "ok",
    ]
    assert tokenizer("whitespace")(TEXT)[2:6] == ["match!", "a", "match.", "match,"]  # 3 forms of one word
    assert tokenizer("space_punct")("Été, naïve!") == ["été", ",", "naïve", "!"]  # Unicode words stay whole


@pytest.mark.parametrize(
    "pattern",
    [
        r"[a-z]+",
        r"\w+|[^\w\s]",
        r"[a-z]+(?:'[a-z]+)?",
        r"\d+(?:\.\d+)?",
        r"\w+(?:-\w+)*",
        r"\S+",
        r"(?i)[a-z]+",
        r"#\w+",
        r"[a-f0-9]{32}",
        r"[^\s!-&(-/:-@\[-`{-~]+",
    ],
)
def test_token_patterns_pass_and_run_in_linear_time(pattern):
    compiled = safe_pattern(pattern)
    start = time.monotonic()
    for unit in ("a", "a'", "1.", "a-", "#", "ab", "aaaaaaab"):
        compiled.findall(unit * (50_000 // len(unit)))
    assert compiled.pattern == pattern and time.monotonic() - start < 2


@pytest.mark.parametrize(
    "pattern, construct",
    [
        (r"(a+)+$", "a repeat can be followed by a character it also matches ('a')"),
        (r"(a|aa)+$", "two alternatives (a|b) can both start with 'a'"),
        (r"(\w+\s?)+$", "a repeat can be followed by a character it also matches"),
        (r".*x", "a repeat can be followed by a character it also matches ('x')"),
        (r"a*a*b", "a repeat can be followed"),
        (r"(a*)*", "repeats something that can match nothing"),
        (r"(a)\1", "a backreference"),
        (r"(?=a)\w", "a lookahead or lookbehind"),
        (r"(?i:a)+", "sets flags for part of the pattern"),
        ("a?" * 30 + "a" * 30, "a repeat can be followed"),
        ("x" * 501, "at most 500"),
        (r"[a-z]+1", "a repeat is followed by something that can fail to match"),  # quadratic: 15 s on 10^5 letters
        (r"\b\w+\b", "a repeat is followed by something that can fail to match"),
        (r"a{100}", "a repeat must match 100 times"),
    ],
)
def test_backtracking_patterns_are_refused_naming_the_construct(pattern, construct):
    with pytest.raises(UnsafePattern, match=__import__("re").escape(construct)):
        safe_pattern(pattern)


def test_a_regex_tokenizer_gives_whole_matches_and_refuses_fast():
    assert tokenizer("regex", r"([a-z])[a-z]*")("Ab cd, e") == ["ab", "cd", "e"]  # not the group
    start = time.monotonic()
    with pytest.raises(DataError, match=r"pattern '\(a\+\)\+\$': a repeat"):
        tokenizer("regex", "(a+)+$")
    assert time.monotonic() - start < 1
