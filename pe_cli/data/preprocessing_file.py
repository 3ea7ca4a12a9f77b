"""Reading a ``preprocessing.json`` (a run's, an inference directory's): pe wrote it, but it is a file
on disk that anyone may have edited or replaced, and what it holds goes into every prediction and
into ONNX graphs. So it is read only when it is a regular file within pe's data limit, and every
value is checked before use: the version, each feed's kind and keys, finite statistics (a NaN or
infinite mean, a std <= 0 are refused), vocabularies and class lists of unique strings within
pe's limits (pe_cli/base/limits.py), tokenizers pe runs (a regex only from the safe subset,
patterns.py). A refusal is a DataError naming the file and the key path (``feeds.x.divide[0]``).
"""

import datetime
import math

from ..base import json_once
from ..base.errors import PeError
from ..base.limits import LIMITS, limit, read_regular_file
from .images import MODES
from .patterns import UnsafePattern, safe_pattern
from .readers import DataError
from .vocabulary import PAD, TOKENIZERS, UNKNOWN

FILLS = ("mean", "median", "zero")
SCALINGS = ("standardize", "zscore", "minmax", "log", "none")
SEQUENCES = ("ragged", "padded")
ENCODINGS = ("ids", "one_hot")
HINT = "pe writes this file (pe train, pe export --inference-dir): write it again that way rather than edit it"


class _Bad(Exception):
    """A value that is wrong: (key path, what is wrong)."""


def _shown(text):
    """``text`` quoted, printable whatever it holds (a lone surrogate as \\ud800), cut at 60 characters."""
    return repr(text[:60]) if isinstance(text, str) else repr(text)[:60]


