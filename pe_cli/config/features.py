"""Features in, a model out: a model file may give ``input_features`` and ``output_features`` (each
a table column, or a folder's ``image``/``label``, with its kind) instead of ``layers``, as Ludwig's
config does. pe expands them, before anything else reads the model file, into the layers a user
would write (the expansion is the truth: ``pe summary``, ``pe graph`` and the run's ``model.yaml``
show them, to copy out and edit) and into the run config's ``data.preprocessing`` entries of their
feeds (docs/CONFIG.md, "Features instead of layers"):

    numeric            a standardized feed (a list of columns side by side: give ``name``)
    category           an embedding of its ids (encoder: {type: embed, size: 8}), or one-hot
                       (encoder: {type: one_hot})
    binary             one-hot (its two values and <unknown>)
    text               token ids, an embedding, pooled over the tokens (encoder: {type: pooled,
                       size: 16, pool: average|max|sum}) or an LSTM's states max-pooled (type: rnn)
    sequence, set      text split on whitespace, case kept (a set: summed, order ignored)
    image              a small CNN: conv 3x3 + relu + 2x2 max pool per ``filters`` (encoder:
                       {type: cnn, filters: [8, 16], size: 64}); ``preprocessing: {size: [H, W]}``
    date               year, month, day, weekday and their cyclic parts (data.preprocessing kind: date)

The encoded inputs are joined (``concat``), passed through the ``combiner`` (``{size: 32, layers:
1}``: fc + relu layers; ``layers: 0`` none) and into one head per output: category and binary a
classifier (fc to the classes, softmax cross entropy, accuracy), numeric a regression (fc to 1,
squared error, the target standardized and predicted in its units). Sizes come from the data
(``auto``). A feature's ``preprocessing`` map goes to its data.preprocessing entry as written.
A file in Ludwig's spellings (``name`` + ``type``) is translated first (config/ludwig.py).
"""

import math
import re

from ..base import limits
from ..layers.feature_layers import combiner_layers, encoder_layers, head_layers, summed_losses
from .errors import suggest
from .yamlfile import format_path

INPUT_KINDS = ("numeric", "category", "binary", "text", "sequence", "set", "image", "date")
OUTPUT_KINDS = ("numeric", "category", "binary")
FEATURE_KEYS = ("column", "kind", "name", "encoder", "preprocessing")
OUTPUT_KEYS = FEATURE_KEYS[:3] + ("preprocessing", "loss")
NOT_YET_OUTPUTS = ("text", "sequence", "set", "image", "date")
ENCODERS = {
    "category": {"type": ("embed", "one_hot"), "size": int},
    "text": {"type": ("pooled", "rnn"), "size": int, "pool": ("average", "max", "sum")},
    "image": {"type": ("cnn",), "filters": list, "size": int},
}
ENCODERS["sequence"] = ENCODERS["set"] = ENCODERS["text"]
COMBINER = {"size": int, "layers": int, "dropout": float}
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def _near(value, choices):
    hint = suggest(str(value), choices)
    return hint if hint.startswith("did you mean") else None


def has_features(data):
    return isinstance(data, dict) and ("input_features" in data or "output_features" in data)


class _Expansion:
    def __init__(self, doc):
        self.doc, self.layers, self.marks = doc, [], []

    def add(self, at, name, body):
        self.layers.append({name: body})
        self.marks.append(at)
        return name


