"""The grad makers of the elementwise ops' grad ops (gradients of gradients): ``GRADS_OF_GRADS``, for
elementwise_{add,sub,mul,div}_grad, which elementwise.py registers with them. They append ops of the
elementwise family (and Fluid's elementwise_div_grad_grad); this module registers no op."""


# -- gradients of gradients (Fluid's elementwise_{add,sub,mul}_grad_grad written with the family's ops;
# div's is Fluid's one op, elementwise_div_grad_grad): given ddX and ddY (the gradients reaching X@GRAD
# and Y@GRAD; Y's broadcast into X from `axis`)


def _dd(g):
    """(ddX, ddY): each None where the grad op does not write that gradient or nothing reads it."""
    return tuple(g.out_grad(s) if g.fwd.outputs.get(s) and g.has_out_grad(s) else None for s in ("X@GRAD", "Y@GRAD"))


def _ew(g, op, x, y, out=None, like=None):
    out = out or [g.tmp(like or x[0], op)]
    g.op(op, {"X": x, "Y": y}, {"Out": out}, {"axis": g.attrs["axis"]})
    return out


def _reduced_product(g, x, y, slot, out):
    """``out`` = (dOut * x * y) summed to the shape of ``slot``'s value, by elementwise_mul_grad."""
    g.op(
        "elementwise_mul_grad",
        {"X": x, "Y": y, "Out@GRAD": g.input("Out@GRAD")},
        {slot + "@GRAD": out},
        {"axis": g.attrs["axis"]},
    )


def _grad_of_add_grad(sign):
    """dOut' = ddX +- ddY (X and Y get none: the gradients are linear in dOut alone)."""

    def grad(g):
        ddx, ddy = _dd(g)
        if (ddx is None and ddy is None) or not g.needs("Out@GRAD"):
            return
        target = g.in_grad("Out@GRAD")
        if ddy is None:
            g.op("scale", {"X": ddx}, {"Out": target}, {"scale": 1.0, "bias": 0.0, "bias_after_scale": True})
            return
        if ddx is None:
            ddx = [g.tmp(g.input("Out@GRAD")[0], "zeros")]
            g.op("fill_zeros_like", {"X": g.input("Out@GRAD")}, {"Out": ddx})
        _ew(g, "elementwise_add" if sign > 0 else "elementwise_sub", ddx, ddy, target)

    return grad


def _grad_of_mul_grad(g):
    """dOut' = ddX * Y + X * ddY; X' = dOut * ddY; Y' = dOut * ddX summed to Y's shape."""
    ddx, ddy = _dd(g)
    x, y = g.input("X"), g.input("Y")
    if g.needs("Out@GRAD") and (ddx is not None or ddy is not None):
        parts = ([_ew(g, "elementwise_mul", ddx, y)] if ddx is not None else []) + (
            [_ew(g, "elementwise_mul", x, ddy)] if ddy is not None else []
        )
        g.op("sum", {"X": [p[0] for p in parts]}, {"Out": g.in_grad("Out@GRAD")})
    if ddy is not None and g.needs("X"):
        _reduced_product(g, x, ddy, "X", g.in_grad("X"))
    if ddx is not None and g.needs("Y"):
        _reduced_product(g, ddx, y, "Y", g.in_grad("Y"))


def _grad_of_div_grad(g):
    """Fluid's one elementwise_div_grad_grad op (Y, Out, DX = X@GRAD, DDX, DDY -> Y@GRAD, DOut, DDOut);
    DX is dOut / Y where the grad op did not write X@GRAD."""
    ddx, ddy = _dd(g)
    if ddx is None and ddy is None:
        return
    y, out = g.input("Y"), g.input("Out")
    dx = g.output("X@GRAD") if g.fwd.outputs.get("X@GRAD") else _ew(g, "elementwise_div", g.input("Out@GRAD"), y)
    inputs = {"Y": y, "Out": out, "DX": dx, **({"DDX": ddx} if ddx else {}), **({"DDY": ddy} if ddy else {})}
    g.op(
        "elementwise_div_grad_grad",
        inputs,
        {"Y@GRAD": g.in_grad("Y"), "DOut": g.in_grad("Out"), "DDOut": g.in_grad("Out@GRAD")},
        {"axis": g.attrs["axis"]},
    )


GRADS_OF_GRADS = {
    "add": _grad_of_add_grad(1),
    "sub": _grad_of_add_grad(-1),
    "mul": _grad_of_mul_grad,
    "div": _grad_of_div_grad,
}
