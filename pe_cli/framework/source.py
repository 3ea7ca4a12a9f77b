"""Where a graph node was built, so errors and graph dumps can point at the user's line.

The YAML compiler sets the location explicitly (``model.yaml:12 layers[3] fc1``); from Python the
first stack frame outside pe_cli is used (``train.py:40``).
"""

import contextlib
import contextvars
import os
import sys

_explicit = contextvars.ContextVar("pe_source", default=None)
_layer = contextvars.ContextVar("pe_layer", default=None)
_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SEE_THROUGH = set()  # the code of pe's wrappers that only call what they decorate (see_through)


def see_through(wrapper):
    """``wrapper`` (a decorator's function that calls the one it decorates) is not where the user's
    call entered pe: ``called_function`` names the function it wraps. Returns ``wrapper``."""
    _SEE_THROUGH.add(wrapper.__code__)
    return wrapper


@contextlib.contextmanager
def source_guard(location):
    token = _explicit.set(location)
    try:
        yield
    finally:
        _explicit.reset(token)


def current_source():
    explicit = _explicit.get()
    if explicit is not None:
        return explicit
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_PKG_DIR) and "importlib" not in path and not path.endswith("contextlib.py"):
            return f"{os.path.basename(path)}:{frame.f_lineno}"
        frame = frame.f_back
    return None


@contextlib.contextmanager
def layer_guard(name):
    """Ops appended inside belong to the layer ``name`` (``fc_0``); errors and dumps say so."""
    token = _layer.set(name)
    try:
        yield
    finally:
        _layer.reset(token)


def current_layer():
    return _layer.get()


@contextlib.contextmanager
def built_like(op):
    """Ops appended inside belong where ``op`` was built (its layer and source line): the gradient
    ops of a forward op, the update ops of a parameter. Nothing changes when ``op`` is None."""
    if op is None:
        yield
        return
    with layer_guard(op.layer), source_guard(op.source):
        yield


def _entry_frame(frame):
    """The outermost pe frame below the innermost frame outside pe_cli, walking out from ``frame``
    (importlib's, contextlib's and functools' frames count as pe's; a ``see_through`` wrapper's is never
    it); the outermost pe frame where no frame outside pe_cli is on the stack."""
    entry = None
    while frame is not None:
        path = frame.f_code.co_filename
        if path.startswith(_PKG_DIR):
            entry = entry if frame.f_code in _SEE_THROUGH else frame
        elif "importlib" not in path and not path.endswith(("contextlib.py", "functools.py")):
            return entry
        frame = frame.f_back
    return entry


def called_function():
    """The pe function or class the user's code called (``to_tensor``, ``Linear``) for messages (the
    outermost pe function where no user code is on the stack); None when there is none."""
    entry = _entry_frame(sys._getframe(1))
    if entry is None:
        return None
    name = entry.f_code.co_qualname
    for tail in (".__init__", ".__call__", ".forward", ".__new__"):
        if name.endswith(tail):
            return name[: -len(tail)]
    return name
