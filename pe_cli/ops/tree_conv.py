"""tree_conv (Fluid 1.8's contrib op; TBCNN, Mou et al. 2016): a convolution over each tree of a
batch. Per tree (EdgeSet [batch, max_edges, 2]: (parent, child) pairs of 1-based node ids, up to a
(0, 0) pair), every node u's patch holds u and its descendants fewer than max_depth levels below;
each patch node v adds NodesVector[v] [feature_size] weighted by (eta_l, eta_r, eta_t) (from its
depth and its place among its siblings, Fluid's tree2col) against Filter [feature_size, 3,
output_size, num_filters]. Out [batch, max_node_count, output_size, num_filters], zero past a
tree's nodes. Kernels in kernels/<device>/tree_conv.py."""

from ..kernels.cpu import tree_conv as cpu_tree_conv
from ..shapes import convolution_irregular as rules
from .define import Attr, Structured, fmt_shape, grads_like, register


def _infer(ctx):
    nodes, edges, filt = ctx.shape("NodesVector"), ctx.shape("EdgeSet"), ctx.shape("Filter")
    if len(nodes) != 3 or len(edges) != 3 or edges[2] not in (2, -1):
        ctx.fail(
            f"NodesVector {fmt_shape(nodes)} and EdgeSet {fmt_shape(edges)} must be [batch, nodes, features] "
            f"and [batch, edges, 2]"
        )
    if len(filt) != 4 or filt[1] not in (3, -1) or (nodes[2] >= 0 and filt[0] >= 0 and filt[0] != nodes[2]):
        ctx.fail(f"Filter {fmt_shape(filt)} must be [feature_size={nodes[2]}, 3, output_size, num_filters]")
    ctx.set_output("Out", [nodes[0], nodes[1], filt[2], filt[3]], ctx.dtype("NodesVector"))


def _grad(g):
    g.op(
        "tree_conv_grad",
        {
            "NodesVector": g.input("NodesVector"),
            "EdgeSet": g.input("EdgeSet"),
            "Filter": g.input("Filter"),
            "Out@GRAD": g.out_grad("Out"),
        },
        {"NodesVector@GRAD": g.in_grad("NodesVector"), "Filter@GRAD": g.in_grad("Filter")},
        g.attrs,
    )


_ATTRS = {"max_depth": Attr(2, lambda v: v >= 1, ">= 1")}
register(
    "tree_conv",
    kernel_module="tree_conv",
    inputs=["NodesVector", "EdgeSet", "Filter"],
    outputs=["Out"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("NodesVector", "EdgeSet", "Filter"),
    lod="drop",
    structured=Structured(meta=rules.tree_conv_meta, cpu=cpu_tree_conv.tree_conv_out),
    doc="Out[b, u - 1] = sum over u's patch of (eta_l, eta_r, eta_t)-weighted NodesVector rows times Filter.",
)
register(
    "tree_conv_grad",
    kernel_module="tree_conv",
    inputs=["NodesVector", "EdgeSet", "Filter", "Out@GRAD"],
    outputs=["NodesVector@GRAD?", "Filter@GRAD?"],
    attrs=_ATTRS,
    infer=grads_like({"NodesVector@GRAD": "NodesVector", "Filter@GRAD": "Filter"}),
    structured=Structured(meta=rules.tree_conv_grad_meta, cpu=cpu_tree_conv.tree_conv_grad_out),
)
