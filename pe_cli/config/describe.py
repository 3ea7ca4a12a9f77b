"""``pe keys``: every key of both documents, from the same schema the loader validates with."""

from .keys import MODEL, RUN
from .schema import REQUIRED, Custom, Field, ListOf, MapOf, Section, type_name


def _rows(spec, prefix=""):
    if isinstance(spec, Section):
        for key, sub in spec.fields.items():
            path = f"{prefix}.{key}" if prefix else key
            yield path, sub
            yield from _rows(sub, path)
    elif isinstance(spec, MapOf):
        path = f"{prefix}.<{spec.key_doc}>"
        if not isinstance(spec.value, (Section, MapOf, Custom)):
            yield path, spec.value if isinstance(spec.value, Field) else spec.value.doc
        yield from _rows(spec.value, path)
    elif isinstance(spec, ListOf):
        yield from _rows(spec.item, prefix + "[]")
    elif isinstance(spec, Custom):
        for key, doc in spec.keys.items():
            yield prefix + (key if key.startswith("[") else "." + key), doc


def _line(path, spec):
    if isinstance(spec, str):
        return f"  {path}\n      {spec}"
    if isinstance(spec, Field):
        kind = type_name(spec.type)
        if spec.default is REQUIRED:
            default = "required"
        else:
            default = f"default {spec.default!r}" if spec.default not in (None, "", [], {}) else "optional"
        choices = f"; one of {', '.join(map(str, spec.choices))}" if spec.choices else ""
        return f"  {path}  ({kind}, {default}{choices})\n      {spec.doc}"
    return f"  {path}\n      {getattr(spec, 'doc', '')}"


def describe_keys(which="all"):
    parts = []
    if which in ("model", "all"):
        parts.append("Model file (models/*.yaml):")
        parts += [_line(p, s) for p, s in _rows(MODEL)]
    if which in ("run", "all"):
        if parts:
            parts.append("")
        parts.append("Run config (configs/*.yaml):")
        parts += [_line(p, s) for p, s in _rows(RUN)]
    return "\n".join(parts) + "\n"