def _feature(doc, path, entry, kinds):
    """(feed name, columns, kind, encoder, preprocessing) of one entry, checked."""
    if not isinstance(entry, dict):
        raise doc.error(
            path, "a feature is a mapping {column: ..., kind: ...}", "e.g. {column: island, kind: category}"
        )
    allowed = OUTPUT_KEYS if kinds is OUTPUT_KINDS else FEATURE_KEYS
    for key in entry:
        if key not in allowed:
            raise doc.error(path + (key,), f"unknown key '{key}' of a feature", suggest(str(key), allowed), key=True)
    column, kind = entry.get("column"), entry.get("kind")
    if kinds is OUTPUT_KINDS and kind in NOT_YET_OUTPUTS:
        raise doc.error(
            path + ("kind",),
            f"output feature '{entry.get('name', column)}': a {kind} output is not built yet (pe predicts "
            f"{', '.join(OUTPUT_KINDS)} outputs)",
        )
    if kind not in kinds:
        raise doc.error(
            path + ("kind",) if "kind" in entry else path,
            f"a feature's kind is one of {', '.join(kinds)}{'' if kind is None else f', not {kind!r}'}",
            _near(kind, kinds),
        )
    if not (
        isinstance(column, str)
        or (isinstance(column, list) and column and kind == "numeric" and all(isinstance(c, str) for c in column))
    ):
        raise doc.error(
            path + ("column",) if "column" in entry else path,
            "a feature names its column (a numeric feature: a list of columns, side by side, with a name)",
            "e.g. column: island",
        )
    name = entry.get("name", column if isinstance(column, str) else None)
    if not isinstance(name, str) or not _NAME.match(name):
        raise doc.error(
            path + ("name",) if "name" in entry else path,
            f"the feature's feed needs a usable name, not {name!r}",
            "add name: <letters, digits, _ and ->",
        )
    encoder = _encoder(doc, path, entry, kind)
    prep = entry.get("preprocessing") or {}
    if not isinstance(prep, dict):
        raise doc.error(
            path + ("preprocessing",),
            "preprocessing is a mapping of data.preprocessing keys",
            "e.g. preprocessing: {size: [28, 28], mode: L}",
        )
    return name, column, kind, encoder, prep


def _encoder(doc, path, entry, kind):
    """A feature's encoder: a mapping of the keys its kind takes (ENCODERS), each value of its type."""
    encoder = entry.get("encoder") or {}
    allowed = ENCODERS.get(kind, {})
    if not isinstance(encoder, dict):
        raise doc.error(path + ("encoder",), "encoder is a mapping", "e.g. encoder: {type: embed, size: 8}")
    for key, value in encoder.items():
        want = allowed.get(key)
        if want is None:
            raise doc.error(
                path + ("encoder", key),
                f"a {kind} feature's encoder takes {', '.join(allowed) or 'no keys'}",
                suggest(str(key), list(allowed)) if allowed else None,
                key=True,
            )
        if (
            isinstance(want, tuple)
            and value not in want
            or want is int
            and (not isinstance(value, int) or isinstance(value, bool) or value < 1)
            or want is list
            and not (isinstance(value, list) and value and all(isinstance(v, int) and v > 0 for v in value))
        ):
            raise doc.error(
                path + ("encoder", key),
                f"encoder.{key} is {' or '.join(want) if isinstance(want, tuple) else _want(want)}, not {value!r}",
            )
        for width in value if want is list else [value] if want is int else []:
            _bounded(doc, path + ("encoder", key), "layer_width", width, f"encoder.{key}")
    for key in {"one_hot": ("size",), "rnn": ("pool",)}.get(encoder.get("type"), ()):
        if key in encoder:  # one-hot has no width; the LSTM's states are max-pooled
            raise doc.error(
                path + ("encoder", key), f"encoder.{key} would change nothing with type: {encoder['type']}", key=True
            )
    return encoder


def _loss_weight(doc, path, entry):
    """An output feature's ``loss: {weight: w}``: its loss's factor in the total, a number > 0 (1)."""
    loss = entry.get("loss", {})
    if not isinstance(loss, dict) or set(loss) - {"weight"}:
        raise doc.error(path + ("loss",), "an output feature's loss takes weight only", "e.g. loss: {weight: 2}")
    weight = loss.get("weight", 1)
    number = isinstance(weight, (int, float)) and not isinstance(weight, bool)
    if not number or not math.isfinite(weight) or weight <= 0:
        raise doc.error(
            path + ("loss", "weight"),
            f"loss.weight is the output's factor in the total loss, a number above 0, not {weight!r}",
        )
    return weight


def _want(want):
    return "a whole number of at least 1" if want is int else "a list of whole numbers of at least 1"


def _bounded(doc, path, name, value, what):
    """``value`` within pe's limit ``name`` (base/limits.py), else one line at ``path``."""
    try:
        limits.check(name, value, what)
    except limits.LimitError as e:
        raise doc.error(path, str(e)) from None


