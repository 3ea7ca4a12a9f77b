"""Ops of Paddle 2.x's tensor API that Fluid 1.x's layers lacked (paddle.where, paddle.tril/triu,
paddle.shape, paddle.inverse, paddle.cholesky): ``where`` (Out = Condition ? X : Y), ``tril_triu`` (the
lower or upper triangle of the last two dims), ``shape`` (X's dims as an int32 tensor), ``inverse`` (of
square matrices) and ``cholesky`` (of symmetric positive-definite ones). Kernels in kernels/<device>/tensor_v2.py."""
from .define import Attr, fmt_shape, is_int, register


def _infer_where(ctx):
    c, x, y = ctx.shape("Condition"), ctx.shape("X"), ctx.shape("Y")
    if ctx.dtype("Condition") != "bool":
        ctx.fail(f"Condition is {ctx.dtype('Condition')}; it must be bool (compare, or cast to bool)")
    known = [s for s in (c, x, y)]
    if len({len(s) for s in known}) != 1 or any(len({d for d in dims if d >= 0}) > 1 for dims in zip(*known)):
        ctx.fail(f"Condition {fmt_shape(c)}, X {fmt_shape(x)} and Y {fmt_shape(y)} must have one shape")
    if ctx.dtype("X") != ctx.dtype("Y"):
        ctx.fail(f"X is {ctx.dtype('X')} but Y is {ctx.dtype('Y')}; cast one of them")
    ctx.set_output("Out", x, ctx.dtype("X"))


def _grad_where(g):
    g.op("where_grad", {"Condition": g.input("Condition"), "Out@GRAD": g.out_grad("Out")},
         {"X@GRAD": g.in_grad("X"), "Y@GRAD": g.in_grad("Y")})


