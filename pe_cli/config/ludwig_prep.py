"""A Ludwig feature's ``preprocessing`` (and ``defaults.<type>.preprocessing`` under it), translated
into the keys of pe's ``data.preprocessing`` entry that compute the same (docs/CONFIG.md, "Ludwig's
spellings"); a Ludwig key or value pe does not compute so is one line at its key. pe's own keys pass
as written; a key given in both spellings (``scaling`` and ``normalization``) is refused."""

from .keys_data import PREPROCESSING

TYPES = {
    "number": "numeric",
    "numerical": "numeric",
    "category": "category",
    "binary": "binary",
    "text": "text",
    "sequence": "sequence",
    "set": "set",
    "image": "image",
    "date": "date",
}
PE_KEYS = tuple(PREPROCESSING.value.fields)
DOC = "docs/CONFIG.md, 'Ludwig's spellings'"
NORMALIZATION = {"zscore": "zscore", "minmax": "minmax", "log1p": "log", None: "none"}
TOKENIZERS = {"space_punct": "space_punct", "space": "whitespace"}
CHANNELS = {1: "L", 3: "RGB"}
# Ludwig keys whose value, as written, is what pe computes already (nothing to set).
SAME = {
    "lowercase": {"category": (False,), "binary": (False,)},
    "outlier_strategy": {"numeric": (None,)},
}
TEXT = ("text", "sequence", "set")


def translate_preprocessing(doc, at, kind, base_at, base, prep, output):
    """{pe key: value} of a feature's Ludwig ``prep`` over its type's ``base`` defaults (marks moved)."""
    merged = {**{k: (base_at, v) for k, v in base.items()}, **{k: (at, v) for k, v in prep.items()}}
    out = {}
    strategy = merged.pop("missing_value_strategy", None)
    fill_value = merged.pop("fill_value", None)
    if strategy is not None or fill_value is not None:
        _fill(doc, kind, output, strategy, fill_value, out)
    height, width = merged.pop("height", None), merged.pop("width", None)
    if height or width:
        _size(doc, at, kind, height, width, out)
    for key, (where, value) in merged.items():
        if key in PE_KEYS and not (key == "tokenizer" and value in TOKENIZERS):  # space: Ludwig's
            _put(doc, out, key, (where + (key,), value), where + (key,))
            continue
        pe_key, pe_value = _one(doc, where + (key,), kind, key, value)
        if pe_key is not None:
            _put(doc, out, pe_key, (where + (key,), pe_value), where + (key,))
    for key, (where, value) in out.items():
        if where[:-1] != at:
            _copy(doc, where, at + (key,))
    return {k: v for k, (_, v) in out.items()}


def _put(doc, out, key, item, where):
    if key in out:
        raise doc.error(
            where,
            f"preprocessing gives {key} twice (pe's spelling and Ludwig's: {out[key][0][-1]} and {where[-1]})",
            "keep one",
            key=True,
        )
    out[key] = item


def _copy(doc, src, dst):
    for marks in (doc.marks, doc.key_marks):
        if src in marks:
            marks[dst] = marks[src]


def _refuse(doc, where, key, value, why):
    return doc.error(where, f"Ludwig's preprocessing {key}: {value!r}: {why}", f"drop it or use pe's keys ({DOC})")


def _one(doc, where, kind, key, value):
    """(pe key, pe value) of one Ludwig key (pe key None: nothing to set), else one line."""
    if key in SAME and value in SAME[key].get(kind, ()):
        return None, None
    if key == "normalization" and kind == "numeric":
        if value not in NORMALIZATION:
            raise _refuse(doc, where, key, value, "pe scales by zscore, minmax, log1p or none (null)")
        return "scaling", NORMALIZATION[value]
    if key == "tokenizer" and kind in TEXT:
        if value not in TOKENIZERS:
            raise _refuse(doc, where, key, value, "pe splits text as Ludwig's space_punct or space")
        return "tokenizer", TOKENIZERS[value]
    if key == "max_sequence_length" and kind in TEXT:
        return "max_length", value
    if key == "lowercase" and kind in TEXT:
        return "lowercase", value
    if key == "num_channels" and kind == "image":
        if value not in CHANNELS:
            raise _refuse(doc, where, key, value, "pe reads 1 (L) or 3 (RGB) channels")
        return "mode", CHANNELS[value]
    if key == "datetime_format" and kind == "date":
        return "format", value
    raise doc.error(
        where,
        f"Ludwig's preprocessing key '{key}' of a {kind} feature has no pe equivalent",
        f"drop it or use pe's keys ({DOC})",
        key=True,
    )


def _fill(doc, kind, output, strategy, fill_value, out):
    """``missing_value_strategy`` (+ ``fill_value``) to pe's ``fill``, where pe fills the same."""
    s_at, s = strategy if strategy is not None else (None, "fill_with_const")
    v_at, v = fill_value if fill_value is not None else (None, None)
    where = (s_at or v_at) + (("missing_value_strategy",) if strategy is not None else ("fill_value",))
    if s == "drop_row" and output and kind in ("category", "binary") and v is None:
        return  # a row whose label is missing is dropped: data.on_missing_label's default
    if s == "fill_with_mean" and kind == "numeric" and v is None:
        out["fill"] = (where, "mean")
    elif s == "fill_with_const" and kind == "numeric" and isinstance(v, (int, float)) and not isinstance(v, bool):
        out["fill"] = (where, float(v))
    elif s == "fill_with_const" and kind == "numeric" and v is None:
        out["fill"] = (where, "zero")  # Ludwig's fill_value of a number is 0
    elif s == "fill_with_const" and kind == "category" and not output and v is not None:
        out["fill"] = (where, str(v))
    elif s == "fill_with_const" and kind == "category" and not output and v is None:
        return  # Ludwig's <UNK>: pe's unknown id 0
    else:
        shown = s if v is None else f"{s} with fill_value {v!r}"
        raise _refuse(doc, where, "missing_value_strategy", shown, f"pe does not fill a {kind} feature so")


def _size(doc, at, kind, height, width, out):
    """Ludwig's image ``height`` and ``width``: pe's ``size: [height, width]``, both given."""
    given = height or width
    if kind != "image" or not (height and width):
        what = "an image's height and width go together" if kind == "image" else f"a {kind} feature has no height"
        raise doc.error(given[0] + (("height",) if height else ("width",)), what, "give both", key=True)
    out["size"] = (height[0] + ("height",), [height[1], width[1]])


__all__ = ["translate_preprocessing"]
