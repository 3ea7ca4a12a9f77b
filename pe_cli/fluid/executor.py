"""``paddle.fluid.executor``: pe's Executor and scopes."""
import numpy as np

from ..executor import Executor, Scope, global_scope, scope_guard  # noqa: F401

__all__ = ["Executor", "global_scope", "scope_guard"]


def _fetch_var(name, scope=None, return_numpy=True):
    """The value of variable ``name`` in ``scope`` (the global scope by default), as Fluid's
    helper of the same name returns it: a numpy array, or the LoDTensor itself."""
    scope = scope or global_scope()
    var = scope.find_var(name)
    if var is None:
        raise ValueError(f"_fetch_var: no variable named '{name}' in the scope; run the program that "
                         f"makes it first, or make it persistable")
    tensor = var.get_tensor()
    return np.array(tensor) if return_numpy else tensor
