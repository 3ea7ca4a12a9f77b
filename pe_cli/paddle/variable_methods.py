"""Paddle 2.x's tensor methods on a static Variable: ``x.reshape([2, 3])``, ``x.sum()``,
``x.astype("int64")``, ... Paddle 2.x makes every tensor function whose first argument is the tensor
a method of Variable (its ``tensor_method_func``); pe does the same with paddle.tensor's functions
that take ``x`` (or ``input``) first, leaving Variable's own attributes (``shape``, ``name``) alone.
Paddle 2.6's own static Variable methods come too (its base/framework.py and math_op_patch.py):
``T``, ``clone``, ``detach``, ``size``, ``element_size``, ``get_value``/``set_value``, ``cpu``,
``place``, and the operators ``&``, ``|``, ``^``, ``~`` (bitwise) and ``@`` (matmul)."""

import inspect
import warnings

import numpy as np

from ..base.dtypes import VarType
from ..executor.scope import Scope, global_scope
from ..framework import static_mode
from ..framework.variable import Variable
from .. import layers as L

# tensor functions whose first argument is not the tensor they would be a method of, or (eigh) that Paddle
# 2.6's Variable does not have as a method
NOT_METHODS = frozenset("array_write assign bernoulli eigh empty_like full_like ones_like zeros_like".split())


def _dim(self):
    """The number of dimensions (Paddle's ``dim``, ``ndimension``)."""
    return len(self.shape)


def _transposed(self):
    """``x.T``: x with its dims reversed (a 1-D x itself)."""
    if len(self.shape) == 1:
        return self
    return L.transpose(self, list(range(len(self.shape)))[::-1])


def _clone(self):
    """A copy of x in the program (an assign op); the gradient flows through it."""
    return L.assign(self)


def _detach(self):
    """A copy of x that stops the gradient (Paddle's share_data op): same dtype and persistable flag."""
    assert self.type in (VarType.SELECTED_ROWS, VarType.LOD_TENSOR), (
        "only support a variable with SELECTED_ROWS or LOD_TENSOR to be detached"
    )
    out = L.assign(self)
    out.persistable, out.stop_gradient = self.persistable, True
    return out


def _size(self):
    """The number of elements, an int64 Tensor computed when the program runs."""
    return L.size(self)


def _element_size(self):
    """Bytes per element of x's dtype."""
    return np.dtype("bool" if self.dtype == "bool" else str(self.dtype)).itemsize


def _scope_tensor(self, scope):
    if scope is not None and not isinstance(scope, Scope):
        raise TypeError(f"`scope` should be None or `paddle.static.Scope` type, but received {type(scope)}.")
    found = (scope or global_scope()).find_var(self.name)
    if found is None:
        raise ValueError(f"Can not find Variable '{self.name}' in the Scope.")
    return found.get_tensor()


def _get_value(self, scope=None):
    """x's tensor in ``scope`` (the global scope by default)."""
    return _scope_tensor(self, scope)


def _set_value(self, value, scope=None):
    """Writes ``value`` (an array of x's tensor's shape) into x's tensor in ``scope``."""
    if not (isinstance(value, np.ndarray) or hasattr(value, "__array__")):
        raise TypeError(f"`value` should be `numpy.ndarray` or `LoDTensor`, but received {type(value)}.")
    tensor = _scope_tensor(self, scope)
    value = np.asarray(value)
    old = np.asarray(tensor)
    if old.size and tuple(old.shape) != tuple(value.shape):
        raise ValueError(
            f"{self.name} expected a shape {list(old.shape)}, but the received shape is {list(value.shape)}"
        )
    tensor.set(value.astype(old.dtype) if old.size else value, None)


def _cpu(self):
    """x on the CPU: pe runs on the CPU, so a copy of x that stops the gradient (Paddle's memcpy)."""
    out = L.assign(self)
    out.stop_gradient = True
    return out


def _place(self):
    """None, with Paddle's warning: a static Variable has no place."""
    warnings.warn(
        "Variable do not have 'place' interface for static graph mode, try not to use it. None will be returned."
    )


def _item(self):
    """x itself (Paddle 2.6's static ``item``, for code shared with dygraph); more than 1-D: TypeError."""
    if len(self.shape) > 1:
        raise TypeError(f"Required input var should be 1-D Variable, but received {list(self.shape)}")
    return self


def _eager_only(name, instead):
    def method(self, *args, **kwargs):
        static_mode.refuse(f"Tensor.{name}()", instead)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"Eager only (Paddle 2.x's static Variable refuses it too): {instead}."
    return method


_FETCH = "fetch its value with exe.run(program, feed=..., fetch_list=[variable]), which returns numpy arrays"
# Paddle 2.6's static Variable refuses these (``fake_interface_only``); pe says in one line what to use.
_EAGER_ONLY = {
    "numpy": _FETCH,
    "tolist": _FETCH,
    "backward": "build the gradients with optimizer.minimize(loss) or paddle.static.append_backward(loss), "
    "then exe.run(...) computes them",
    "gradient": "fetch the gradient variable (the parameter's name + '@GRAD') after minimize/append_backward",
    "clear_gradient": "a static program computes its gradients afresh on every exe.run(...)",
    "clear_grad": "a static program computes its gradients afresh on every exe.run(...)",
}

_OWN = {
    "T": property(_transposed),
    "item": _item,
    "clone": _clone,
    "detach": _detach,
    "size": _size,
    "element_size": _element_size,
    "get_value": _get_value,
    "set_value": _set_value,
    "cpu": _cpu,
    "place": _place,
}
_OPERATORS = {
    "__and__": "bitwise_and",
    "__or__": "bitwise_or",
    "__xor__": "bitwise_xor",
    "__invert__": "bitwise_not",
    "__matmul__": "matmul",
}


def patch_variable(tensor_module):
    """Adds the methods to Variable (and so Parameter). Idempotent."""
    for name in [n for n in dir(tensor_module) if not n.startswith("_")]:
        fn = getattr(tensor_module, name, None)
        if name in NOT_METHODS or not inspect.isfunction(fn) or hasattr(Variable, name):
            continue
        params = list(inspect.signature(fn).parameters)
        if params and params[0] in ("x", "input"):
            setattr(Variable, name, fn)
    if not hasattr(Variable, "astype"):
        Variable.astype = tensor_module.cast
        Variable.dim = Variable.ndimension = _dim
        Variable.ndim = property(_dim)
    for name, method in _OWN.items():
        if name not in vars(Variable):
            setattr(Variable, name, method)
    for name, instead in _EAGER_ONLY.items():
        if name not in vars(Variable):
            setattr(Variable, name, _eager_only(name, instead))
    for dunder, fn_name in _OPERATORS.items():
        setattr(Variable, dunder, getattr(tensor_module, fn_name))
