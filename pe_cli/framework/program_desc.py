"""``program.desc``: Fluid's ProgramDesc face of a Program, for scripts that ask for the number of
blocks or serialize it. ``serialize_to_string()`` gives pe's own form (JSON of every block's
variables and ops, bytes), not Fluid's protobuf: enough to store, compare and restore programs
(``parse_program``, behind ``Program.parse_from_string``)."""
import json

from ..base.dtypes import convert_dtype
from ..base.errors import ArgumentValueError


def _attr(value):
    """An attribute as JSON: a sub-block as ``{"block": idx}``; what JSON lacks as its repr."""
    if hasattr(value, "ops") and hasattr(value, "idx"):
        return {"block": value.idx}
    if isinstance(value, (list, tuple)):
        return [_attr(v) for v in value]
    return value


class ProgramDesc:
    def __init__(self, program):
        self._program = program

    def num_blocks(self):
        return len(self._program.blocks)

    def serialize_to_string(self):
        blocks = []
        for block in self._program.blocks:
            blocks.append({
                "idx": block.idx, "parent_idx": block.parent_idx,
                "vars": [{"name": v.name, "shape": None if v.shape is None else list(v.shape), "dtype": v.dtype,
                          "lod_level": v.lod_level, "persistable": bool(v.persistable)} for v in block.vars.values()],
                "ops": [{"type": op.type, "inputs": op.inputs, "outputs": op.outputs,
                         "attrs": {k: _attr(v) for k, v in op.attrs.items() if not k.startswith("_")}}
                        for op in block.ops]})
        return json.dumps({"format": "pe-program", "blocks": blocks}, default=repr).encode()


def parse_program(program, data):
    """Fills the empty ``program`` with the blocks, variables and ops ``data`` (what
    ``serialize_to_string`` gave) holds; a ValueError names what is wrong with ``data``."""
    try:
        text = json.loads(bytes(data).decode("utf-8"))
        blocks = text["blocks"] if text.get("format") == "pe-program" else None
    except (ValueError, TypeError, AttributeError, KeyError):
        blocks = None
    if blocks is None:
        raise ArgumentValueError("Program.parse_from_string: these bytes are not a program serialized by pe "
                                 "(program.desc.serialize_to_string()); a Fluid __model__ file loads with "
                                 "fluid.io.load_inference_model")
    for b in blocks[1:]:
        program._create_block(b["parent_idx"])
    program.current_block_idx = 0
    for b in blocks:
        block = program.block(b["idx"])
        for v in b["vars"]:
            block.create_var(name=v["name"], shape=v["shape"], dtype=v["dtype"], lod_level=v["lod_level"],
                             persistable=v["persistable"])
    for b in blocks:
        block = program.block(b["idx"])
        for op in b["ops"]:
            attrs = {k: _restored(program, v) for k, v in op["attrs"].items()}
            block.append_op(type=op["type"], inputs=op["inputs"], outputs=op["outputs"], attrs=attrs)
    return program


def _restored(program, value):
    if isinstance(value, dict) and set(value) == {"block"}:
        return program.block(value["block"])
    if isinstance(value, list):
        return [_restored(program, v) for v in value]
    return value
class BlockDesc:
    """``block.desc``: Fluid's BlockDesc face of a Block, for calls that hand it to an op desc."""

    def __init__(self, block):
        self._block = block

    @property
    def id(self):
        return self._block.idx

    @property
    def parent(self):
        return self._block.parent_idx

    def op_size(self):
        return len(self._block.ops)

    def var(self, name):
        """The desc of variable ``name`` (str or bytes), made (a LoDTensor, float32, shape unknown) where the
        block lacks it, as Fluid's ``BlockDesc.var``."""
        name = name.decode() if isinstance(name, bytes) else name
        if name not in self._block.vars:
            self._block.create_var(name=name)
        return VarDesc(self._block.vars[name])

    def find_var(self, name):
        """The desc of variable ``name`` (str or bytes), or None where the block lacks it."""
        name = name.decode() if isinstance(name, bytes) else name
        return VarDesc(self._block.vars[name]) if name in self._block.vars else None

    def has_var(self, name):
        return self.find_var(name) is not None

    def append_op(self):
        """An empty op desc at the end of the block; its ``copy_from(op_desc)`` makes it a copy of that op
        (the variables it names are the caller's to create, as with Fluid's desc-level append)."""
        return _AppendedOpDesc(self._block)


class VarDesc:
    """Fluid's VarDesc face of a Variable: its name, dtype and shape, read and set."""

    def __init__(self, var):
        self._var = var

    def name(self):
        return self._var.name

    def dtype(self):
        return self._var.dtype

    def set_dtype(self, dtype):
        self._var.dtype = convert_dtype(dtype)

    def shape(self):
        return list(self._var.shape or [])

    def set_shape(self, shape):
        self._var.shape = tuple(shape)


class _AppendedOpDesc:
    def __init__(self, block):
        self._block = block

    def copy_from(self, op_desc):
        self._block.ops.append(op_desc._op.clone_into(self._block))
        self._block.program._bump()
