"""``program.desc`` and ``block.desc``: Fluid's ProgramDesc and BlockDesc faces of a Program and a
Block. They are views: what Paddle's tests build at desc level (``block.var(b"x")``,
``block.append_op()`` then ``set_type``/``set_input``...) is built in the Program itself, and two
views of one block are equal. ``serialize_to_string()`` gives Fluid's ProgramDesc bytes (protobuf, as
``fluid.save``'s ``.pdmodel``: pe_cli/framework/fluid_model_write.py), which ``Program.parse_from_string``
(``parse_program``) reads back, as it reads Fluid's own; pe's earlier form of those bytes (JSON of every
block's variables and ops) still reads."""

import json

from ..base.errors import ArgumentValueError, PeError
from ..base.fluid_proto import looks_like_program_desc, parse_program_desc
from .desc_view import DescView
from .fluid_model_read import read_program_desc
from .fluid_model_write import whole_program_desc
from .operator import Operator


def block_attr(program, value):
    """An op attribute of ``program`` as the op keeps it: Fluid's block attributes (``sub_block=block``, or
    its desc) as the block's index; a block of another program stays the Block (run_program's
    ``global_block`` as Fluid's dygraph gives it: a block of the program dygraph-to-static built)."""
    block = value._block if isinstance(value, BlockDesc) else value
    if not (hasattr(block, "ops") and hasattr(block, "idx") and hasattr(block, "program")):
        return value
    return block.idx if block.program is program else block


class ProgramDesc(DescView):
    @property
    def _program(self):
        return self._viewed

    def num_blocks(self):
        return len(self._program.blocks)

    def block(self, idx):
        return BlockDesc(self._program.block(idx))

    def append_block(self, parent):
        """A new block whose parent is the block ``parent`` (a BlockDesc) stands for; the
        program's current block stays what it was."""
        program = self._program
        current = program.current_block_idx
        block = program._create_block(parent_idx=parent.id)
        program.current_block_idx = current
        return block.desc

    def flush(self):
        """Nothing to do: the views write through to the Program."""

    def _set_version(self, version=0):
        self._program._desc_version = int(version)

    def _version(self):
        return getattr(self._program, "_desc_version", 0)

    def get_feed_target_names(self):
        return [op.output("Out")[0] for op in self._program.global_block().ops if op.type == "feed"]

    def get_fetch_target_names(self):
        return [op.input("X")[0] for op in self._program.global_block().ops if op.type == "fetch"]

    def serialize_to_string(self):
        """The program as Fluid's ProgramDesc bytes (every block, variable and op, feed and fetch ops included)."""
        return whole_program_desc(self._program, "program.desc.serialize_to_string()")


def parse_program(program, data):
    """Fills the empty ``program`` with the blocks, variables and ops ``data`` holds: Fluid's ProgramDesc
    bytes (``serialize_to_string``'s, Fluid's ``__model__`` or ``.pdmodel``) or pe's earlier JSON of them; a
    ValueError names what is wrong with ``data``."""
    data = bytes(data)
    where = "Program.parse_from_string"
    if looks_like_program_desc(data):
        try:
            desc = parse_program_desc(data, where)
        except PeError as e:
            raise ArgumentValueError(f"{e}: these bytes are not a program (Fluid's ProgramDesc)") from None
        read_program_desc(program, desc, where, loaded=False)
        return program
    try:
        text = json.loads(data.decode("utf-8"))
        blocks = text["blocks"] if text.get("format") == "pe-program" else None
    except (ValueError, TypeError, AttributeError, KeyError):
        blocks = None
    if blocks is None:
        raise ArgumentValueError(
            f"{where}: these bytes are not a program (Fluid's ProgramDesc, as "
            f"program.desc.serialize_to_string() or a __model__ file holds)"
        )
    return _from_json(program, blocks)


def _from_json(program, blocks):
    """pe's earlier serialization (JSON: every block's variables and ops)."""
    for b in blocks[1:]:
        program._create_block(b["parent_idx"])
    program.current_block_idx = 0
    for b in blocks:
        block = program.block(b["idx"])
        for v in b["vars"]:
            block.create_var(
                name=v["name"],
                shape=v["shape"],
                dtype=v["dtype"],
                lod_level=v["lod_level"],
                persistable=v["persistable"],
            )
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


class BlockDesc(DescView):
    """``block.desc``: names are str or bytes (Fluid's tests pass ``six.b("x")``)."""

    @property
    def _block(self):
        return self._viewed

    @property
    def id(self):
        return self._block.idx

    @property
    def parent(self):
        return self._block.parent_idx

    def get_forward_block_idx(self):
        return getattr(self._block, "forward_block_idx", -1)

    def _set_forward_block_idx(self, idx):
        self._block.forward_block_idx = int(idx)

    # -- variables -----------------------------------------------------------------------------
    def var(self, name):
        """The variable ``name`` of this block, made (a float32 LoDTensor of no shape yet) if it
        has none of that name."""
        name = _name(name)
        block = self._block
        if name not in block.vars:
            block.create_var(name=name)
            block.program._bump()
        return block.vars[name].desc

    def find_var(self, name):
        var = self._block.vars.get(_name(name))
        return None if var is None else var.desc

    def find_var_recursive(self, name):
        var = self._block._find_var_recursive(_name(name))
        return None if var is None else var.desc

    def has_var(self, name):
        return _name(name) in self._block.vars

    def has_var_recursive(self, name):
        return self._block.has_var_recursive(_name(name))

    def all_vars(self):
        return [v.desc for v in self._block.vars.values()]

    def _remove_var(self, name):
        self._block._remove_var(_name(name))

    def _rename_var(self, old, new):
        """Renames variable ``old`` to ``new`` in this block and in its ops' slots."""
        old, new = _name(old), _name(new)
        self._block.vars[old].desc.set_name(new)
        for op in self._block.ops:
            for slots in (op.inputs, op.outputs):
                for names in slots.values():
                    names[:] = [new if n == old else n for n in names]
        return self._block.vars[new].desc

    # -- ops -----------------------------------------------------------------------------------
    def op_size(self):
        return len(self._block.ops)

    def op(self, idx):
        return self._block.ops[idx].desc

    def append_op(self):
        """A new op at the end of the block, of no type yet: set it with ``set_type``,
        ``set_input``, ``_set_attr``... or ``copy_from(op_desc)``."""
        return self._insert_op(len(self._block.ops))

    def _prepend_op(self):
        return self._insert_op(0)

    def _insert_op(self, index):
        op = Operator(self._block, None, {}, {}, {})
        self._block.ops.insert(index, op)
        self._block.program._bump()
        return op.desc

    def _remove_op(self, start, end):
        """Removes the ops at indices [start, end)."""
        del self._block.ops[start:end]
        self._block.program._bump()


def _name(name):
    return name.decode() if isinstance(name, bytes) else str(name)
