"""Command-line overrides in dotted form: ``optimizer.learning_rate=0.05 devices=2 data.train.limit=512``.

The value is read as YAML (so ``0.05`` is a number, ``[1, 2]`` a list, ``null`` nothing, ``"2"`` a
string), with the same safe semantics as the files. Overridden values remember the argument they
came from, so an error in one names the argument instead of a file line.
"""

import re
from dataclasses import dataclass

from .errors import ConfigError, suggest
from .ludwig import translate
from .yamlfile import format_path, parse_yaml

_SEGMENT = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


@dataclass(frozen=True)
class ArgMark:
    """Where an overridden value came from: the command-line argument."""

    text: str

    def __str__(self):
        text = self.text if len(self.text) <= 80 else self.text[:80] + "..."
        return f"command line '{text}'"


_KEY = re.compile(r"^[A-Za-z_][\w\-]*(\.[A-Za-z_<][\w\-<>]*|\[\d+\])*$")


def parse_key(text, arg):
    """'data.transforms.image[0].scale' -> ('data', 'transforms', 'image', 0, 'scale')"""
    if not _KEY.match(text):
        raise ConfigError(
            f"'{text}' is not a key path", ArgMark(arg), None, "write key.sub.key=value (list items as key[0])"
        )
    return tuple(m.group(1) if m.group(1) is not None else int(m.group(2)) for m in _SEGMENT.finditer(text))


def apply_overrides(doc, overrides):
    """Applies ``key.path=value`` strings to ``doc`` (a yamlfile.Doc) in order."""
    for arg in overrides:
        if "=" not in arg:
            raise ConfigError(
                f"'{arg}' is not an override",
                ArgMark(arg),
                None,
                "write key.path=value, e.g. optimizer.learning_rate=0.05",
            )
        key, text = arg.split("=", 1)
        path = parse_key(key.strip(), arg)
        value = _parse_value(text, arg)
        _set(doc, path, value, arg)


def split_model_overrides(overrides):
    """(run-config overrides, model-file overrides): ``model.layers.conv1.num_filters=8`` goes to the
    model file as ``layers.conv1.num_filters=8`` (``model=other.yaml`` still names the file)."""
    run, model = [], []
    for arg in overrides:
        key = arg.split("=", 1)[0].strip()
        (model.append(arg.strip()[len("model.") :]) if key.startswith("model.") else run.append(arg))
    return run, model


def apply_model_overrides(doc, overrides):
    """Applies ``layers.<name>.key=value`` (a layer by its name, as the file lists it) and any other
    ``key.path=value`` to a model file's ``doc``."""
    for arg in overrides:
        key, _, text = arg.partition("=")
        path = parse_key(key.strip(), "model." + arg)
        if len(path) >= 2 and path[0] == "layers" and isinstance(path[1], str):
            layers = doc.data.get("layers") if isinstance(doc.data, dict) else None
            index = next((i for i, item in enumerate(layers or []) if isinstance(item, dict) and path[1] in item), None)
            if index is None:
                raise ConfigError(
                    f"the model file {doc.file} has no layer '{path[1]}'",
                    ArgMark("model." + arg),
                    None,
                    "name a layer of that file (a layer of an included file: override it in that file)",
                )
            path = ("layers", index) + path[1:]
        _set(doc, path, _parse_value(text, "model." + arg), "model." + arg)


FEATURE_KEYS = ("input_features", "output_features", "combiner")


def is_feature_override(arg):
    """Whether ``arg`` (a run config's override) addresses a model file's features or combiner."""
    parts = re.split(r"[.\[]", arg.split("=", 1)[0].strip())
    return len(parts) > 1 and parts[0] == "model" and parts[1] in FEATURE_KEYS


