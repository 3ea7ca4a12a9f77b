"""Name scopes: ``name_scope(prefix)`` groups the ops built inside under a path ('/outer/inner/',
their ``op_namescope`` attribute, as in Fluid). Variable names are unchanged."""

import contextlib


class _NameScope:
    """A node of the name-scope tree: a prefix entered again under one parent gets ``_1``, ``_2``..."""

    def __init__(self, name="", parent=None):
        self.name, self.parent, self.entered = name, parent, {}

    def child(self, prefix):
        n = self.entered.get(prefix, 0)
        self.entered[prefix] = n + 1
        return _NameScope(prefix if n == 0 else f"{prefix}_{n}", self)

    def path(self):
        """'/s1/s2/' (Fluid's ``op_namescope``); '/' at the root."""
        parts, node = [], self
        while node.parent is not None:
            parts.append(node.name)
            node = node.parent
        return "/" + "".join(p + "/" for p in reversed(parts))


_name_scope = _NameScope()


@contextlib.contextmanager
def name_scope(prefix=None):
    """Groups the ops built inside under ``prefix`` (their ``op_namescope`` attribute, '/outer/inner/',
    as in Fluid; a prefix entered again at the same level becomes prefix_1, ...). Variable names are
    unchanged."""
    global _name_scope
    outer = _name_scope
    _name_scope = outer.child(prefix or "")
    try:
        yield
    finally:
        _name_scope = outer


def current_name_scope():
    """The current name scope's path, '/s1/s2/' ('/' outside any)."""
    return _name_scope.path()