def _check_combiner(doc, combiner):
    """combiner: {size, layers}, whole numbers within pe's limits, before any layer is made."""
    for key, value in combiner.items() if isinstance(combiner, dict) else [(None, combiner)]:
        if key == "dropout":
            _check_dropout(doc, combiner)
            continue
        if key not in COMBINER or not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise doc.error(
                ("combiner",) + ((key,) if key is not None else ()),
                "combiner takes size (its fc layers' width) and layers (how many), whole numbers, and dropout",
                "e.g. combiner: {size: 32, layers: 1}",
            )
    layers, size = combiner.get("layers", 1), combiner.get("size", 32)
    if layers == 0 and "size" in combiner:
        raise doc.error(
            ("combiner", "size"),
            "combiner.size would change nothing with layers: 0",
            "drop it (on the command line: model.combiner={layers: 0})",
            key=True,
        )
    if layers and size < 1:
        raise doc.error(("combiner", "size"), "combiner.size is the width of its fc layers: at least 1, not 0")
    at = ("combiner", "layers") if "layers" in combiner else ("combiner",)
    _bounded(doc, at, "feature_layers", layers, "combiner.layers")
    _bounded(doc, ("combiner", "size") if "size" in combiner else ("combiner",), "layer_width", size, "combiner.size")
    hidden = max(layers - 1, 0) * (size * size + size)  # the fc layers after the first: size x size each
    _bounded(doc, at, "parameters", hidden, f"the parameter count of combiner {{size: {size}, layers: {layers}}}")


def _check_dropout(doc, combiner):
    """combiner.dropout: the probability of dropping each fc layer's output while training, in [0, 1)."""
    value = combiner["dropout"]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or not 0 <= value < 1:
        raise doc.error(
            ("combiner", "dropout"), f"combiner.dropout is a probability in [0, 1), not {value!r}", "e.g. dropout: 0.2"
        )
    if combiner.get("layers", 1) == 0:
        raise doc.error(
            ("combiner", "dropout"), "combiner.dropout would change nothing with layers: 0", "drop it", key=True
        )


def _features(doc, key, kinds):
    entries = doc.data.get(key) or []
    if not isinstance(entries, list) or not entries:
        raise doc.error((key,), f"{key} is a list of features, at least one", "e.g. [{column: island, kind: category}]")
    out, seen = [], set()
    for j, entry in enumerate(entries):
        feature = _feature(doc, (key, j), entry, kinds)
        if feature[0] in seen:
            raise doc.error((key, j), f"two features make the feed '{feature[0]}'", "give one a name: ...")
        seen.add(feature[0])
        out.append(((key, j),) + feature)
    if key == "output_features" and isinstance(doc.data.get("input_features"), list):
        _check_targets(doc, out, _features(doc, "input_features", INPUT_KINDS))
    return out


def _check_targets(doc, outputs, inputs):
    """No output's feed is an input's (the target fed as an input, or two columns under one feed
    name). (An output's encoder is an unknown key of an output: ``_feature``.)"""
    for at, name, column, *_ in outputs:
        for i_at, i_name, i_column, *_ in inputs:
            if i_name == name:
                raise doc.error(
                    i_at,
                    f"the input feed '{name}' is also the feed of {format_path(at)}, the target",
                    "drop the input, or give one of the two another name",
                )
            if column in ([i_column] if isinstance(i_column, str) else i_column):
                raise doc.error(
                    i_at,
                    f"the input '{i_name}' reads column '{column}', the target of {format_path(at)}: the model "
                    "would be given the answer it is to predict",
                    "drop that column from the inputs",
                )


def binary_feeds(doc):
    """{feed: the position of its feature} of a model file's binary input and output features."""
    out = {}
    for key, kinds in (("input_features", INPUT_KINDS), ("output_features", OUTPUT_KINDS)):
        for at, name, _, kind, _, _ in _features(doc, key, kinds) if key in doc.data else []:
            if kind == "binary":
                out[name] = at
    return out


def _input_preprocessing(name, column, kind, prep):
    base = {
        "numeric": {"kind": "numeric"},
        "category": {"kind": "category"},
        "date": {"kind": "date"},
        "binary": {"kind": "category", "encoding": "one_hot"},
        "text": {"kind": "text"},
        "sequence": {"kind": "text", "tokenizer": "whitespace", "lowercase": False},
        "set": {"kind": "text", "tokenizer": "whitespace", "lowercase": False},
        "image": {"kind": "image"},
    }[kind]
    return {**base, **({} if column == name else {"columns": column}), **prep}


