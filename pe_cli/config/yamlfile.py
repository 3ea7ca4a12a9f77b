"""Reading YAML with safe semantics while keeping where every key and value came from.

PyYAML's SafeLoader composes the file into nodes (which carry line and column); we walk the nodes
ourselves and build plain dicts, lists and scalars. Scalars are constructed by SafeLoader itself,
so values mean exactly what ``yaml.safe_load`` would make of them. Nothing else is constructed: a
tag outside the safe set (``!!python/object``, ``!custom``) is an error, never an object.

Positions are kept beside the data, keyed by path tuples: ``("layers", 3, "fc1", "act")``.
"""

import math
import os
import re
from dataclasses import dataclass, field

import yaml

from ..base.limits import file_kind
from ..base.output_rule import note_read
from .errors import ConfigError, suggest

_SAFE_TAGS = {
    "tag:yaml.org,2002:" + t for t in ("null", "bool", "int", "float", "str", "seq", "map", "binary", "timestamp")
}
_MERGE_TAG = "tag:yaml.org,2002:merge"


@dataclass(frozen=True)
class Mark:
    file: str
    line: int  # 1-based
    col: int  # 1-based

    def __str__(self):
        return f"{self.file}:{self.line}:{self.col}"


def format_path(path):
    """("layers", 3, "fc1", "act") -> "layers[3].fc1.act" """
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = str(part)
            out += ("." if out else "") + (text if len(text) <= 40 else text[:40] + "...")
    return out


def display_path(path):
    """A file name as users should read it: relative to the working directory when inside it."""
    try:
        rel = os.path.relpath(path)
        return path if rel.startswith("..") else rel
    except ValueError:
        return path


@dataclass
class Doc:
    """A loaded YAML document: ``data`` plus the position of every value and every mapping key."""

    data: object
    file: str
    marks: dict = field(default_factory=dict)  # path -> Mark of the value
    key_marks: dict = field(default_factory=dict)  # path -> Mark of the key naming it

    def mark(self, path, key=False):
        """The best position for ``path``: its key (key=True) or value, else its nearest ancestor."""
        path = tuple(path)
        while True:
            if key and path in self.key_marks:
                return self.key_marks[path]
            if path in self.marks:
                return self.marks[path]
            if not path:
                return Mark(self.file, 1, 1)
            path = path[:-1]

    def error(self, path, message, hint=None, key=False):
        return ConfigError(message, self.mark(path, key), format_path(path) or None, hint)

    def adopt(self, other, prefix_from=(), prefix_to=()):
        """Copies the positions of ``other`` under ``prefix_from`` to our ``prefix_to``."""
        n = len(prefix_from)
        for src, dst in ((other.marks, self.marks), (other.key_marks, self.key_marks)):
            for path, mark in src.items():
                if path[:n] == tuple(prefix_from):
                    dst[tuple(prefix_to) + path[n:]] = mark


# Bounds on what a config may make pe read and build: far above any real config, far below what
# would exhaust memory or time (a FIFO, /dev/zero, an alias bomb, a 100 MB scalar).
MAX_FILE_BYTES = 1 << 20  # one YAML file
MAX_NODES = 100_000  # values a file expands to, aliases counted each time they are used
MAX_DEPTH = 64  # nesting of maps and lists
MAX_SCALAR_CHARS = 10_000  # one string


