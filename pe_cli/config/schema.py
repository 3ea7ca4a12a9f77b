"""A small schema language for the two YAML documents, and the validator that walks it.

Every key either file accepts is declared here (model file: ``MODEL``, run config: ``RUN``), with
its type, default and one line of documentation. ``docs/CONFIG.md`` documents the same keys; a test
compares the two. Values whose keys depend on a chosen class or function (``optimizer`` arguments,
layer arguments) are ``Typed``: their ``type`` picks the callable and its signature is the schema.
"""

from dataclasses import dataclass, field

from .errors import ConfigError, collected, flatten, suggest
from .yamlfile import format_path

REQUIRED = object()


@dataclass
class Field:
    """A leaf value. ``type``: int, float, bool, str, path, any, list[int], list[str], or
    alternatives joined by '|' (``int|list[int]``). ``null`` in the type allows None."""

    type: str
    default: object = None
    doc: str = ""
    choices: tuple = ()
    min: float = None
    max: float = None  # a value above it cannot be meant (a seed of 2^64, 10^23 steps)


@dataclass
class Section:
    """A mapping with a fixed set of keys."""

    fields: dict
    doc: str = ""
    default: object = field(default_factory=dict)  # a missing section is validated as {}


@dataclass
class MapOf:
    """A mapping from names the user picks (feed names, columns) to values of one schema."""

    value: object
    doc: str = ""
    key_doc: str = "name"
    default: object = field(default_factory=dict)


@dataclass
class ListOf:
    item: object
    doc: str = ""
    default: object = field(default_factory=list)


@dataclass
class Custom:
    """A value checked by code elsewhere (layers, typed objects); ``keys`` are its documented keys."""

    doc: str
    keys: dict = field(default_factory=dict)  # documented sub-keys: name -> doc
    default: object = None


# -- checking one leaf --------------------------------------------------------------------------


def describe(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (int, float)):
        return f"{value!r} (a number)"
    if isinstance(value, str):  # a short excerpt: never echo a whole file or a huge value
        return f"'{value[:80]}{'...' if len(value) > 80 else ''}' (a string)"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"{value!r} ({type(value).__name__})"


def _is(value, kind):
    if kind == "null":
        return value is None
    if kind == "any":
        return True
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind in ("str", "path"):
        return isinstance(value, str)
    if kind.startswith("list[") and kind.endswith("]"):
        return isinstance(value, list) and all(_is(v, kind[5:-1]) for v in value)
    if kind == "map":
        return isinstance(value, dict)
    raise ValueError(f"schema: unknown type {kind!r}")


_NAMES = {
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "str": "a string",
    "path": "a file path",
    "null": "null",
    "any": "any value",
    "map": "a mapping",
    "list[int]": "a list of integers",
    "list[str]": "a list of names",
    "list[float]": "a list of numbers",
    "list[path]": "a list of file paths",
}


def type_name(kind):
    return " or ".join(_NAMES.get(k, k) for k in kind.split("|"))


def check_leaf(doc, path, value, spec):
    kinds = spec.type.split("|")
    if not any(_is(value, k) for k in kinds):
        _check_items(doc, path, value, kinds)
        example = f" (default {spec.default!r})" if spec.default not in (None, REQUIRED) else ""
        raise doc.error(
            path, f"expected {type_name(spec.type)}, got {describe(value)}", f"write {type_name(spec.type)}{example}"
        )
    for i, item in enumerate(value if isinstance(value, list) else [value]):
        if spec.choices and item is not None and item not in spec.choices:
            where = path + (i,) if isinstance(value, list) else path
            raise doc.error(
                where, f"'{item}' is not one of {', '.join(map(str, spec.choices))}", suggest(item, spec.choices)
            )
    if spec.min is not None and isinstance(value, (int, float)) and value < spec.min:
        raise doc.error(path, f"must be >= {spec.min}, got {value}", f"use a value >= {spec.min}")
    if spec.max is not None and isinstance(value, (int, float)) and value > spec.max:
        raise doc.error(path, f"must be <= {spec.max:,}, got {value:,}", f"use a value from {spec.min} to {spec.max:,}")
    return value


