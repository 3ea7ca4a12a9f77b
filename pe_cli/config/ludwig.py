"""Ludwig's spellings of a features model file, translated into pe's before anything reads them
(docs/CONFIG.md, "Ludwig's spellings"). A Ludwig config's features (``name`` + ``type``, ``number``),
their ``preprocessing``, the ``defaults`` per type, and a ``combiner: {type: concat, ...}`` become the
pe keys that compute the same; its ``trainer`` and top-level ``preprocessing.split`` are the run's
(config/ludwig_run.py). What pe cannot compute as Ludwig does is refused in one line at its key,
never dropped. The translation is in place, each new key marked where its Ludwig key was written.
"""

from .errors import suggest
from .ludwig_prep import TYPES, translate_preprocessing
from .ludwig_run import RUN_KEYS, check_run_keys

NO_KIND = ("audio", "bag", "h3", "timeseries", "vector")
DOC = "docs/CONFIG.md, 'Ludwig's spellings'"
# A Ludwig feature's keys pe reads (the rest are refused by name): pe's own and Ludwig's type.
FEATURE_KEYS = ("name", "type", "column", "encoder", "preprocessing", "loss", "decoder")
# An output's decoder as pe's head computes it: Ludwig's default decoder with no fc layer.
DECODERS = {"category": "classifier", "numeric": "regressor"}
DECODER_SAME = {"num_fc_layers": (0,), "fc_layers": (None,)}
TOP_IGNORED = ("ludwig_version",)  # a record of the Ludwig release, no setting
TOP_REFUSED = ("hyperopt", "backend", "quantization", "adapter", "prompt", "base_model", "generation")
COMBINER = {"num_fc_layers": "layers", "output_size": "size", "fc_size": "size", "dropout": "dropout"}
# Ludwig's concat keys that compute what pe's fc layers do at these values (Ludwig's defaults).
COMBINER_SAME = {
    "activation": ("relu",),
    "use_bias": (True,),
    "norm": (None,),
    "norm_params": (None,),
    "flatten_inputs": (False,),
    "residual": (False,),
    "fc_layers": (None,),
    "weights_initializer": ("xavier_uniform",),
    "bias_initializer": ("zeros",),
}
LOSSES = {"numeric": "mean_squared_error", "category": "softmax_cross_entropy"}


def is_ludwig(data):
    """Whether a model file uses a Ludwig spelling pe translates."""
    if not isinstance(data, dict):
        return False
    features = [f for key in ("input_features", "output_features") for f in _list(data.get(key))]
    combiner = data.get("combiner")
    return (
        any(isinstance(f, dict) and "type" in f for f in features)
        or (isinstance(combiner, dict) and "type" in combiner)
        or any(k in data for k in RUN_KEYS + ("defaults", "model_type") + TOP_IGNORED)
    )


def _list(value):
    return value if isinstance(value, list) else []


def translate(doc):
    """Rewrites ``doc`` (a features model file, yamlfile.Doc) from Ludwig's spellings into pe's, in place."""
    data = doc.data
    if not isinstance(data, dict) or not is_ludwig(data):
        return
    for key in TOP_REFUSED:
        if key in data:
            raise doc.error((key,), f"Ludwig's '{key}' section has no pe equivalent", f"drop it ({DOC})", key=True)
    if data.get("model_type", "ecd") != "ecd":
        raise doc.error(("model_type",), f"model_type {data['model_type']!r}: pe builds Ludwig's ecd models only")
    check_run_keys(doc)
    defaults = _defaults(doc)
    for key in ("input_features", "output_features"):
        for j, entry in enumerate(_list(data.get(key))):
            if isinstance(entry, dict) and "type" in entry:
                _feature(doc, (key, j), entry, defaults, key == "output_features")
            elif isinstance(entry, dict) and entry.get("kind") in defaults:  # pe's spelling: the defaults too
                _preprocessing(doc, (key, j), entry, entry["kind"], defaults, key == "output_features")
    if isinstance(data.get("combiner"), dict) and "type" in data["combiner"]:
        _combiner(doc, data["combiner"])
    for key in RUN_KEYS + ("defaults", "model_type") + TOP_IGNORED:
        data.pop(key, None)


