"""Paddle 2.x's tensor methods on a static Variable: ``x.reshape([2, 3])``, ``x.sum()``,
``x.astype("int64")``, ... Paddle 2.x makes every tensor function whose first argument is the tensor
a method of Variable (its ``tensor_method_func``); pe does the same with paddle.tensor's functions
that take ``x`` (or ``input``) first, leaving Variable's own attributes (``shape``, ``name``) alone."""
import inspect

from ..framework.variable import Variable

# tensor functions whose first argument is not the tensor they would be a method of
NOT_METHODS = frozenset("array_write assign bernoulli empty_like full_like ones_like zeros_like".split())


def _dim(self):
    """The number of dimensions (Paddle's ``dim``, ``ndimension``)."""
    return len(self.shape)


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