def _check_items(doc, path, value, kinds):
    """A list where a list of one item type is expected: the first item of another type, at its
    index (``data.missing: [1]`` is a number where a name goes: quote it)."""
    inner = [k[5:-1] for k in kinds if k.startswith("list[")]
    if not isinstance(value, list) or len(inner) != 1:
        return
    for i, item in enumerate(value):
        if not _is(item, inner[0]):
            quote = inner[0] in ("str", "path") and isinstance(item, (int, float)) and item is not None
            raise doc.error(
                path + (i,),
                f"expected {_NAMES[inner[0]]} (an item of {type_name('|'.join(kinds))}), got {describe(item)}",
                f"quote it: '{item}'" if quote else f"write {_NAMES[inner[0]]}",
            )


# -- walking a schema ---------------------------------------------------------------------------


def validate(doc, path, value, spec):
    """Checks ``value`` against ``spec``; returns it with defaults filled in. Custom values are
    returned as given (their owner checks them)."""
    if isinstance(spec, Field):
        return check_leaf(doc, path, value, spec)
    if isinstance(spec, Custom):
        return value
    if isinstance(spec, Section):
        return _validate_section(doc, path, value, spec)
    if isinstance(spec, MapOf):
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise doc.error(
                path,
                f"expected a mapping of {spec.key_doc} -> value, got {describe(value)}",
                "write it as 'name: value' lines",
            )
        return _each(value.items(), lambda k, v: validate(doc, path + (k,), v, spec.value))
    if isinstance(spec, ListOf):
        if value is None:
            value = []
        if not isinstance(value, list):
            raise doc.error(path, f"expected a list, got {describe(value)}", "write it as [a, b] or '- a' lines")
        return list(_each(enumerate(value), lambda i, v: validate(doc, path + (i,), v, spec.item)).values())
    raise TypeError(f"schema: unknown spec {spec!r}")


def _each(items, check):
    """{key: check(key, value)} of each (key, value) of ``items``; every mistake is reported, not
    only the first (config.errors.collected)."""
    out, errors = {}, []
    for key, item in items:
        try:
            out[key] = check(key, item)
        except ConfigError as e:
            errors += flatten(e)
    collected(errors)
    return out


def _validate_section(doc, path, value, spec):
    if value is None:
        if spec.default is None:  # an optional section (a data source): null leaves it out
            return None
        value = {}
    if not isinstance(value, dict):
        raise doc.error(
            path,
            f"expected a mapping of {', '.join(spec.fields)}, got {describe(value)}",
            "write it as 'key: value' lines indented under it",
        )
    errors = []
    for key in value:
        if key not in spec.fields:
            where = f"'{format_path(path)}'" if path else "the top level"
            errors.append(
                doc.error(path + (key,), f"unknown key '{key}' in {where}", suggest(key, spec.fields), key=True)
            )
    try:
        out = _each(
            [(k, v) for k, v in value.items() if k in spec.fields],
            lambda k, v: validate(doc, path + (k,), v, spec.fields[k]),
        )
    except ConfigError as e:
        errors += flatten(e)
        out = {}
    for key, sub in spec.fields.items():
        default = getattr(sub, "default", None)
        if key not in value and default is REQUIRED:
            errors.append(
                doc.error(
                    path, f"missing required key '{key}'", f"add '{key}:' ({sub.doc})" if sub.doc else f"add '{key}:'"
                )
            )
    collected(errors)
    for key, sub in spec.fields.items():
        if key in out:
            continue
        default = getattr(sub, "default", None)
        if default is None:
            out[key] = None
        elif isinstance(sub, (Section, MapOf, ListOf)):
            out[key] = validate(doc, path + (key,), _copy(default), sub)
        else:
            out[key] = _copy(default)
    return {key: out[key] for key in spec.fields if key in out}  # the schema's order


def _copy(value):
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def documented_keys(spec, prefix=""):
    """Every key path the schema accepts, as written in docs/CONFIG.md: ``data.train.format``,
    ``feeds.<name>.shape``, ``data.transforms.<feed>``."""
    out = []
    if isinstance(spec, Section):
        for key, sub in spec.fields.items():
            path = f"{prefix}.{key}" if prefix else key
            out.append(path)
            out += documented_keys(sub, path)
    elif isinstance(spec, MapOf):
        path = f"{prefix}.<{spec.key_doc}>"
        if not isinstance(spec.value, (Section, MapOf, Custom)):
            out.append(path)
        out += documented_keys(spec.value, path)
    elif isinstance(spec, ListOf):
        out += documented_keys(spec.item, prefix + "[]")
    elif isinstance(spec, Custom):
        out += [prefix + (k if k.startswith("[") else "." + k) for k in spec.keys]
    return out
