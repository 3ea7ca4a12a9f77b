"""The YAML layer: safe semantics, positions of every key and value, and one-line errors."""

import re
import pytest

from pe_cli.config.errors import ConfigError
from pe_cli.config.overrides import apply_overrides, parse_key
from pe_cli.config.yamlfile import format_path, parse_yaml


def test_values_are_what_safe_load_makes():
    doc = parse_yaml("a: 1\nb: 0.5\nc: yes\nd: null\ne: '1'\nf: [1, x]\ng: 1e-3\n", "t.yaml")
    assert doc.data == {"a": 1, "b": 0.5, "c": True, "d": None, "e": "1", "f": [1, "x"], "g": 0.001}


@pytest.mark.parametrize(
    "text, value",
    [
        ("1e-3", 0.001),
        ("5e-4", 0.0005),
        ("1E6", 1e6),
        (".5", 0.5),
        ("1_000", 1000),
        ("-2.5e-2", -0.025),
        ("+1e+2", 100.0),
        ("1e", "1e"),
        ("e5", "e5"),
        ("'1e-3'", "1e-3"),
    ],
)
def test_numbers_as_people_write_them(text, value):
    """YAML 1.2's numbers: an exponent needs no dot or sign (YAML 1.1 read 1e-3 as a string)."""
    got = parse_yaml(f"x: {text}\n", "t.yaml").data["x"]
    assert got == value and type(got) is type(value)


def test_overrides_read_numbers_the_same_way():
    doc = parse_yaml("optimizer: {learning_rate: 0.1}\n", "t.yaml")
    apply_overrides(doc, ["optimizer.learning_rate=1e-3"])
    assert doc.data["optimizer"]["learning_rate"] == 0.001


def test_positions_of_keys_and_values():
    doc = parse_yaml("model: m.yaml\ndata:\n  train:\n    path: x\nlayers:\n  - fc1: {type: fc, size: 3}\n", "t.yaml")
    assert str(doc.mark(("data", "train", "path"))) == "t.yaml:4:11"
    assert str(doc.mark(("data", "train", "path"), key=True)) == "t.yaml:4:5"
    assert str(doc.mark(("layers", 0, "fc1", "size"))) == "t.yaml:6:27"
    assert str(doc.mark(("data", "nope", "deeper"))) == "t.yaml:3:3"  # nearest ancestor
    assert format_path(("layers", 3, "fc1", "act")) == "layers[3].fc1.act"


def test_anchors_aliases_and_merge_keys():
    doc = parse_yaml("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\nsame: *b\n", "t.yaml")
    assert doc.data["other"] == {"x": 1, "y": 3}
    assert doc.data["same"] == {"x": 1, "y": 2}


@pytest.mark.parametrize(
    "text, message",
    [
        ("a: !!python/object:os.system {}\n", "the tag !!python/object:os.system is not allowed"),
        ("a: !!python/name:os.system\n", "is not allowed"),
        ("a: !custom 3\n", "the tag !custom is not allowed"),
        ("a: 1\na: 2\n", "duplicate key 'a'"),
        ("a: [1, 2\n", "YAML syntax error"),
        ("", "the file is empty"),
        ("# only a comment\n", "the file is empty"),
        ("a: 1\n---\nb: 2\n", "YAML syntax error"),
        ("on: 1\n", "quote it"),
    ],
)
def test_errors(text, message):
    with pytest.raises(ConfigError, match=re.escape(message)) as e:
        parse_yaml(text, "t.yaml")
    assert message in e.value.line()
    assert e.value.line().startswith("t.yaml:")


def test_python_tags_are_never_constructed(tmp_path):
    marker = tmp_path / "touched"
    text = f"a: !!python/object/apply:os.system ['touch {marker}']\n"
    with pytest.raises(
        ConfigError,
        match=r"t\.yaml:1:4: a: the tag !!python/object/apply:os\.system is not allowed; pe reads YAML with safe semantics",
    ):
        parse_yaml(text, "t.yaml")
    assert not marker.exists()


def test_override_keys():
    assert parse_key("optimizer.learning_rate", "x") == ("optimizer", "learning_rate")
    assert parse_key("data.transforms.image[1].scale", "x") == ("data", "transforms", "image", 1, "scale")
    for bad in ("", ".a", "a..b", "a[x]", "1a"):
        with pytest.raises(ConfigError, match="not a key path"):
            parse_key(bad, "x")


def test_overrides_set_values_and_remember_the_argument():
    doc = parse_yaml("a: {b: 1}\nl: [{s: 1}, {s: 2}]\n", "t.yaml")
    apply_overrides(doc, ["a.b=0.5", "a.c=[1, 2]", "l[1].s=x", "n.m=null", "e="])
    assert doc.data == {"a": {"b": 0.5, "c": [1, 2]}, "l": [{"s": 1}, {"s": "x"}], "n": {"m": None}, "e": None}
    assert str(doc.mark(("a", "b"))) == "command line 'a.b=0.5'"
    assert str(doc.mark(("n",))) == "command line 'n.m=null'"
    assert str(doc.mark(("l", 0, "s"))) == "t.yaml:2:9"


@pytest.mark.parametrize(
    "arg, message",
    [
        ("novalue", "is not an override"),
        ("a.b.c=1", "'a.b' is 1, not a mapping"),
        ("l[5].s=1", "does not exist"),
        ("a[0]=1", "'a' is not a list"),
        ("a.b=[1", "cannot read the value"),
    ],
)
def test_bad_overrides(arg, message):
    doc = parse_yaml("a: {b: 1}\nl: [{s: 1}]\n", "t.yaml")
    with pytest.raises(ConfigError, match=re.escape(message)) as e:
        apply_overrides(doc, [arg])
    assert message in e.value.line() and arg in e.value.line()
