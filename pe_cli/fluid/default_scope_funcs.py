"""``paddle.fluid.default_scope_funcs``: a stack of scopes over the global scope, as Fluid's module:
``get_cur_scope()`` is the innermost, ``enter_local_scope()`` pushes a child of it,
``leave_local_scope()`` drops it again, ``var(name)`` / ``find_var(name)`` create or find a variable
there, and ``scoped_function(fn)`` runs ``fn`` in a fresh local scope."""

import threading

from ..executor.scope import global_scope

__all__ = ["get_cur_scope", "enter_local_scope", "leave_local_scope", "var", "find_var", "scoped_function"]

_local = threading.local()


def _stack():
    if not hasattr(_local, "stack"):
        _local.stack = [global_scope()]
    return _local.stack


def get_cur_scope():
    return _stack()[-1]


def enter_local_scope():
    _stack().append(get_cur_scope().new_scope())


def leave_local_scope():
    stack = _stack()
    if len(stack) == 1:
        raise RuntimeError("leave_local_scope: no local scope was entered")
    stack.pop()
    get_cur_scope().drop_kids()


def var(name):
    """The variable ``name`` in the current scope, created there if absent."""
    return get_cur_scope().var(name)


def find_var(name):
    """The variable ``name`` in the current scope or an enclosing one, or None."""
    return get_cur_scope().find_var(name)


def scoped_function(func):
    """Runs ``func()`` in a new local scope, left afterwards."""
    enter_local_scope()
    try:
        func()
    finally:
        leave_local_scope()
