"""cos_sim (Fluid's): Out[i] = <X[i], Y[i]> / (|X[i]| |Y[i]|) for each row, Y of X's rows or of
one row (compared with every row of X). XNorm and YNorm, the rows' norms, are outputs too: the
gradient reads them. Out is a sequence when X is (Fluid's ShareLoD X -> Out): PaddleRec's tagspace
reshapes cos_sim of sequences with sequence_reshape."""
from .define import fmt_shape, register


def _infer(ctx):
    x, y = ctx.shape("X"), ctx.shape("Y")
    if len(x) < 2 or len(y) != len(x) or list(x[1:]) != list(y[1:]):
        ctx.fail(f"X {fmt_shape(x)} and Y {fmt_shape(y)} must be rows of the same size")
    if y[0] not in (1, x[0]) and x[0] >= 0 and y[0] >= 0:
        ctx.fail(f"Y has {y[0]} rows: it needs X's {x[0]} rows, or 1 (compared with every row of X)")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
    ctx.set_output("Out", [x[0], 1], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("XNorm", [x[0], 1], ctx.dtype("X"))
    ctx.set_output("YNorm", [y[0], 1], ctx.dtype("X"))


def _x_lod(in_lods, attrs):
    return {"Out": in_lods.get("X")}


def _grad(g):
    g.op("cos_sim_grad", {"X": g.input("X"), "Y": g.input("Y"), "Out": g.output("Out"), "XNorm": g.output("XNorm"),
                          "YNorm": g.output("YNorm"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")})


register("cos_sim", kernel_module="similarity", inputs=["X", "Y"], outputs=["Out", "XNorm", "YNorm"],
         infer=_infer, grad=_grad, grad_reads=("X", "Y", "Out", "XNorm", "YNorm"), lod=_x_lod,
         doc="Out = the cosine similarity of each row of X with its row of Y (or Y's one row).")
register("cos_sim_grad", kernel_module="similarity",
         inputs=["X", "Y", "Out", "XNorm", "YNorm", "Out@GRAD"], outputs=["X@GRAD?", "Y@GRAD?"],
         infer=lambda ctx: [ctx.set_output(s, ctx.shape(s[:-5]), ctx.dtype(s[:-5])) for s in ("X@GRAD", "Y@GRAD")])
