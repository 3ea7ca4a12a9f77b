"""``paddle.fluid.transpiler.details.vars_distributed``: the record of how variables are cut and
placed on parameter servers: VarStruct (a variable's properties), VarDistributed (an origin variable,
one slice of it, where it sits) and VarsDistributed (all of them, searchable)."""

from __future__ import print_function  # noqa: F401 -- Fluid's module has these names

from ...framework import Variable


class VarStruct:
    def __init__(self, name, shape, dtype, type, lod_level, persistable):  # noqa: A002 -- Fluid's names
        self.name, self.shape, self.dtype, self.type = name, shape, dtype, type
        self.lod_level, self.persistable = lod_level, persistable


def _struct(var):
    if isinstance(var, Variable):
        return VarStruct(var.name, var.shape, var.dtype, var.type, var.lod_level, var.persistable)
    return var


def _same(a, b):
    return (a.name, a.type, a.shape, a.dtype, a.lod_level, a.persistable) == (
        b.name,
        b.type,
        b.shape,
        b.dtype,
        b.lod_level,
        b.persistable,
    )


class VarDistributed:
    """An origin variable and one slice of it (``is_slice``, ``block_id``, ``offset``: values before
    it), its tag ``vtype`` (Param, Optimizer, RemotePrefetch) and the ``endpoint`` holding it."""

    def __init__(self, origin_var, slice_var, is_slice=None, block_id=None, offset=None, vtype=None, endpoint=None):
        self.origin, self.slice = _struct(origin_var), _struct(slice_var)
        self.is_slice = not self.equal(self.origin, self.slice) if is_slice is None else is_slice
        self.block_id = 0 if block_id is None else block_id
        self.offset = 0 if offset is None else offset
        self.vtype, self.endpoint = vtype, endpoint

    @staticmethod
    def equal(var1, var2):
        assert isinstance(var1, VarStruct) and isinstance(var2, VarStruct)
        return _same(var1, var2)

    def __str__(self):
        o, s = self.origin, self.slice
        origin = f"{o.name} : fluid.{o.type}.shape{o.shape}.astype({o.dtype})"
        sliced = (
            f"{s.name} : fluid.{s.type}.shape{s.shape}.astype({s.dtype}).slice({self.is_slice})"
            f".block({self.block_id}).offset({self.offset})"
        )
        return f"var owned: {self.vtype}, origin var: ( {origin} ), slice var: ( {sliced} ), endpoint: {self.endpoint} "


class VarsDistributed:
    def __init__(self):
        self.distributed_vars = []

    def add_distributed_var(
        self, origin_var, slice_var, is_slice=None, block_id=None, offset=None, vtype=None, endpoint=None
    ):
        self.distributed_vars.append(VarDistributed(origin_var, slice_var, is_slice, block_id, offset, vtype, endpoint))

    def get_distributed_var_by_slice(self, var_name):
        return next((v for v in self.distributed_vars if v.slice.name == var_name), None)

    @staticmethod
    def equal(var1, var2):
        return _same(var1, var2)

    def get_distributed_var_by_origin_and_ep(self, origin_var_name, endpoint):
        return next(
            (v for v in self.distributed_vars if v.origin.name == origin_var_name and v.endpoint == endpoint), None
        )

    def get_distributed_vars_by_vtypes(self, vtypes, groupby=False):
        """The records tagged one of ``vtypes``; with ``groupby``, {origin name: [records]}."""
        found = [v for v in self.distributed_vars if v.vtype in vtypes]
        if not groupby:
            return found
        groups = {}
        for v in found:
            groups.setdefault(v.origin.name, []).append(v)
        return groups

    def get_distributed_vars_by_ep(self, endpoint, vtype=None):
        return [v for v in self.distributed_vars if v.endpoint == endpoint and (not vtype or v.vtype == vtype)]

    def overview(self):
        return "\n".join(str(v) for v in self.distributed_vars)