def _text_only(value, key):
    """Every string of ``value`` (keys too) is text UTF-8 can hold: a lone surrogate (``\\ud800``, legal
    in JSON) is refused naming its key, where it ended the ONNX export in a UnicodeEncodeError."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise _Bad(key, f"{_shown(value)} holds a lone surrogate ({value[e.start]!r}), which is not text") from None
    elif isinstance(value, dict):
        for k, v in value.items():
            _text_only(k, f"{key}: a key")
            _text_only(v, f"{key}.{k}" if key else k)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _text_only(v, f"{key}[{i}]")


def read_preprocessing_file(path, version, kinds):
    """The checked content ({"version", "fitted_on", "feeds", "target"}) of the preprocessing file ``path``."""
    try:
        text = read_regular_file(path, "preprocessing file", path).decode("utf-8")
        data = json_once.loads(text)
    except PeError as e:
        raise DataError(str(e), (), HINT) from None
    except json_once.KeyTwice as e:
        raise DataError(f"{path}: {e}", (), HINT) from None
    except (OSError, ValueError, RecursionError) as e:
        raise DataError(
            f"{path}: not a readable preprocessing file ({type(e).__name__}: {str(e)[:120]})", (), HINT
        ) from None
    try:
        _check_top(data, version, kinds)
    except _Bad as e:
        key, message = e.args
        raise DataError(f"{path}: {key}: {message}", (), HINT) from None
    return data


def fitted_problem(feeds, version, kinds):
    """(feed, "key: what is wrong") of the first fitted state pe would refuse to read back (an
    infinite value in a column makes a NaN std), or None."""
    try:
        _check_top({"version": version, "feeds": feeds}, version, kinds)
    except _Bad as e:
        key, message = e.args
        feed = next((f for f in feeds if key.startswith(f"feeds.{f}.") or key == f"feeds.{f}"), None)
        return feed, f"{key.split('.', 2)[-1] if feed is not None else key}: {message}"
    return None


def _check_top(data, version, kinds):
    if not isinstance(data, dict):
        raise _Bad("(the file)", f"a JSON object, got {type(data).__name__}")
    _text_only(data, "")
    if data.get("version") != version:
        raise _Bad("version", f"{data.get('version')!r}; this pe reads version {version}")
    _string(data.get("fitted_on", ""), "fitted_on")
    feeds = data.get("feeds")
    if not isinstance(feeds, dict):
        raise _Bad("feeds", "must map each feed to its preprocessing")
    for feed, state in feeds.items():
        key = f"feeds.{feed}"
        if not isinstance(state, dict) or state.get("kind") not in kinds:
            raise _Bad(key, f"must be a mapping whose 'kind' is one of {', '.join(kinds)}")
        _column(state.get("column"), f"{key}.column")
        _KIND[state["kind"]](state, key)
        markers = state.get("missing")
        if markers is not None and not (isinstance(markers, list) and all(isinstance(m, str) for m in markers)):
            raise _Bad(f"{key}.missing", "the missing markers must be a list of strings")
    target = data.get("target")
    targets = target if isinstance(target, list) and target else [target]
    if target is not None and not all(
        isinstance(t, dict)
        and isinstance(t.get("output"), str)
        and (feeds.get(t.get("feed")) or {}).get("kind") == "numeric"
        for t in targets
    ):
        raise _Bad("target", "must name a numeric feed and an output variable (or be a list of such)")


def _numeric(state, key):
    _choice(state.get("scaling"), SCALINGS, f"{key}.scaling")
    fill = state.get("fill")
    if not (fill in FILLS or _is_number(fill)):
        raise _Bad(f"{key}.fill", f"{fill!r} is neither a number nor one of {', '.join(FILLS)}")
    sizes = {len(_numbers(state.get(k), f"{key}.{k}", k == "divide")) for k in ("fill_value", "shift", "divide")}
    if len(sizes) != 1:
        raise _Bad(key, "fill_value, shift and divide must hold one number per column each")


def _category(state, key):
    _count(state.get("min_count"), f"{key}.min_count")
    if not (state.get("fill") is None or isinstance(state["fill"], str) or _is_number(state["fill"])):
        raise _Bad(f"{key}.fill", "a category's fill is a value (a string or a number) or null")
    if _choice(state.get("encoding", "ids"), ENCODINGS, f"{key}.encoding") == "ids":
        _vocabulary(state.get("vocabulary"), f"{key}.vocabulary", [UNKNOWN], "vocabulary")
        return
    vocabularies, columns = state.get("vocabularies"), state.get("column")  # one-hot: one list per column
    if not isinstance(vocabularies, list) or len(vocabularies) != (len(columns) if isinstance(columns, list) else 1):
        raise _Bad(f"{key}.vocabularies", "must hold one vocabulary per column")
    for i, vocabulary in enumerate(vocabularies):
        _vocabulary(vocabulary, f"{key}.vocabularies[{i}]", [UNKNOWN], "vocabulary")
    _within(sum(map(len, vocabularies)), "feed_columns", f"{key}.vocabularies")


def _text(state, key):
    tokenizer = _choice(state.get("tokenizer"), TOKENIZERS, f"{key}.tokenizer")
    pattern = state.get("pattern")
    if (tokenizer == "regex") != (pattern is not None):
        raise _Bad(f"{key}.pattern", "a pattern goes with tokenizer: regex, and regex needs one")
    if pattern is not None:
        try:
            safe_pattern(pattern)
        except UnsafePattern as e:
            raise _Bad(f"{key}.pattern", f"{pattern[:80]!r}: {e}") from None
        except Exception as e:  # re.error, TypeError, and what sre raises on odd input
            raise _Bad(f"{key}.pattern", f"not a regular expression ({type(e).__name__}: {e})") from None
    if not isinstance(state.get("lowercase"), bool):
        raise _Bad(f"{key}.lowercase", "must be true or false")
    _count(state.get("max_length"), f"{key}.max_length", "text_length")
    sequence = _choice(state.get("sequence"), SEQUENCES, f"{key}.sequence")
    lengths = state.get("lengths_feed")
    if (sequence == "padded") != isinstance(lengths, str):
        raise _Bad(f"{key}.lengths_feed", "a feed name with sequence: padded, null with ragged")
    _count(state.get("min_count"), f"{key}.min_count")
    _vocabulary(state.get("vocabulary"), f"{key}.vocabulary", [PAD, UNKNOWN], "vocabulary")


def _image(state, key):
    for k in ("size", "crop"):
        value = state.get(k)
        if value is not None and not (
            isinstance(value, list) and len(value) == 2 and all(_is_int(v) and 1 <= v <= 1 << 16 for v in value)
        ):
            raise _Bad(f"{key}.{k}", f"[height, width] of 1 .. 65536 or null, got {str(value)[:60]}")
    _choice(state.get("mode"), MODES, f"{key}.mode")
    _numbers([state.get("scale")], f"{key}.scale")
    for k in ("mean", "std"):
        value = state.get(k)
        if value is not None:
            _numbers(value if isinstance(value, list) else [value], f"{key}.{k}", k == "std")


def _label(state, key):
    _vocabulary(state.get("classes"), f"{key}.classes", [], "classes")


def _date(state, key):
    _numbers([state.get("year_mean")], f"{key}.year_mean")
    _numbers([state.get("year_std")], f"{key}.year_std", True)
    try:
        datetime.datetime.fromisoformat(state.get("fill"))
    except (TypeError, ValueError):
        raise _Bad(f"{key}.fill", "must be an ISO date") from None
    if not isinstance(state.get("format"), (str, type(None))):
        raise _Bad(f"{key}.format", "must be a strftime format or null")
    for flag in ("year", "zone"):
        if not isinstance(state.get(flag), (bool, type(None))):
            raise _Bad(f"{key}.{flag}", "must be true, false or null")


_KIND = {"numeric": _numeric, "category": _category, "text": _text, "image": _image, "label": _label, "date": _date}


def _vocabulary(values, key, reserved, limit_name):
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise _Bad(key, "must be a list of strings")
    _within(len(values), limit_name, key)
    if values[: len(reserved)] != reserved:
        raise _Bad(key, f"must start with {', '.join(reserved)}")
    if not values[len(reserved) :] and not reserved:
        raise _Bad(key, "holds no class")
    if len(set(values)) != len(values):
        seen = set()
        twice = next(v for v in values if v in seen or seen.add(v))
        raise _Bad(key, f"holds {twice[:40]!r} twice")


def _numbers(values, key, positive=False):
    if not isinstance(values, list) or not values:
        raise _Bad(key, "must be a list of numbers, one per column")
    _within(len(values), "feed_columns", key)
    for i, v in enumerate(values):
        if not _is_number(v) or not math.isfinite(v):
            raise _Bad(f"{key}[{i}]", f"{v!r} is not a finite number")
        if positive and v <= 0:
            raise _Bad(f"{key}[{i}]", f"{v!r}: a divisor (std, max - min) must be above 0")
    return values


def _column(value, key):
    names = value if isinstance(value, list) else [value]
    if not names or not all(isinstance(n, str) for n in names):
        raise _Bad(key, "must be a column name or a list of them")
    _within(len(names), "feed_columns", key)


def _within(n, limit_name, key):
    most = limit(limit_name)
    if n > most:
        spec = LIMITS[limit_name]
        raise _Bad(key, f"{n:,} entries, above pe's limit of {most:,} ({spec.env} raises it)")


def _count(value, key, limit_name=None):
    if not _is_int(value) or value < 1:
        raise _Bad(key, f"must be an integer >= 1, got {str(value)[:40]}")
    if limit_name:
        _within(value, limit_name, key)


def _choice(value, choices, key):
    if value not in choices:
        raise _Bad(key, f"{str(value)[:40]!r} is not one of {', '.join(choices)}")
    return value


def _string(value, key):
    if not isinstance(value, str):
        raise _Bad(key, "must be a string")


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)
