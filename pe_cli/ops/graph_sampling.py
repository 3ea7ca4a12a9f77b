"""Graph sampling: weighted_sample_neighbors and graph_sample_neighbors (Paddle 2.x's paddle.geometric's
weighted_sample_neighbors and sample_neighbors), neighbours of nodes of a graph in CSC form drawn at random by
edge weight, or uniformly.

The graph: ``colptr`` [N + 1] offsets into ``row`` [E], the in-neighbours of node n being
row[colptr[n]:colptr[n + 1]] with weights ``edge_weight`` [E]. The outputs' sizes depend on the
graph: their shapes are [-1] until the op runs."""

from ..kernels.cpu import graph_sampling as cpu_graph_sampling
from ..shapes.graph_sampling import graph_khop_sampler_meta, graph_sample_neighbors_meta, weighted_sample_neighbors_meta
from .define import Attr, Structured, fmt_shape, is_int, register
from .pointwise_math import QUANT


def _infer_weighted_sample(ctx):
    for slot in ("row", "colptr", "input_nodes") + ("eids",) * ctx.has_input("eids"):
        if ctx.dtype(slot) not in ("int32", "int64"):
            ctx.fail(f"{slot} is {ctx.dtype(slot)}; it must be int32 or int64")
    if ctx.dtype("edge_weight") != "float32":
        ctx.fail(f"edge_weight is {ctx.dtype('edge_weight')}; it must be float32")
    if ctx.attrs["return_eids"] and not ctx.has_input("eids"):
        ctx.fail("return_eids=True needs eids, the edges' ids")
    dtype = ctx.dtype("row")
    ctx.set_output("out_neighbors", [-1], dtype)
    ctx.set_output("out_count", [ctx.shape("input_nodes")[0]], dtype)
    if ctx.num_outputs("out_eids"):
        ctx.set_output("out_eids", [-1], dtype)


register(
    "weighted_sample_neighbors",
    kernel_module="graph_sampling",
    structured=Structured(meta=weighted_sample_neighbors_meta, cpu=cpu_graph_sampling.WEIGHTED_SAMPLE_NEIGHBORS),
    inputs=["row", "colptr", "edge_weight", "input_nodes", "eids?"],
    outputs=["out_neighbors", "out_count", "out_eids?"],
    attrs={
        "sample_size": Attr(-1, lambda v: is_int(v) and (v == -1 or v > 0), "-1 (all) or > 0"),
        "return_eids": False,
    },
    infer=_infer_weighted_sample,
    needs_rng=True,
    doc="For each node of input_nodes, its in-neighbours (all of them when sample_size is -1 or the node "
    "has no more), else sample_size of them drawn without replacement with probability by weight "
    "(Efraimidis-Spirakis: the largest keys u^(1/w), u uniform); out_neighbors holds them node after "
    "node, out_count how many each node got, out_eids (return_eids) their edge ids. No gradient.",
)


def _infer_sample(ctx):
    for slot in ("Row", "Col_Ptr", "X") + ("Eids",) * ctx.has_input("Eids"):
        if ctx.dtype(slot) != ctx.dtype("Row") or ctx.dtype(slot) not in ("int32", "int64"):
            ctx.fail(f"{slot} is {ctx.dtype(slot)}; Row, Col_Ptr, X and Eids must be all int32 or all int64")
    if ctx.has_input("Perm_Buffer") and ctx.dtype("Perm_Buffer") not in ("int32", "int64"):
        ctx.fail(f"Perm_Buffer is {ctx.dtype('Perm_Buffer')}; it must be int32 or int64")
    if ctx.attrs["return_eids"] and not ctx.has_input("Eids"):
        ctx.fail("return_eids=True needs Eids, the edges' ids")
    ctx.set_output("Out", [-1], ctx.dtype("Row"))
    ctx.set_output("Out_Count", [ctx.shape("X")[0]], "int32")
    if ctx.num_outputs("Out_Eids"):
        ctx.set_output("Out_Eids", [-1], ctx.dtype("Row"))


register(
    "graph_sample_neighbors",
    kernel_module="graph_sampling",
    structured=Structured(meta=graph_sample_neighbors_meta, cpu=cpu_graph_sampling.GRAPH_SAMPLE_NEIGHBORS),
    inputs=["Row", "Col_Ptr", "X", "Eids?", "Perm_Buffer?"],
    outputs=["Out", "Out_Count", "Out_Eids?"],
    attrs={
        "sample_size": Attr(-1, lambda v: is_int(v) and v >= -1, "-1 (all) or >= 0"),
        "return_eids": False,
        "flag_perm_buffer": False,  # (a GPU kernel's buffer, Perm_Buffer: Paddle's CPU kernel reads neither)
        **QUANT,
    },
    infer=_infer_sample,
    needs_rng=True,
    doc="For each node of X, its in-neighbours (all of them when sample_size is -1 or the node has no more), "
    "else sample_size of them drawn uniformly without replacement (a partial Fisher-Yates shuffle); Out holds "
    "them node after node, Out_Count how many each node got (int32), Out_Eids (return_eids) their edge ids.",
)


def _infer_khop(ctx):
    for slot in ("Row", "Col_Ptr", "X") + ("Eids",) * ctx.has_input("Eids"):
        shape = ctx.shape(slot)
        if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
            ctx.fail(f"{slot} {fmt_shape(shape)} must be 1-D, or 2-D of one column")
        if ctx.dtype(slot) != ctx.dtype("Row") or ctx.dtype(slot) not in ("int32", "int64"):
            ctx.fail(f"{slot} is {ctx.dtype(slot)}; Row, Col_Ptr, X and Eids must be all int32 or all int64")
    if not ctx.attrs["sample_sizes"] or any(k < 0 for k in ctx.attrs["sample_sizes"]):
        ctx.fail(f"sample_sizes {list(ctx.attrs['sample_sizes'])}: one size >= 0 per layer (Paddle: must be set)")
    if ctx.attrs["return_eids"] and not ctx.has_input("Eids"):
        ctx.fail("return_eids=True needs Eids, the edges' ids")
    dtype = ctx.dtype("Row")
    for slot, shape in (("Out_Src", [-1, 1]), ("Out_Dst", [-1, 1]), ("Sample_Index", [-1]), ("Out_Eids", [-1])):
        if ctx.num_outputs(slot):
            ctx.set_output(slot, shape, dtype)
    ctx.set_output("Reindex_X", ctx.shape("X"), dtype)


register(
    "graph_khop_sampler",
    kernel_module="graph_sampling",
    structured=Structured(meta=graph_khop_sampler_meta, cpu=cpu_graph_sampling.GRAPH_KHOP_SAMPLER),
    inputs=["Row", "Eids?", "Col_Ptr", "X"],
    outputs=["Out_Src", "Out_Dst", "Sample_Index", "Reindex_X", "Out_Eids?"],
    attrs={"sample_sizes": Attr([]), "return_eids": False, **QUANT},
    infer=_infer_khop,
    needs_rng=True,
    doc="The k-hop subgraph around X: layer i samples sample_sizes[i] in-neighbours of each of its nodes "
    "(uniformly, without replacement), the next layer the new ones; the edges reindexed from 0 (Sample_Index "
    "the nodes, Out_Src / Out_Dst each edge's ids, Reindex_X X's ids).",
)
