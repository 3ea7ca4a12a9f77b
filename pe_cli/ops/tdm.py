"""The tree ops of TDM (Tree-based Deep Model retrieval; Fluid 1.8's contrib tdm_child and
tdm_sampler), reading a tree kept in int parameters. No gradients (kernels in kernels/<device>/tdm.py).

tdm_child: TreeInfo [node_nums, 3 + child_nums] (or wider: its first children read) holds per node (item_id, layer_id, parent_id,
children...); for each node id in X, Child = its children (zeros for node 0 or a childless node)
and LeafMask = 1 where the child is an item (item_id != 0).
tdm_sampler: Travel [leaf_num, layers] holds each item's path (a node per layer, 0 for none), Layer
[node_nums, 1] the nodes of every layer one after another (layer_offset_lod: where each starts);
per item in X and per layer, the positive node (if output_positive) and neg_samples_num_list[l]
distinct other nodes of that layer drawn uniformly; Labels 1 for the positive, Mask 0 for the
slots of a layer the item's path does not reach."""

from ..kernels.cpu import tdm as cpu_tdm
from ..shapes import tdm as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, register

_INT_DTYPE = Attr("int32", choices=("int32", "int64"))


def _infer_child(ctx):
    x, info = ctx.shape("X"), ctx.shape("TreeInfo")
    # a wider TreeInfo is read as Fluid's kernel reads it (a node's first child_nums children); a narrower
    # one Fluid's kernel reads past a node's row into the next node's, or past TreeInfo's end
    if len(info) != 2 or (info[1] >= 0 and info[1] < 3 + ctx.attrs["child_nums"]):
        ctx.fail(
            f"TreeInfo {fmt_shape(info)} must be [node_nums, >= 3 + child_nums] = [node_nums, "
            f">= {3 + ctx.attrs['child_nums']}]"
        )
    for slot in ("Child", "LeafMask"):
        ctx.set_output(slot, list(x) + [ctx.attrs["child_nums"]], ctx.attrs["dtype"])


def _infer_sampler(ctx):
    x, travel = ctx.shape("X"), ctx.shape("Travel")
    negatives = ctx.attrs["neg_samples_num_list"]
    if len(ctx.attrs["layer_offset_lod"]) != len(negatives) + 1:
        ctx.fail(
            f"layer_offset_lod {ctx.attrs['layer_offset_lod']} needs one offset per layer plus one "
            f"({len(negatives)} layers in neg_samples_num_list)"
        )
    if len(travel) != 2 or (travel[1] >= 0 and travel[1] != len(negatives)):
        ctx.fail(f"Travel {fmt_shape(travel)} must be [leaf_node_num, {len(negatives)}] (one node per layer)")
    width = sum(negatives) + len(negatives) * int(ctx.attrs["output_positive"])
    for slot in ("Out", "Labels", "Mask"):
        ctx.set_output(slot, [x[0] if x else -1, width], ctx.attrs["dtype"])


register(
    "tdm_child",
    kernel_module="tdm",
    inputs=["X", "TreeInfo"],
    outputs=["Child", "LeafMask"],
    attrs={"child_nums": Attr(2, lambda v: v > 0, "> 0"), "dtype": _INT_DTYPE},
    infer=_infer_child,
    lod="drop",
    structured=Structured(meta=metas.tdm_child_meta, cpu=cpu_tdm.tdm_child_out),
    doc="Child[..., j] = TreeInfo[X, 3 + j] (0 for node 0 or no children); LeafMask = TreeInfo[Child, 0] != 0.",
)
register(
    "tdm_sampler",
    kernel_module="tdm",
    inputs=["X", "Travel", "Layer"],
    outputs=["Out", "Labels?", "Mask"],
    attrs={
        "neg_samples_num_list": Attr(list),
        "output_positive": True,
        "layer_offset_lod": Attr(list),
        "seed": 0,
        "dtype": _INT_DTYPE,
    },
    infer=_infer_sampler,
    needs_rng=True,
    lod="drop",
    structured=Structured(meta=metas.tdm_sampler_meta, cpu=cpu_tdm.tdm_sampler_out),
    doc="Per item and layer: the path's node (label 1) and distinct random negatives of the layer "
    "(label 0); seed 0 draws from the run's generator, else from the seed (the same draw each run).",
)
