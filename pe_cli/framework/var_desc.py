"""``var.desc``: Fluid's VarDesc face of a Variable, a view (its setters change the Variable; two
views of one variable are equal). Dtypes are pe's names, which equal ``VarDesc.VarType.FP32`` and
the rest; a Fluid VarType number given to ``set_dtype`` is taken as well. ``VarDesc(name)``, as
Fluid's ``core.VarDesc(name)``, is the desc of a new variable of no block (an IR graph's node holds
such copies: pe_cli/compiler/ir_graph.py)."""

from ..base.dtypes import VarType, convert_dtype
from .desc_view import DescView


class VarDesc(DescView):
    VarType = VarType
    # variable.py sets it: a Variable of no block named ``name`` (VarDesc imports no Variable)
    new_variable = None

    def __init__(self, viewed):
        if isinstance(viewed, (str, bytes)):
            viewed = self.new_variable(viewed.decode() if isinstance(viewed, bytes) else viewed)
        super().__init__(viewed)

    @property
    def _var(self):
        return self._viewed

    def _changed(self):
        if self._var.block is not None:
            self._var.block.program._bump()

    def name(self):
        return self._var.name

    def set_name(self, name):
        """Renames the variable in its block (the ops naming it are the caller's, as in Fluid)."""
        block, old = self._var.block, self._var.name
        if block is not None:
            block.vars = {(name if k == old else k): v for k, v in block.vars.items()}
        self._var.name = name
        self._changed()

    def type(self):
        return self._var.type

    def set_type(self, var_type):
        self._var._type = var_type
        self._changed()

    def shape(self):
        return [] if self._var.shape is None else [int(d) for d in self._var.shape]

    def set_shape(self, shape):
        self._var.shape = tuple(int(d) for d in shape)
        self._changed()

    def dtype(self):
        return self._var.dtype

    def set_dtype(self, dtype):
        self._var.dtype = convert_dtype(dtype)
        self._changed()

    def lod_level(self):
        return self._var.lod_level

    def set_lod_level(self, level):
        self._var.lod_level = int(level)
        self._changed()

    def persistable(self):
        return bool(self._var.persistable)

    def set_persistable(self, persistable):
        self._var.persistable = bool(persistable)
        self._changed()

    def need_check_feed(self):
        return bool(self._var.need_check_feed)

    def set_need_check_feed(self, need):
        self._var.need_check_feed = bool(need)

    # -- a READER's several values: one shape, dtype and LoD level each ------------------------
    def shapes(self):
        return [list(s) for s in self._var.reader_slots.get("shapes", [])]

    def set_shapes(self, shapes):
        self._var.reader_slots["shapes"] = [[int(d) for d in s] for s in shapes]

    def dtypes(self):
        return list(self._var.reader_slots.get("dtypes", []))

    def set_dtypes(self, dtypes):
        self._var.reader_slots["dtypes"] = [convert_dtype(d) for d in dtypes]

    def lod_levels(self):
        return list(self._var.reader_slots.get("lod_levels", []))

    def set_lod_levels(self, levels):
        self._var.reader_slots["lod_levels"] = [int(v) for v in levels]

    def __repr__(self):
        return f"<VarDesc {self._var.name}>"