def load_yaml(path, what="file"):
    """Loads ``path`` as one YAML document with positions; raises ConfigError on any problem."""
    shown = display_path(path)
    note_read(path, what)  # an input of the command: no output may replace it
    if file_kind(path) == "a symlink loop":
        raise ConfigError(
            f"{shown} is a symlink loop (its links lead back to themselves), not a {what}",
            None,
            None,
            "point the link at the .yaml file (ls -l shows where it leads)",
        )
    if not os.path.exists(path):
        raise ConfigError(f"no such {what}: {shown}", None, None, missing_hint(path, what))
    if os.path.isdir(path):
        raise ConfigError(f"{shown} is a directory, not a YAML {what}", None, None, "give the path of a .yaml file")
    if not path.endswith((".yaml", ".yml")):
        raise ConfigError(
            f"{shown} is not a YAML file (.yaml or .yml), so pe does not read it as a {what}",
            None,
            None,
            f"give the path of the {what} (a .yaml file)",
        )
    if file_kind(path) is not None:
        raise ConfigError(
            f"{shown} is {file_kind(path)}, not a regular file, so pe does not read it",
            None,
            None,
            "give the path of a .yaml file",
        )
    if os.path.getsize(path) > MAX_FILE_BYTES:
        raise ConfigError(
            f"{shown} is {os.path.getsize(path):,} bytes; a YAML {what} may have at most {MAX_FILE_BYTES:,}",
            None,
            None,
            "is this the right file? configs are small",
        )
    try:
        with open(path, "rb") as f:
            text = f.read(MAX_FILE_BYTES + 1).decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ConfigError(
            f"{shown}: not UTF-8 text ({e.reason} at byte {e.start})", None, None, "save the file as UTF-8"
        ) from None
    return parse_yaml(text, shown, what)


