"""``program.desc``: Fluid's ProgramDesc face of a Program, for scripts that ask for the number of
blocks or serialize it. ``serialize_to_string()`` gives pe's own form (JSON of every block's
variables and ops, bytes), not Fluid's protobuf: enough to store and compare programs."""
import json


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
                         "attrs": {k: v for k, v in op.attrs.items() if not k.startswith("_")}} for op in block.ops]})
        return json.dumps({"format": "pe-program", "blocks": blocks}, default=repr).encode()


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

    def append_op(self):
        """An empty op desc at the end of the block; its ``copy_from(op_desc)`` makes it a copy of that op
        (the variables it names are the caller's to create, as with Fluid's desc-level append)."""
        return _AppendedOpDesc(self._block)


class _AppendedOpDesc:
    def __init__(self, block):
        self._block = block

    def copy_from(self, op_desc):
        self._block.ops.append(op_desc._op.clone_into(self._block))
        self._block.program._bump()