def _defaults(doc):
    """Ludwig's ``defaults: {<type>: {preprocessing: {...}}}``: {pe kind: preprocessing}."""
    defaults = doc.data.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise doc.error(("defaults",), "defaults is a mapping of feature types", "e.g. defaults: {number: {...}}")
    out = {}
    for type_, section in defaults.items():
        at = ("defaults", type_)
        if type_ not in TYPES:
            raise doc.error(at, f"defaults.{type_}: not a feature type pe has", _near(type_, TYPES), key=True)
        if not isinstance(section, dict):
            raise doc.error(at, f"defaults.{type_} is a mapping", "e.g. {preprocessing: {normalization: zscore}}")
        if set(section) - {"preprocessing"}:
            extra = sorted(set(section) - {"preprocessing"})
            raise doc.error(
                at + (extra[0],),
                f"defaults.{type_} takes preprocessing only in pe, not {extra[0]}",
                f"write it on each feature ({DOC})",
                key=True,
            )
        _default(doc, out, type_, at + ("preprocessing",), section.get("preprocessing") or {})
    top = doc.data.get("preprocessing")
    for type_, prep in top.items() if isinstance(top, dict) else ():
        if type_ in TYPES:  # Ludwig before 0.6: type-global preprocessing under the top-level preprocessing
            _default(doc, out, type_, ("preprocessing", type_), prep or {})
    return out


def _default(doc, out, type_, at, prep):
    if not isinstance(prep, dict):
        raise doc.error(at, "preprocessing is a mapping")
    if TYPES[type_] in out:
        raise doc.error(at, f"the {TYPES[type_]} features' defaults are given twice; keep one", key=True)
    out[TYPES[type_]] = (at, prep)


def _near(value, choices):
    hint = suggest(str(value), list(choices))
    return hint if hint.startswith("did you mean") else None


def _move(doc, src, dst):
    """The positions of ``src`` (and everything under it) copied to ``dst``."""
    for marks in (doc.marks, doc.key_marks):
        for path, mark in list(marks.items()):
            if path[: len(src)] == src:
                marks[dst + path[len(src) :]] = mark


def _feature(doc, at, entry, defaults, output):
    """One Ludwig-spelled feature: ``type`` to ``kind``, ``name`` its column, preprocessing translated."""
    if "kind" in entry:
        raise doc.error(
            at + ("type",),
            "a feature gives its kind (pe's spelling) or its type (Ludwig's), not both",
            "drop one",
            key=True,
        )
    for key in entry:
        if key not in FEATURE_KEYS:
            raise doc.error(
                at + (key,), f"Ludwig's feature key '{key}' has no pe equivalent", f"drop it ({DOC})", key=True
            )
    type_ = entry.pop("type")
    if type_ in NO_KIND or type_ not in TYPES:
        what = f"Ludwig's type {type_!r} has no pe kind" if type_ in NO_KIND else f"type {type_!r} is not a kind pe has"
        raise doc.error(at + ("type",), f"{what} (pe: {', '.join(TYPES)})", _near(type_, TYPES))
    kind = entry["kind"] = TYPES[type_]
    _move(doc, at + ("type",), at + ("kind",))
    if "column" not in entry and "name" in entry:  # Ludwig: the column is the feature's name
        entry["column"] = entry["name"]
        _move(doc, at + ("name",), at + ("column",))
    if isinstance(entry.get("encoder"), str):  # Ludwig's older spelling: encoder: <type>
        entry["encoder"] = {"type": entry["encoder"]}
    encoder = entry.get("encoder")
    if kind == "category" and isinstance(encoder, dict) and encoder.get("type") in ("sparse", "onehot"):
        encoder["type"] = "one_hot"  # the one-hot row of the vocabulary (with <UNK>): pe's one_hot
    if output and "loss" in entry:
        _loss(doc, at, entry, kind)
    if "decoder" in entry:
        _decoder(doc, at, entry, kind, output)
    _preprocessing(doc, at, entry, kind, defaults, output)


def _preprocessing(doc, at, entry, kind, defaults, output):
    """A feature's preprocessing over its type's ``defaults``, in pe's keys (ludwig_prep.py)."""
    base_at, base = defaults.get(kind, (None, {}))
    prep = entry.get("preprocessing") or {}
    if not isinstance(prep, dict):
        raise doc.error(at + ("preprocessing",), "preprocessing is a mapping")
    if base or prep:
        entry["preprocessing"] = translate_preprocessing(
            doc, at + ("preprocessing",), kind, base_at, base, prep, output
        )