def apply_feature_overrides(doc, overrides):
    """Applies the overrides of a model file's features (``input_features[1].encoder.size=4``,
    ``input_features.island.encoder.size=4``: a feature by its index or its feed's name) and its
    ``combiner`` to ``doc`` before they are expanded into layers; returns the other overrides, which
    address the expanded file (``layers.hidden1.size=64``). A model file without features takes none.
    A file in Ludwig's spellings is translated into pe's first (config/ludwig.py)."""
    translate(doc)
    rest = []
    for arg in overrides:
        key, _, text = arg.partition("=")
        path = parse_key(key.strip(), "model." + arg)
        if path[0] not in FEATURE_KEYS:
            rest.append(arg)
            continue
        data = doc.data if isinstance(doc.data, dict) else {}
        if "input_features" not in data and "output_features" not in data:
            raise ConfigError(
                f"the model file {doc.file} has no input_features: '{format_path(path)}' would change nothing",
                ArgMark("model." + arg),
                None,
                "override its layers (model.layers.<name>.<key>=value)",
            )
        if len(path) >= 2 and path[0] != "combiner" and isinstance(path[1], str):
            path = (path[0], _feature_index(doc, path[0], path[1], "model." + arg)) + path[2:]
        _set(doc, path, _parse_value(text, "model." + arg), "model." + arg)
    return rest


def _feature_index(doc, key, name, arg):
    """The index of the feature of ``key`` whose feed is ``name`` (its name, else its column)."""
    names = []
    for item in doc.data.get(key) or []:
        column = item.get("column") if isinstance(item, dict) else None
        names.append(item.get("name", column) if isinstance(item, dict) else None)
    if name not in names:
        shown = [n for n in names if isinstance(n, str)]
        raise ConfigError(
            f"the model file {doc.file} has no {key[:-1].replace('_', ' ')} '{name}'",
            ArgMark(arg),
            None,
            suggest(name, shown) if shown else f"{key} is empty",
        )
    return names.index(name)


def _parse_value(text, arg):
    if text.strip() == "":
        return None
    try:
        return parse_yaml(text, "command line").data
    except ConfigError as e:
        shown = text if len(text) <= 80 else text[:80] + "..."
        raise ConfigError(
            f"cannot read the value '{shown}': {e.message}",
            ArgMark(arg),
            None,
            "quote it for the shell, e.g. key='[1, 2]'",
        ) from None


def _set(doc, path, value, arg):
    if not isinstance(doc.data, dict):
        doc.data = {}
    node = doc.data
    for i, part in enumerate(path[:-1]):
        nxt = node[part] if _has(node, part) else None
        if nxt is None:
            if isinstance(part, int):
                raise ConfigError(
                    f"'{format_path(path[: i + 1])}' does not exist",
                    ArgMark(arg),
                    None,
                    "only existing list items can be overridden",
                )
            nxt = node[part] = {}
            doc.marks[path[: i + 1]] = doc.key_marks[path[: i + 1]] = ArgMark(arg)
        if not isinstance(nxt, (dict, list)):
            raise ConfigError(
                f"'{format_path(path[: i + 1])}' is {nxt!r}, not a mapping",
                ArgMark(arg),
                None,
                f"override '{format_path(path[: i + 1])}' itself",
            )
        node = nxt
    last = path[-1]
    if isinstance(node, list):
        if not isinstance(last, int) or last >= len(node):
            raise ConfigError(
                f"'{format_path(path)}' is not an item of the list",
                ArgMark(arg),
                None,
                f"the list has {len(node)} items",
            )
    elif isinstance(last, int):
        raise ConfigError(f"'{format_path(path[:-1])}' is not a list", ArgMark(arg), None, "drop the [index]")
    node[last] = value
    # Positions: everything under the overridden path now comes from the argument.
    for marks in (doc.marks, doc.key_marks):
        for p in [p for p in marks if p[: len(path)] == path]:
            del marks[p]
    _mark_all(doc, path, value, ArgMark(arg))


def _has(node, part):
    if isinstance(node, dict):
        return part in node
    return isinstance(part, int) and part < len(node)


def _mark_all(doc, path, value, mark):
    doc.marks[path] = mark
    doc.key_marks[path] = mark
    if isinstance(value, dict):
        for k, v in value.items():
            _mark_all(doc, path + (k,), v, mark)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _mark_all(doc, path + (i,), v, mark)
