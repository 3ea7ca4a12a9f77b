"""Scopes hold the values of variables by name; a child scope sees its parent's variables.

``Scope.find_var(name).get_tensor()`` gives a LoDTensor usable with ``numpy.array(...)``.
"""

import contextlib

from ..base.errors import EnforceNotMet, PeError
from ..framework.lod_tensor import LoDTensor
from .selected_rows_var import SelectedRowsVar
from .tensor_array_var import TensorArrayVar


class ScopeVariable:
    """A named slot in a scope; holds one LoDTensor, or a Python int or float (Fluid's
    ``set_int``/``set_float``, which scripts use as counters)."""

    __slots__ = ("name", "tensor", "_scalar", "_list", "_sparse", "_tensor_array")

    def __init__(self, name):
        self.name = name
        self.tensor = LoDTensor()
        self._scalar = None
        self._list = None
        self._sparse = None
        self._tensor_array = None

    def get_fetch_list(self):
        """The list of LoDTensors this variable holds as Fluid's ``feed``/``fetch`` holders do."""
        if self._list is None:
            self._list = []
        return self._list

    def get_tensor(self):
        return self.tensor

    def get_selected_rows(self):
        """Fluid's SelectedRows face of this variable (pe_cli/executor/selected_rows_var.py)."""
        if self._sparse is None:
            self._sparse = SelectedRowsVar(self)
        return self._sparse

    def get_lod_tensor_array(self):
        """Fluid's LoDTensorArray face of this variable (pe_cli/executor/tensor_array_var.py)."""
        if self._tensor_array is None:
            self._tensor_array = TensorArrayVar(self)
        return self._tensor_array

    def get_lod_rank_table(self):
        """The rank table a lod_rank_table op wrote here (its ``items()``: (index, length), longest first)."""
        if not hasattr(self.tensor._array, "items"):
            raise PeError(f"scope variable '{self.name}' holds no rank table; run the lod_rank_table op first")
        return self.tensor._array

    def set_scope(self, scope):
        """Fluid's: this STEP_SCOPES variable holds the one scope ``scope`` (as Paddle's tests give
        run_program's OutScope one; pe's run_program writes the scope it ran in over it)."""
        self.tensor._array = [scope]

    def set_int(self, value):
        self._scalar = int(value)

    def get_int(self):
        if not self.is_int():
            raise PeError(f"scope variable '{self.name}' holds no int; set_int() it first")
        return self._scalar

    def is_int(self):
        return isinstance(self._scalar, int)

    def set_float(self, value):
        self._scalar = float(value)

    def get_float(self):
        if not self.is_float():
            raise PeError(f"scope variable '{self.name}' holds no float; set_float() it first")
        return self._scalar

    def is_float(self):
        return isinstance(self._scalar, float)

    def is_initialized(self):
        return self.tensor._array is not None


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.vars = {}
        self.kids = []
        self._pooled = parent is None  # a root scope is in Fluid's scope pool until _remove_from_pool

    def var(self, name):
        """The variable named ``name`` in this scope, created if it does not exist here."""
        v = self.vars.get(name)
        if v is None:
            v = self.vars[name] = ScopeVariable(name)
        return v

    def find_var(self, name):
        scope = self
        while scope is not None:
            v = scope.vars.get(name)
            if v is not None:
                return v
            scope = scope.parent
        return None

    def new_scope(self):
        kid = Scope(self)
        self.kids.append(kid)
        return kid

    def drop_kids(self):
        self.kids = []

    def _remove_from_pool(self):
        """Fluid's delete of a scope made by ``core.Scope()``: its variables and kid scopes go; a
        second delete (or one of a kid scope, never in the pool) is an EnforceNotMet."""
        if not self._pooled:
            raise EnforceNotMet("Deleting a nonexistent scope is not allowed")
        self._pooled = False
        self.vars, self.kids = {}, []

    def local_var_names(self):
        return list(self.vars)

    def erase(self, names):
        for n in names:
            self.vars.pop(n, None)

    # Plain arrays in and out. An array handed out without a copy is *lent* (LoDTensor._lent): no run
    # writes it in place until the variable holds a new array of pe's own (pe_cli/executor/donation.py).
    def get_array(self, name):
        """The variable's array itself (None where none), lent to the caller, who may keep it."""
        v = self.find_var(name)
        if v is None:
            return None
        v.tensor._lent = True
        return v.tensor._array

    def held_array(self, name):
        """The variable's array for pe's executors, which neither keep it past a run nor hand it out
        uncopied: it lends nothing."""
        v = self.find_var(name)
        return None if v is None else v.tensor._array

    def set_array(self, name, array, lod=None, lent=True):
        """Makes ``array`` the variable's value. ``lent``: the caller (or another name) may still hold
        it, so no run writes it in place; False only for an array a run made or copied and no one else
        holds (the executors' write-backs)."""
        t = self.var(name).tensor
        t._lent = lent or (t._lent and t._array is array)
        t._array = array
        if lod is not None:
            t._lod = lod


_global_scope = Scope()


def global_scope():
    return _global_scope


def _switch_scope(scope):
    global _global_scope
    old, _global_scope = _global_scope, scope
    return old


@contextlib.contextmanager
def scope_guard(scope):
    old = _switch_scope(scope)
    try:
        yield
    finally:
        _switch_scope(old)