def _loss(doc, at, entry, kind):
    """An output's ``loss: {type, weight}``: the type pe's head computes, else one line."""
    loss = entry["loss"]
    if isinstance(loss, dict) and "type" in loss:
        if loss["type"] != LOSSES.get(kind):
            same = f" (pe's {kind} head: {LOSSES[kind]})" if kind in LOSSES else ""
            raise doc.error(at + ("loss", "type"), f"loss type {loss['type']!r} is not the loss pe computes{same}")
        entry["loss"] = {k: v for k, v in loss.items() if k != "type"}


def _decoder(doc, at, entry, kind, output):
    """An output's ``decoder``: Ludwig's default one (classifier, regressor; no fc layer) is pe's head."""
    decoder = entry["decoder"]
    decoder = {"type": decoder} if isinstance(decoder, str) else decoder
    if not output or not isinstance(decoder, dict):
        what = "an input feature has no decoder" if not output else "decoder is a mapping"
        raise doc.error(at + ("decoder",), what, key=True)
    for key, value in decoder.items():
        if key == "type" and kind in DECODERS and value == DECODERS[kind]:
            continue
        if key != "type" and key in DECODER_SAME and value in DECODER_SAME[key]:
            continue
        if key == "type":
            why = f"pe's {kind} head is Ludwig's {DECODERS[kind]!r}" if kind in DECODERS else "pe's head is a softmax"
        elif key in DECODER_SAME:
            why = f"pe's head has no fc layer ({key}: {DECODER_SAME[key][0]!r})"
        else:
            why = "a decoder key pe does not have"
        raise doc.error(at + ("decoder", key), f"decoder.{key}: {value!r}: {why}", f"drop it ({DOC})", key=True)
    del entry["decoder"]


def _combiner(doc, combiner):
    """``combiner: {type: concat, num_fc_layers, output_size, ...}`` to pe's ``{layers, size}``, with
    Ludwig's defaults (no fc layer; 256 wide)."""
    at = ("combiner",)
    if combiner["type"] != "concat":
        raise doc.error(
            at + ("type",),
            f"combiner type {combiner['type']!r}: pe's combiner is Ludwig's concat",
            "write type: concat",
        )
    for key, value in combiner.items():
        if key in ("size", "layers"):
            raise doc.error(
                at + (key,),
                f"combiner gives pe's {key} and Ludwig's type: concat; not both",
                "num_fc_layers and output_size with type: concat, or size and layers without it",
                key=True,
            )
        if key in COMBINER_SAME and value not in COMBINER_SAME[key]:
            raise doc.error(
                at + (key,),
                f"combiner.{key}: {value!r} is not computed by pe's combiner (it computes "
                f"{COMBINER_SAME[key][0]!r}, Ludwig's default)",
            )
        if key not in COMBINER_SAME and key not in COMBINER and key != "type":
            raise doc.error(
                at + (key,), f"Ludwig's combiner key '{key}' has no pe equivalent", f"drop it ({DOC})", key=True
            )
    for key in ("num_fc_layers", "output_size", "fc_size"):
        value, least = combiner.get(key, 1), 0 if key == "num_fc_layers" else 1
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise doc.error(at + (key,), f"combiner.{key} is a whole number of at least {least}, not {value!r}")
    if "output_size" in combiner and "fc_size" in combiner:
        raise doc.error(at + ("fc_size",), "combiner gives output_size and fc_size (its old name); one", key=True)
    layers = combiner.get("num_fc_layers", 0)
    new = {"layers": layers}
    for key in ("output_size", "fc_size", "dropout"):
        if key in combiner and layers != 0 and combiner[key] != 0:  # none of them counts with no fc layer
            new[COMBINER[key]] = combiner[key]
            _move(doc, at + (key,), at + (COMBINER[key],))
    if layers != 0 and "size" not in new:
        new["size"] = 256
    _move(doc, at + ("num_fc_layers",), at + ("layers",))
    doc.data["combiner"] = new


__all__ = ["TYPES", "is_ludwig", "translate"]
