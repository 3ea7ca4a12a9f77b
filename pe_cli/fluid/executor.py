"""``paddle.fluid.executor``: pe's Executor and scopes."""

import numpy as np

from ..executor import Executor, Scope, global_scope, scope_guard  # noqa: F401
from ..framework.lod_tensor import LoDTensor, LoDTensorArray

__all__ = ["Executor", "global_scope", "scope_guard"]


def _fetch_var(name, scope=None, return_numpy=True):
    """The value of variable ``name`` in ``scope`` (the global scope by default), as Fluid's
    helper of the same name returns it: a numpy array, or the LoDTensor itself."""
    scope = scope or global_scope()
    var = scope.find_var(name)
    if var is None:
        raise ValueError(
            f"_fetch_var: no variable named '{name}' in the scope; run the program that "
            f"makes it first, or make it persistable"
        )
    tensor = var.get_tensor()
    return np.array(tensor) if return_numpy else tensor


def _as_lodtensor(data, place, dtype=None):
    """Fluid's helper: ``data`` (an array, or a Python number with its ``dtype``: shape [1]) as a
    LoDTensor. A list may hold sequences of several lengths, so it is refused (RuntimeError), and a
    number without a dtype fails an assertion, as in Fluid."""
    if isinstance(data, list):
        raise RuntimeError(
            "_as_lodtensor: a list may hold LoD information; make a LoDTensor of it "
            "(fluid.create_lod_tensor) and feed that"
        )
    if not isinstance(data, np.ndarray) and np.isscalar(data):
        assert dtype is not None, "_as_lodtensor: dtype should be given when casting a Python scalar to a tensor"
        data = np.array([data]).astype(dtype)
    array = np.asarray(data) if dtype is None else np.asarray(data, dtype=dtype)
    return LoDTensor(array)


def as_numpy(tensor):
    """A fetched LoDTensor (or a list or LoDTensorArray of them) as numpy arrays, as Fluid's helper:
    None for a tensor holding no value, and a RuntimeError for one holding a LoD (a numpy array
    would lose it; fetch it with return_numpy=False instead)."""
    if isinstance(tensor, (list, LoDTensorArray)):
        return [as_numpy(t) for t in tensor]
    if not isinstance(tensor, LoDTensor):
        raise TypeError(f"as_numpy: expects a LoDTensor or a list of them, got {type(tensor).__name__}")
    if tensor.lod():
        raise RuntimeError(
            "as_numpy: this tensor holds LoD information, which a numpy array cannot keep; "
            "fetch it with return_numpy=False and read its lod() and np.array() yourself"
        )
    return None if tensor._array is None else np.array(tensor)
