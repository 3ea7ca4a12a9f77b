"""hierarchical_sigmoid (Fluid 1.8's hsigmoid): the loss of a label along its path in a binary tree
of classifiers, the default complete tree over num_classes or a custom one given by PathTable and
PathCode (kernels in kernels/<device>/hsigmoid.py)."""
from .registry import Attr, fmt_shape, register


def _infer(ctx):
    x, w, label = ctx.shape("X"), ctx.shape("W"), ctx.shape("Label")
    n = ctx.attrs["num_classes"]
    if len(x) != 2 or len(w) != 2 or (x[1] >= 0 and w[1] >= 0 and x[1] != w[1]):
        ctx.fail(f"X {fmt_shape(x)} must be [N, D] and W {fmt_shape(w)} [nodes, D]")
    if ctx.dtype("Label") != "int64" or len(label) not in (1, 2):
        ctx.fail(f"Label must be int64 [N, 1], got {ctx.dtype('Label')} {fmt_shape(label)}")
    custom = ctx.has_input("PathTable")
    if custom != ctx.has_input("PathCode"):
        ctx.fail("a custom tree needs both PathTable and PathCode")
    if custom:
        length = ctx.shape("PathTable")[1]
    else:
        if n is None or n < 2:
            ctx.fail(f"num_classes={n} must be >= 2 for the default tree")
        length = (n - 1).bit_length()
    ctx.set_output("Out", [x[0], 1], ctx.dtype("X"))
    ctx.set_output("PreOut", [x[0], length], ctx.dtype("X"))
    ctx.set_output("W_Out", w, ctx.dtype("W"))


def _grad(g):
    ins = {s: g.input(s) for s in ("X", "W", "Label", "PathTable", "PathCode") if g.input(s)}
    ins.update({"PreOut": g.output("PreOut"), "Out@GRAD": g.out_grad("Out")})
    g.op("hierarchical_sigmoid_grad", ins,
         {"X@GRAD": g.in_grad("X"), "W@GRAD": g.in_grad("W"), "Bias@GRAD": g.in_grad("Bias")}, g.attrs)


def _infer_grad(ctx):
    for slot in ("X", "W", "Bias"):
        if ctx.has_output(slot + "@GRAD"):
            ref = slot if slot != "Bias" else "W"
            shape = ctx.shape(ref) if slot != "Bias" else [ctx.shape("W")[0], 1]
            ctx.set_output(slot + "@GRAD", shape, ctx.dtype(ref))


_ATTRS = {"num_classes": Attr(None, lambda v: v is None or v >= 2, ">= 2"), "is_sparse": False,
          "remote_prefetch": False}
register("hierarchical_sigmoid", kernel_module="hsigmoid",
         inputs=["X", "W", "Label", "PathTable?", "PathCode?", "Bias?"], outputs=["Out", "PreOut", "W_Out?"],
         attrs=_ATTRS, infer=_infer, grad=_grad, grad_reads=("Label", "PathCode", "PathTable", "PreOut", "W", "X"),
         lod="drop",
         doc="Along the path of Label (default tree: node (c >> (j + 1)) - 1 and bit c & (1 << j) of "
             "c = Label + num_classes, for j below c's bit length - 1; custom: PathTable / PathCode rows, "
             "cut at the first negative node), p_j = clip(W[node_j] . X + Bias[node_j], -40, 40) and "
             "Out = sum_j softplus(p_j) - bit_j p_j; PreOut = softplus(p) (log 2 past a short path, whose "
             "constant Out includes, as Fluid's). The gradient ignores the clip, as Fluid's.")
register("hierarchical_sigmoid_grad", kernel_module="hsigmoid",
         inputs=["X", "W", "Label", "PathTable?", "PathCode?", "PreOut", "Out@GRAD"],
         outputs=["X@GRAD?", "W@GRAD?", "Bias@GRAD?"], attrs=_ATTRS, infer=_infer_grad)
