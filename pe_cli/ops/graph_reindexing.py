"""graph_reindex (paddle.geometric.reindex_graph and reindex_heter_graph): the nodes X sampled neighbours for
and their Neighbors (Count[i] of them for X[i], per edge type one after the other) given ids from 0: Out_Nodes
X's nodes then the neighbours not among them, in order of first appearance; Reindex_Src each neighbour's id,
Reindex_Dst its node's. X and Neighbors int32 or int64 of one dtype, Count int32 (Paddle 2.6.2's kernel reads
it as int32); a Count that does not sum to Neighbors' length is refused (Paddle's kernel writes past its buffer
or leaves zeros)."""

from ..kernels.cpu import graph_reindexing as cpu
from ..shapes.graph_reindexing import graph_reindex_meta
from .define import Structured, fmt_shape, register
from .pointwise_math import QUANT


def _infer(ctx):
    for slot in ("X", "Neighbors", "Count", "HashTable_Value", "HashTable_Index"):
        if not ctx.has_input(slot):
            continue
        shape = ctx.shape(slot)
        if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
            ctx.fail(f"{slot} {fmt_shape(shape)} must be 1-D, or 2-D of one column")
    if ctx.dtype("X") not in ("int32", "int64") or ctx.dtype("Neighbors") != ctx.dtype("X"):
        ctx.fail(f"X is {ctx.dtype('X')} and Neighbors {ctx.dtype('Neighbors')}; both int32 or both int64")
    if ctx.dtype("Count") != "int32":
        ctx.fail(f"Count is {ctx.dtype('Count')}; it must be int32")
    for slot in ("Reindex_Src", "Reindex_Dst", "Out_Nodes"):
        ctx.set_output(slot, [-1], ctx.dtype("X"))


register(
    "graph_reindex",
    kernel_module="graph_reindexing",
    structured=Structured(meta=graph_reindex_meta, cpu=cpu.GRAPH_REINDEX),
    inputs=["X", "Neighbors", "Count", "HashTable_Value?", "HashTable_Index?"],
    outputs=["Reindex_Src", "Reindex_Dst", "Out_Nodes"],
    attrs=dict(QUANT),
    infer=_infer,
    lod="drop",
    doc="Out_Nodes = X's nodes then the new neighbours, in order; Reindex_Src / Reindex_Dst each edge's ids in it.",
)