def feature_preprocessing(doc):
    """{feed: data.preprocessing entry} of a model file's features (``doc``: its YamlDoc)."""
    out = {}
    for _, name, column, kind, encoder, prep in _features(doc, "input_features", INPUT_KINDS):
        spec = _input_preprocessing(name, column, kind, prep)
        if kind == "category" and encoder.get("type") == "one_hot":
            spec["encoding"] = "one_hot"
        out[name] = spec
    for _, name, column, kind, _, prep in _features(doc, "output_features", OUTPUT_KINDS):
        spec = {"kind": "numeric"} if kind == "numeric" else {"kind": "label"}
        out[name] = {**spec, **({} if column == name else {"columns": column}), **prep}
    return out


def expand_features(doc):
    """Replaces a model file's ``input_features``/``output_features``/``combiner`` by the layers,
    loss and fetches they stand for (in ``doc.data``, each new key marked at its feature's line)."""
    data = doc.data
    if not has_features(data):
        if isinstance(data, dict) and "combiner" in data:
            raise doc.error(
                ("combiner",),
                "combiner goes with input_features: in a model file of layers it would change nothing",
                "drop it (the fc layers are the file's own)",
                key=True,
            )
        return
    if "layers" in data:
        raise doc.error(
            ("layers",),
            "a model file gives its layers or its input_features and output_features, not both",
            "drop one (pe summary CONFIG shows the layers the features make)",
            key=True,
        )
    for key in ("input_features", "output_features"):
        if key not in data:
            raise doc.error(
                (),
                f"input_features goes with output_features; {key} is missing",
                "e.g. output_features: [{column: species, kind: category}]",
            )
    combiner = data.get("combiner") or {}
    _check_combiner(doc, combiner)
    x = _Expansion(doc)
    encoded = []
    for at, name, _, kind, encoder, _ in _features(doc, "input_features", INPUT_KINDS):
        encoded.append(_added(x, at, encoder_layers(name, kind, encoder)) or name)
    at = ("combiner",) if "combiner" in data else ("input_features",)
    layers = combiner_layers(encoded, combiner.get("layers", 1), combiner.get("size", 32), combiner.get("dropout", 0))
    prev = _added(x, at, layers) or encoded[0]
    losses, fetches = [], []
    outputs = _features(doc, "output_features", OUTPUT_KINDS)
    for at, name, _, kind, _, _ in outputs:
        weight = _loss_weight(doc, at, data["output_features"][at[1]])
        layers = head_layers(name, kind, prev, weight)
        _added(x, at, layers)
        losses.append(layers[-1][0] if weight != 1 else f"{name}_loss")
        fetches += [f"{name}_loss"] * (len(outputs) > 1) + [n for n, _ in layers if n.endswith("_acc")]
    loss = losses[0]
    if len(losses) > 1:
        loss = _added(x, ("output_features",), summed_losses(losses))
    _replace(doc, x, loss, list(dict.fromkeys([loss] + fetches)))


def _added(x, at, layers):
    """Adds [(name, body)] at the feature ``at``; returns the last name (None for none)."""
    for name, body in layers:
        x.add(at, name, body)
    return layers[-1][0] if layers else None


def _replace(doc, x, loss, fetches):
    """The expanded layers into ``doc`` in place of the features, each key marked at its feature."""
    for key in ("input_features", "output_features", "combiner"):
        doc.data.pop(key, None)
    doc.data.update({"layers": x.layers, "loss": loss, "fetches": fetches})
    for i, (layer, at) in enumerate(zip(x.layers, x.marks)):
        ((name, body),) = layer.items()
        mark = doc.mark(at, key=True)
        for path in [("layers", i), ("layers", i, name)] + [("layers", i, name, k) for k in body]:
            doc.marks[path] = doc.key_marks[path] = mark
    for path in (("loss",), ("fetches",)):
        doc.marks[path] = doc.key_marks[path] = doc.mark(("output_features",), key=True)


__all__ = ["INPUT_KINDS", "OUTPUT_KINDS", "binary_feeds", "expand_features", "feature_preprocessing", "has_features"]