class _Loader(yaml.SafeLoader):
    """SafeLoader reading numbers as YAML 1.2 does: ``1e-3``, ``5E-4`` and ``1e6`` are floats (YAML
    1.1 wants a dot and a signed exponent, so ``learning_rate: 1e-3`` was the string '1e-3')."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."),
)


def parse_yaml(text, shown, what="file"):
    try:
        loader = _Loader(text)  # refuses control characters at once (yaml.reader.ReaderError)
    except yaml.reader.ReaderError as e:
        raise _control_character(e, text, shown) from None
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as e:
        raise _syntax_error(e, shown) from None
    except RecursionError:
        raise ConfigError(
            f"nesting deeper than {MAX_DEPTH} levels", Mark(shown, 1, 1), None, "flatten the structure"
        ) from None
    except yaml.YAMLError as e:
        raise ConfigError(f"YAML error: {e}", Mark(shown, 1, 1), None, "fix the YAML syntax") from None
    finally:
        loader.dispose()
    doc = Doc(None, shown)
    if node is None:
        raise ConfigError(
            f"the {what} is empty", Mark(shown, 1, 1), None, "see docs/CONFIG.md for what it must contain"
        )
    doc.data = _Walker(loader, doc).walk(node, ())
    return doc


def _control_character(e, text, shown):
    before = text[: e.position] if isinstance(e.position, int) else ""
    where = Mark(shown, before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1)
    code = e.character if isinstance(e.character, int) else ord(e.character[:1] or "\0")
    return ConfigError(
        f"YAML does not allow the character U+{code:04X} (a control or non-character)",
        where,
        None,
        "remove it (tabs, newlines and printable text are fine)",
    )


def _syntax_error(e, shown):
    mark = e.problem_mark or e.context_mark
    where = Mark(shown, mark.line + 1, mark.column + 1) if mark else Mark(shown, 1, 1)
    problem = e.problem or "YAML syntax error"
    context = f" ({e.context})" if e.context else ""
    hint = "fix the YAML syntax: check indentation, a missing ':' or space after it, unclosed quotes or brackets"
    if "found character '\\t'" in problem or "\t" in problem:
        hint = "YAML does not allow tabs for indentation; use spaces"
    return ConfigError(f"YAML syntax error: {problem}{context}", where, None, hint)


_KIND_KEYS = {
    "run config": re.compile(r"^model\s*:", re.M),
    "model file": re.compile(r"^(layers|feeds|include)\s*:", re.M),
}


def missing_hint(path, what="file"):
    """'did you mean' among the YAML files beside ``path`` — only files of the same kind (a run
    config is never offered for a missing model file, nor the other way round)."""
    directory = os.path.dirname(path) or "."
    if os.path.isdir(directory):
        names = [n for n in sorted(os.listdir(directory))[:200] if n.endswith((".yaml", ".yml"))]
        names = [n for n in names if _is_kind(os.path.join(directory, n), what)]
        if names:
            return suggest(os.path.basename(path), names)
    return "check the path"


def _is_kind(path, what):
    pattern = _KIND_KEYS.get(what)
    if pattern is None:
        return True
    try:
        if file_kind(path) is not None:
            return False
        with open(path, "rb") as f:
            return bool(pattern.search(f.read(64 << 10).decode("utf-8", "replace")))
    except OSError:
        return False


class _Walker:
    def __init__(self, loader, doc):
        self.loader = loader
        self.doc = doc
        self.active = set()  # node ids on the current path: a recursive alias would loop forever
        self.nodes = 0  # values built so far, aliases counted at every use (alias bombs)

    def mark(self, node):
        return Mark(self.doc.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def walk(self, node, path):
        self.doc.marks[path] = self.mark(node)
        if node.tag not in _SAFE_TAGS and node.tag != _MERGE_TAG:
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            raise ConfigError(
                f"the tag {tag} is not allowed",
                self.mark(node),
                format_path(path) or None,
                "pe reads YAML with safe semantics (maps, lists, strings, numbers, booleans, null): remove the tag",
            )
        if id(node) in self.active:
            raise ConfigError(
                "a YAML alias refers to itself",
                self.mark(node),
                format_path(path) or None,
                "remove the recursive anchor/alias",
            )
        self._count(node, path)
        if isinstance(node, yaml.ScalarNode):
            value = self.loader.construct_object(node)
            if isinstance(value, float) and not math.isfinite(value):
                raise ConfigError(
                    f"{node.value} is not a finite number",
                    self.mark(node),
                    format_path(path) or None,
                    "pe takes no NaN or Inf from a config: give a finite value",
                )
            return value
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                return [self.walk(child, path + (i,)) for i, child in enumerate(node.value)]
            return self.walk_mapping(node, path)
        finally:
            self.active.discard(id(node))

    def _count(self, node, path):
        self.nodes += 1
        where = (format_path(path[:6]) + ("..." if len(path) > 6 else "")) or None
        if self.nodes > MAX_NODES:
            raise ConfigError(
                f"the file expands to more than {MAX_NODES:,} values (aliases count at each use)",
                self.mark(node),
                where,
                "an alias bomb? write the values out, or use fewer aliases",
            )
        if len(path) > MAX_DEPTH:
            raise ConfigError(
                f"nesting deeper than {MAX_DEPTH} levels", self.mark(node), where, "flatten the structure"
            )
        if isinstance(node, yaml.ScalarNode) and len(node.value) > MAX_SCALAR_CHARS:
            raise ConfigError(
                f"a value of {len(node.value):,} characters (at most {MAX_SCALAR_CHARS:,})",
                self.mark(node),
                where,
                "is this the right value?",
            )

    def walk_mapping(self, node, path):
        out = {}
        merged = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE_TAG:
                # '<<: *base' merges a mapping (or a list of them); explicit keys win.
                sources = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                for src in sources:
                    value = self.walk(src, path)
                    if not isinstance(value, dict):
                        raise ConfigError(
                            "'<<' must merge a mapping",
                            self.mark(src),
                            format_path(path) or None,
                            "point the alias at a mapping",
                        )
                    for k, v in value.items():
                        merged.setdefault(k, v)
                continue
            if not isinstance(key_node, yaml.ScalarNode):
                raise ConfigError(
                    "a mapping key must be a plain name",
                    self.mark(key_node),
                    format_path(path) or None,
                    "use a string key",
                )
            key = self.walk(key_node, path + ("<key>",))
            self.doc.marks.pop(path + ("<key>",), None)
            if not isinstance(key, str):
                if key is None or isinstance(key, bool):
                    raise ConfigError(
                        f"the key {key_node.value!r} is read as {key!r}, not a name",
                        self.mark(key_node),
                        format_path(path) or None,
                        f'quote it: "{key_node.value}"',
                    )
                key = str(key)
            if key in out:
                raise ConfigError(
                    f"duplicate key '{key}'",
                    self.mark(key_node),
                    format_path(path) or None,
                    f"'{key}' is already given at line {self.doc.key_marks[path + (key,)].line}; keep one",
                )
            self.doc.key_marks[path + (key,)] = self.mark(key_node)
            out[key] = self.walk(value_node, path + (key,))
        for k, v in merged.items():
            out.setdefault(k, v)
        return out
