"""The Python functions ``py_func`` ops call (Fluid's PyFuncRegistry). The layer registers a function
and the op holds its index (``forward_callable_id``, ``backward_callable_id``); the kernels of every
device look it up here. A function lives as long as the process, so a program with py_func runs only
in the process that built it: its Python code is not part of the saved model."""

from ..base.errors import PeError

_CALLABLES = []


def register(fn):
    """The id of ``fn`` in this process's table."""
    _CALLABLES.append(fn)
    return len(_CALLABLES) - 1


def get(callable_id):
    if not 0 <= callable_id < len(_CALLABLES):
        raise PeError(
            f"py_func: function #{callable_id} is not registered in this process: a program with "
            f"py_func runs only where it was built (its Python functions are not saved with it)"
        )
    return _CALLABLES[callable_id]
