"""The sub-blocks of an inference model that pe saved as JSON (before it wrote Fluid's format): the
blocks control-flow ops own (a StaticRNN's step, a While's body), stored beside the global block's
ops in ``__model__`` and rebuilt with the same indices, so the ``sub_block`` attributes still name them."""

from ..framework.program import Block


def rebuild_blocks(program, blocks):
    """Recreates the stored sub-blocks in ``program`` (which has only its global block): first every
    block and variable, then the ops, so an op's shape inference finds the variables of nested blocks."""
    for data in blocks:
        if data["idx"] != len(program.blocks):
            raise ValueError(f"block {data['idx']} is stored out of order")
        block = Block(program, data["idx"], data["parent"])
        program.blocks.append(block)
        for v in data["vars"]:
            block.create_var(**v)
    for data in reversed(blocks):
        block = program.blocks[data["idx"]]
        for op in data["ops"]:
            block.append_op(op["type"], op["inputs"], op["outputs"], op["attrs"])