def _infer_where_grad(ctx):
    for slot in ("X@GRAD", "Y@GRAD"):
        if ctx.num_outputs(slot):
            ctx.set_output(slot, ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD"))


register("where", kernel_module="tensor_v2", inputs=["Condition", "X", "Y"], outputs=["Out"], infer=_infer_where,
         grad=_grad_where, grad_reads=("Condition",), lod="drop",
         doc="Out = X where Condition, else Y, elementwise (all three of one shape; Condition bool). The gradient "
             "goes to X where Condition and to Y elsewhere.")
register("where_grad", kernel_module="tensor_v2", inputs=["Condition", "Out@GRAD"], outputs=["X@GRAD?", "Y@GRAD?"],
         infer=_infer_where_grad)


def _infer_tril_triu(ctx):
    x = ctx.shape("X")
    if len(x) < 2:
        ctx.fail(f"X {fmt_shape(x)} must have at least 2 dims (the triangle is of the last two)")
    ctx.set_output("Out", x, ctx.dtype("X"))


def _grad_tril_triu(g):
    g.op("tril_triu_grad", {"Out@GRAD": g.out_grad("Out")}, {"X@GRAD": g.in_grad("X")}, g.attrs)


_TRI_ATTRS = {"diagonal": Attr(0, is_int, "an int"), "lower": Attr(True, choices=(False, True))}
register("tril_triu", kernel_module="tensor_v2", inputs=["X"], outputs=["Out"], attrs=_TRI_ATTRS,
         infer=_infer_tril_triu, grad=_grad_tril_triu, lod="drop",
         doc="Out = X where (col - row <= diagonal) if lower, (col - row >= diagonal) if not, in the last two "
             "dims; zeros elsewhere. The gradient passes through the same triangle.")
register("tril_triu_grad", kernel_module="tensor_v2", inputs=["Out@GRAD"], outputs=["X@GRAD"],
         attrs=_TRI_ATTRS, infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")))


def _infer_shape(ctx):
    ctx.set_output("Out", [len(ctx.shape("Input"))], "int32")


register("shape", kernel_module="tensor_v2", inputs=["Input"], outputs=["Out"], infer=_infer_shape, lod="drop",
         doc="Out = the dims of Input at run time, an int32 tensor [rank]. No gradient.")


def _infer_square(op, slot_in, slot_out):
    """The infer of an op taking float square matrices in ``slot_in``'s last two dims, out alike."""
    def infer(ctx):
        x = ctx.shape(slot_in)
        if len(x) < 2 or (x[-1] >= 0 and x[-2] >= 0 and x[-1] != x[-2]):
            ctx.fail(f"{slot_in} {fmt_shape(x)} must hold square matrices in its last two dims")
        if ctx.dtype(slot_in) not in ("float32", "float64"):
            ctx.fail(f"{slot_in} is {ctx.dtype(slot_in)}; {op} takes float32 or float64")
        ctx.set_output(slot_out, x, ctx.dtype(slot_in))
    return infer


def _grad_inverse(g):
    """dInput = -Output^T @ dOutput @ Output^T, as two matmuls."""
    out = g.output("Output")
    left = g.tmp(out[0], "inverse")
    g.op("matmul", {"X": out, "Y": g.out_grad("Output")}, {"Out": [left]},
         {"transpose_X": True, "transpose_Y": False, "alpha": 1.0})
    g.op("matmul", {"X": [left], "Y": out}, {"Out": g.in_grad("Input")},
         {"transpose_X": False, "transpose_Y": True, "alpha": -1.0})


register("inverse", kernel_module="tensor_v2", inputs=["Input"], outputs=["Output"],
         infer=_infer_square("inverse", "Input", "Output"), grad=_grad_inverse, grad_reads=("Output",), lod="drop",
         doc="Output = the inverse of each square matrix in Input's last two dims (Gauss-Jordan with partial "
             "pivoting; a singular matrix is an error). The gradient is -Output^T dOutput Output^T.")


def _grad_cholesky(g):
    """dX = sym(L^-T Phi(L^T dL) L^-1), Phi: the lower triangle with its diagonal halved, sym(S) =
    (S + S^T) / 2 (Murray, 2016): composed from matmul, tril_triu, inverse and transpose."""
    like = g.input("X")[0]
    rank = len(g.fwd.block.var(like).shape)
    swap = list(range(rank - 2)) + [rank - 1, rank - 2]

    def tmp(op_type, inputs, attrs, slot="Out"):
        name = g.tmp(like, "cholesky")
        g.op(op_type, inputs, {slot: [name]}, attrs)
        return [name]

    lower, dlower = g.output("Out"), g.out_grad("Out")
    if g.attrs["upper"]:
        lower, dlower = (tmp("transpose", {"X": v}, {"axis": swap}) for v in (lower, dlower))
    prod = tmp("matmul", {"X": lower, "Y": dlower}, {"transpose_X": True, "transpose_Y": False, "alpha": 1.0})
    tri = [tmp("tril_triu", {"X": prod}, {"diagonal": d, "lower": True}) for d in (0, -1)]
    phi = tmp("elementwise_add", {"X": tri[0], "Y": tri[1]}, {"axis": -1})
    inv = tmp("inverse", {"Input": lower}, {}, slot="Output")
    left = tmp("matmul", {"X": inv, "Y": phi}, {"transpose_X": True, "transpose_Y": False, "alpha": 0.5})
    s = tmp("matmul", {"X": left, "Y": inv}, {"transpose_X": False, "transpose_Y": False, "alpha": 1.0})
    both = tmp("elementwise_add", {"X": s, "Y": tmp("transpose", {"X": s}, {"axis": swap})}, {"axis": -1})
    g.op("scale", {"X": both}, {"Out": g.in_grad("X")}, {"scale": 0.5, "bias": 0.0, "bias_after_scale": True})


register("cholesky", kernel_module="tensor_v2", inputs=["X"], outputs=["Out"],
         attrs={"upper": Attr(False, choices=(False, True))}, infer=_infer_square("cholesky", "X", "Out"),
         grad=_grad_cholesky, grad_reads=("Out",), lod="drop",
         doc="Out = L with L L^T = X (lower), or U = L^T (upper), for each symmetric positive-definite matrix "
             "in X's last two dims (X is read as (X + X^T) / 2; one that is not positive definite is an error).")
