"""Values that name a Python callable and its arguments: ``{type: Momentum, momentum: 0.9}``.

The callable's signature is the schema: unknown arguments are errors (with the closest valid name),
missing required ones are errors, and a value whose default is a bool, int, float or str must have
that type. Used for layers, optimizers, schedules, initializers, regularizers and clips.
"""

import inspect
from collections.abc import Mapping

from .errors import suggest
from .schema import describe

_EMPTY = inspect.Parameter.empty


def normalize(name, strip=()):
    """'GradientClipByGlobalNorm', 'global_norm' and 'GlobalNorm' all -> 'globalnorm'."""
    key = str(name).lower().replace("_", "")
    for s in strip:
        s = s.lower()
        if key.startswith(s) and key != s:
            key = key[len(s) :]
        if key.endswith(s) and key != s:
            key = key[: -len(s)]
    return key


class Namespace:
    """Callables users may name, found by exact name, or case- and underscore-insensitively. ``members``
    maps each name to its callable: a dict, or a mapping that loads a callable when it is looked up (the
    layer types, registries.py), kept as given so that an exact name loads its callable alone."""

    def __init__(self, what, members, strip=()):
        self.what = what
        self.members = members if isinstance(members, Mapping) and not isinstance(members, dict) else dict(members)
        self.strip = strip
        self._by_norm = None  # normalized name -> (name, callable), made on the first lookup not by exact name

    def names(self):
        """One name per callable (the shortest: 'SGD' rather than 'SGDOptimizer')."""
        best = {}
        for name, fn in self.members.items():
            if id(fn) not in best or len(name) < len(best[id(fn)]):
                best[id(fn)] = name
        return sorted(best.values())

    def lookup(self, name):
        if name in self.members:
            return name, self.members[name]
        if self._by_norm is None:
            self._by_norm = {}
            for member, fn in self.members.items():
                self._by_norm.setdefault(normalize(member, self.strip), (member, fn))
        return self._by_norm.get(normalize(name, self.strip), (None, None))


def parameters(fn):
    """(named parameters, accepts **kwargs) of a function or a class's __init__."""
    target = fn.__init__ if inspect.isclass(fn) else fn
    params = list(inspect.signature(target).parameters.values())
    if inspect.isclass(fn):
        params = params[1:]  # self
    named = {p.name: p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    return named, any(p.kind == p.VAR_KEYWORD for p in params)


def check_type_like_default(doc, path, value, default):
    """A value must look like its parameter's default: bool, int (or a list of ints), a number,
    a string. Parameters defaulting to None accept anything."""
    if default is _EMPTY or default is None or value is None:
        return
    if isinstance(default, bool):
        ok, want = isinstance(value, bool), "true or false"
    elif isinstance(default, int):
        ok = _int(value) or (isinstance(value, list) and value and all(_int(v) for v in value))
        want = "an integer (or a list of integers)"
    elif isinstance(default, float):
        ok = _num(value) or (isinstance(value, list) and value and all(_num(v) for v in value))
        want = "a number"
    elif isinstance(default, str):
        ok, want = isinstance(value, str), "a string"
    elif isinstance(default, (list, tuple)):
        ok, want = isinstance(value, list), "a list"
    else:
        return
    if not ok:
        raise doc.error(path, f"expected {want}, got {describe(value)}", f"the default is {default!r}")


def _int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_arguments(doc, path, fn, args, what, reserved=(), skip_required=()):
    """Checks ``args`` (name -> YAML value) against ``fn``'s signature. ``reserved`` names are
    supplied by pe and may not be given; ``skip_required`` are required but supplied elsewhere."""
    named, var_kw = parameters(fn)
    for key, value in args.items():
        if key in reserved:
            raise doc.error(path + (key,), f"'{key}' is set by pe for {what}", "remove it", key=True)
        if key not in named:
            if var_kw:
                continue
            valid = [n for n in named if n not in reserved]
            raise doc.error(path + (key,), f"unknown argument '{key}' of {what}", suggest(key, valid), key=True)
        check_type_like_default(doc, path + (key,), value, named[key].default)
    for name, p in named.items():
        if p.default is _EMPTY and name not in args and name not in reserved and name not in skip_required:
            raise doc.error(path, f"missing argument '{name}' of {what}", f"add '{name}: ...'")


def resolve(doc, path, value, namespace, allow_string=True):
    """``value`` is ``{type: Name, args...}`` (or just 'Name'): returns (name, callable, args)."""
    if isinstance(value, str) and allow_string:
        value = {"type": value}
        type_path = path
    else:
        type_path = path + ("type",)
    if not isinstance(value, dict):
        raise doc.error(
            path,
            f"expected {{type: ..., arguments}} for {namespace.what}, got {describe(value)}",
            f"e.g. {{type: {namespace.names()[0] if namespace.names() else '...'}}}",
        )
    if "type" not in value:
        raise doc.error(path, f"missing 'type' of {namespace.what}", suggest("", namespace.names()))
    kind = value["type"]
    if not isinstance(kind, str):
        raise doc.error(
            type_path, f"expected the name of {namespace.what}, got {describe(kind)}", suggest("", namespace.names())
        )
    name, fn = namespace.lookup(kind)
    if fn is None:
        raise doc.error(type_path, f"unknown {namespace.what} '{kind}'", suggest(kind, namespace.names()))
    args = {k: v for k, v in value.items() if k != "type"}
    return name, fn, args
