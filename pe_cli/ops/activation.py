"""Activations: Out = f(X) elementwise, one op (and its grad op) per row of the activation table
(pe_cli/base/activations.py). Each grad op reads what its derivative needs (X or Out: the row's ``reads``).
softmax and log_softmax (normalised along ``axis``; structured kernels: shapes/softmax.py's meta rules,
kernels/cpu/softmax.py's out-kernels) are registered here by hand, and beside them prelu
(a learned slope for X < 0) and maxout (the max over groups of channels)."""

import numbers

from ..base.activations_second_order import ORDERS
from ..base.activations import FLOATS, TABLE
from ..base.activations_paddle2_forms import GRAD_READS_X, PADDLE2_FORMS
from ..base.dims import known_numel
from .convolution import _known
from .image import POS_INT, div, divides
from ..kernels.cpu import activation as cpu_activation, activation_rows as cpu_rows, softmax as cpu_softmax
from ..shapes import activation as meta_rules, softmax as softmax_rules
from .define import LAYOUT_NAME, Attr, Structured, backend_attrs, fmt_shape, grads_like, is_int, register


def _infer_elementwise(ctx):
    """Out as X: the dtypes an activation takes are checked when it runs (its ``run_dtypes``), as
    Fluid's kernels are looked up by X's dtype at run time (its InferShape checks none)."""
    ctx.set_output("Out", ctx.shape("X"), ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _activation(
    name,
    doc,
    uses="X",
    attrs=None,
    dtypes=FLOATS,
    differentiable=True,
    infer=None,
    inplace=(),
    attr_tensors=None,
    grad_as=None,
    traits=(),
    structured=(None, None),
):
    """Registers ``name`` and ``name_grad``; the grad reads X or Out (``uses``; "": neither) and Out@GRAD.
    ``dtypes``: the input dtypes accepted (None: any); ``differentiable=False``: no gradient.
    ``inplace``: the op's and its grad op's (output, input) pairs its kernels may write over.
    ``attr_tensors``: {optional input slot: the attribute its tensor gives} (pow's FactorTensor).
    ``grad_as``: a grad maker of other ops, as Fluid's (sign's: a scale by 0); ``name_grad`` is registered all
    the same (pe's earlier saves hold it). ``traits``: more than "activation" (define.TRAITS); ``structured``: its and its grad op's."""
    attrs, tensors = attrs or {}, dict(attr_tensors or {})

    def grad(g):
        given = {slot: g.input(slot) for slot in tensors if g.input(slot)}
        read = _grad_inputs(g, name, uses)
        g.op(f"{name}_grad", {**read, "Out@GRAD": g.out_grad("Out"), **given}, {"X@GRAD": g.in_grad("X")}, g.attrs)

    slots = [f"{slot}?" for slot in tensors]
    register(
        name,
        inputs=["X"] + slots,
        outputs=["Out"],
        attrs=attrs,
        infer=infer or _infer_elementwise,
        run_dtypes={"X": dtypes} if dtypes is not None else None,
        grad=(grad_as or grad) if differentiable else None,
        doc=doc,
        traits=("activation",) + traits,
        attr_tensors=tensors,
        grad_reads=_grad_reads(name, uses, grad_as, tensors) if differentiable else (),
        kernel_module="activation",
        inplace=inplace[0] if inplace else (),
        structured=structured[0],
    )
    if differentiable:
        register(
            f"{name}_grad",
            inputs=[uses] * bool(uses) + ["X?"] * (name in GRAD_READS_X) + ["Out@GRAD"] + slots,
            outputs=["X@GRAD"],
            attrs=attrs,
            infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("Out@GRAD"), ctx.dtype("Out@GRAD")),
            kernel_module="activation",
            inplace=inplace[1] if inplace else (),
            attr_tensors=tensors,
            grad=_grad_grad(name, uses)[0],
            grad_reads=_grad_grad(name, uses)[1],
            structured=structured[1],
        )
        if name in ORDERS:
            _register_grad_grad(name, uses, attrs, ("DDOut", "DDX") if inplace else ())


def _grad_inputs(g, name, uses):
    """What ``name``'s grad op reads: X or Out (``uses``), and X in Paddle 2.x where Paddle 2.6's reads it."""
    read = {uses: g.input("X") if uses == "X" else g.output("Out")} if uses else {}
    if name in GRAD_READS_X and g.fwd.paddle2:
        read["X"] = g.input("X")
    return read


def _grad_reads(name, uses, grad_as, tensors):
    """The forward slots the grad op of ``name`` reads (``grad_reads``): those of _grad_inputs and its tensors."""
    return (uses,) * bool(uses and not grad_as) + ("X",) * (name in GRAD_READS_X) + tuple(tensors)


# -- gradients of gradients ---------------------------------------------------------------------
# X@GRAD = dOut * f'(u) (u: X or Out) is linear in dOut: its gradient, given ddX, is dOut' =
# name_grad(u, ddX), and u' = ddX * dOut * f''(u). Five activations have Fluid 1.8's one op for it
# (relu_grad_grad, ...: pe_cli/base/activations_second_order.py); sigmoid and tanh, which Fluid 1.8
# lacks, write it with ops of the table, whose gradients give every further order.


def _mul(g, a, b, like):
    out = [g.tmp(like, "mul")]
    g.op("elementwise_mul", {"X": a, "Y": b}, {"Out": out}, {"axis": -1})
    return out


def _sigmoid_second(g, u, prod, out):  # f'(Out) = Out (1 - Out): Out' = ddX dOut (1 - 2 Out)
    factor = [g.tmp(u[0], "one_minus_2out")]
    g.op("scale", {"X": u}, {"Out": factor}, {"scale": -2.0, "bias": 1.0, "bias_after_scale": True})
    g.op("elementwise_mul", {"X": prod, "Y": factor}, {"Out": out}, {"axis": -1})


def _tanh_second(g, u, prod, out):  # f'(Out) = 1 - Out^2: Out' = ddX dOut (-2 Out)
    factor = [g.tmp(u[0], "minus_2out")]
    g.op("scale", {"X": u}, {"Out": factor}, {"scale": -2.0, "bias": 0.0, "bias_after_scale": True})
    g.op("elementwise_mul", {"X": prod, "Y": factor}, {"Out": out}, {"axis": -1})


# f'' of each activation whose double gradient pe writes with the table's ops
SECOND_DERIVATIVES = {"sigmoid": _sigmoid_second, "tanh": _tanh_second}


def _grad_of_grad(name, uses):
    second = SECOND_DERIVATIVES[name]

    def grad(g):
        if not g.has_out_grad("X@GRAD"):
            return
        ddx, u = g.out_grad("X@GRAD"), g.input(uses)
        if g.needs("Out@GRAD"):
            g.op(f"{name}_grad", {uses: u, "Out@GRAD": ddx}, {"X@GRAD": g.in_grad("Out@GRAD")}, g.attrs)
        if g.needs(uses):
            second(g, u, _mul(g, ddx, g.input("Out@GRAD"), u[0]), g.in_grad(uses))

    return grad


def _fluid_grad_of_grad(name, uses):
    """The grad maker of ``name_grad``: Fluid's one ``name_grad_grad`` op, with Fluid's slots."""
    second = ORDERS[name]
    given = {"DOut": lambda g: g.input("Out@GRAD"), "DX": lambda g: g.output("X@GRAD")}

    def grad(g):
        if not g.has_out_grad("X@GRAD"):
            return
        inputs = {uses: g.input(uses), "DDX": g.out_grad("X@GRAD")}
        if second.given:
            inputs[second.given] = given[second.given](g)
        outputs = {"DDOut": g.in_grad("Out@GRAD")}
        if second.slot:
            outputs[second.slot] = g.in_grad(uses)
        g.op(f"{name}_grad_grad", inputs, outputs, g.attrs)

    return grad


def _register_grad_grad(name, uses, attrs, inplace):
    """``name_grad_grad``: (u, the value its gradient of u reads, DDX) -> (DDOut, that gradient)."""
    second = ORDERS[name]
    tail = f", {second.slot} = the gradient of {uses} (base/activations_second_order.py)." if second.slot else "."
    register(
        f"{name}_grad_grad",
        inputs=[uses] + [second.given] * bool(second.given) + ["DDX"],
        outputs=["DDOut?"] + [f"{second.slot}?"] * bool(second.slot),
        attrs=attrs,
        infer=grads_like({"DDOut": "DDX", **({second.slot: uses} if second.slot else {})}),
        kernel_module="activation",
        traits=("optional_outputs",),
        inplace=inplace,
        structured=Structured(meta=meta_rules.GRAD_GRAD[name], cpu=cpu_activation.GRAD_GRAD[name]),
        doc=f"Fluid's second-order gradient of {name}: DDOut = {name}_grad({uses}, DDX){tail}",
    )


def _grad_grad(name, uses):
    """(grad maker, grad_reads) of ``name_grad``: its gradient's, where it has one."""
    if name in ORDERS:
        reads = {"DOut": ("Out@GRAD",), "DX": ("X@GRAD",), "": ()}[ORDERS[name].given]
        return _fluid_grad_of_grad(name, uses), (uses,) + reads
    if name in SECOND_DERIVATIVES:
        return _grad_of_grad(name, uses), (uses, "Out@GRAD")
    return None, ()


# Attributes of table rows that a tensor may give at run time (Fluid 1.8's)
_ROW_TENSORS = {"pow": {"FactorTensor": "factor"}}
# The activations whose Fluid 1.8 protos declare which library's kernel runs them (BACKEND_ATTRS)
_ONEDNN_ONLY = ("leaky_relu", "swish")
_ONEDNN_AND_CUDNN = tuple(
    "abs ceil cos exp floor gelu log log1p logsigmoid reciprocal relu round rsqrt sigmoid sin softplus softsign "
    "sqrt square tanh tanh_shrink".split()
)


def _backend(name):
    return backend_attrs(
        *("use_mkldnn",) * (name in _ONEDNN_ONLY + _ONEDNN_AND_CUDNN), *("use_cudnn",) * (name in _ONEDNN_AND_CUDNN)
    )


def _grad_sign(g):
    """Fluid's gradient of sign: Out@GRAD scaled by 0."""
    g.op("scale", {"X": g.out_grad("Out")}, {"Out": g.in_grad("X")}, {"scale": 0.0})


_GRADS_AS = {"sign": _grad_sign}


def _register_row(row):
    _activation(
        row.name,
        row.doc,
        uses=row.reads,
        dtypes=row.dtypes,
        differentiable=row.derivative is not None,
        grad_as=_GRADS_AS.get(row.name),
        traits=("paddle2_semantics",) * (row.name in PADDLE2_FORMS or row.float32_loop_paddle2),
        attrs={**{p.name: Attr(p.default, p.check, p.expect, p.choices) for p in row.params}, **_backend(row.name)},
        inplace=(("Out", "X"), ("X@GRAD", "Out@GRAD")) if row.cpu_loop else (),
        attr_tensors=_ROW_TENSORS.get(row.name),
        structured=_structured(row),
    )


def _structured(row):
    """The row's op's and grad op's structured kernels: the row's meta rules (pe_cli/shapes/activation.py) and
    CPU out-kernels (pe_cli/kernels/cpu/activation_rows.py); a CUDA device runs kernels/cuda/activation.py's."""
    forward = Structured(meta=meta_rules.FORWARD[row.name], cpu=cpu_rows.FORWARD[row.name])
    if row.derivative is None:
        return forward, None
    return forward, Structured(meta=meta_rules.GRAD[row.name], cpu=cpu_rows.GRAD[row.name])


for _row in TABLE:
    _register_row(_row)


def _infer_softmax(name):
    def infer(ctx):
        shape, axis = ctx.shape("X"), ctx.attrs["axis"]
        if ctx.dtype("X") not in FLOATS:
            ctx.fail(f"X is {ctx.dtype('X')}, but {name} takes a float tensor; cast it first")
        rank = max(len(shape), 1)  # (a 0-D X takes axis 0 or -1, as one of one element: Paddle 2.6's)
        if not -rank <= axis < rank:
            ctx.fail(f"axis={axis} is out of range for X {fmt_shape(shape)} (expected {-rank} <= axis < {rank})")
        ctx.set_output("Out", shape, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)

    return infer


_AXIS = {"axis": Attr(-1, lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool), "an int")}
_activation(
    "softmax",
    "Out = exp(X) / sum(exp(X)) along axis (default the last). data_format and is_test steer "
    "Fluid's oneDNN kernel only; as its plain CPU kernel, pe's ignores them.",
    uses="Out",
    attrs=dict(_AXIS, data_format=LAYOUT_NAME, **backend_attrs("is_test", "use_cudnn", "use_mkldnn")),
    infer=_infer_softmax("softmax"),
    traits=("probabilities",),
    structured=(
        Structured(meta=softmax_rules.softmax_meta, cpu=cpu_softmax.SOFTMAX),
        Structured(meta=softmax_rules.softmax_grad_meta, cpu=cpu_softmax.SOFTMAX_GRAD),
    ),
)
_activation(
    "log_softmax",
    "Out = X - log(sum(exp(X))) along axis (default the last).",
    uses="Out",
    attrs=_AXIS,
    infer=_infer_softmax("log_softmax"),
    structured=(
        Structured(meta=softmax_rules.log_softmax_meta, cpu=cpu_softmax.LOG_SOFTMAX),
        Structured(meta=softmax_rules.log_softmax_grad_meta, cpu=cpu_softmax.LOG_SOFTMAX_GRAD),
    ),
)


# -- prelu ------------------------------------------------------------------------------------------


def prelu_alpha_size(x, mode, data_format="NCHW"):
    """The number of alphas prelu's mode needs for X's shape (-1: unknown); 'channel' with NHWC: X's last dim's."""
    if mode == "all":
        return 1
    if mode == "channel":
        c = x[-1] if data_format == "NHWC" else x[1]
        return c if _known(c) else -1
    return known_numel(x[1:])


def _infer_prelu(ctx):
    x, alpha, mode = ctx.shape("X"), ctx.shape("Alpha"), ctx.attrs["mode"]
    if x is None or len(x) < (2 if mode != "all" else 1):
        ctx.fail(f"X {fmt_shape(x)} needs a batch dim and, for mode '{mode}', the dims after it")
    want, have = prelu_alpha_size(x, mode, ctx.attrs["data_format"]), known_numel(alpha)
    if want >= 0 and have >= 0 and want != have:
        ctx.fail(f"Alpha {fmt_shape(alpha)} has {have} values but mode '{mode}' needs {want} for X {fmt_shape(x)}")
    if ctx.dtype("X") != ctx.dtype("Alpha"):
        ctx.fail(f"X is {ctx.dtype('X')} but Alpha is {ctx.dtype('Alpha')}")
    ctx.set_output("Out", x, ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)


def _grad_prelu(g):
    g.op(
        "prelu_grad",
        {"X": g.input("X"), "Alpha": g.input("Alpha"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X"), "Alpha@GRAD": g.in_grad("Alpha")},
        g.attrs,
    )


_PRELU_ATTRS = {
    "mode": Attr("all", choices=("all", "channel", "element")),
    # Paddle 2.x's attribute: NHWC changes only where 'channel' mode finds the channels (X's last dim)
    "data_format": Attr("NCHW", choices=("NCHW", "NHWC")),
}
register(
    "prelu",
    kernel_module="activation",
    inputs=["X", "Alpha"],
    outputs=["Out"],
    attrs=_PRELU_ATTRS,
    infer=_infer_prelu,
    grad=_grad_prelu,
    grad_reads=("Alpha", "X"),
    doc="Out = X where X > 0, else Alpha * X: one Alpha (all), one per channel of dim 1 (channel) or "
    "one per element of X's non-batch dims (element).",
    structured=Structured(meta=meta_rules.prelu_meta, cpu=cpu_activation.PRELU),
)
register(
    "prelu_grad",
    kernel_module="activation",
    inputs=["X", "Alpha", "Out@GRAD"],
    outputs=["X@GRAD?", "Alpha@GRAD?"],
    attrs=_PRELU_ATTRS,
    infer=grads_like({"X@GRAD": "X", "Alpha@GRAD": "Alpha"}),
    structured=Structured(meta=meta_rules.prelu_grad_meta, cpu=cpu_activation.PRELU_GRAD),
)


# -- maxout --------------------------------------------------------------------------------------


def _infer_maxout(ctx):
    x, g, axis = list(ctx.shape("X")), ctx.attrs["groups"], ctx.attrs["axis"]
    if axis not in (1, -1, 3):
        ctx.fail(f"axis={axis} must be 1 (NCHW) or -1 / 3 (NHWC)")
    axis %= 4
    # Fluid builds it on X of any rank (its InferShape reads dims past X's: an Out of garbage dims) and its
    # kernel takes 4-D X
    if len(x) <= axis or (ctx.is_runtime and len(x) != 4):
        ctx.fail(f"X {fmt_shape(x)} must be 4-D [N, C, H, W] (NCHW) or [N, H, W, C] (axis -1 / 3)")
    divides(ctx, x, axis, g, f"groups = {g}")
    out = list(x)
    out[axis] = div(x[axis], g)
    ctx.set_output("Out", out, ctx.dtype("X"))


def _grad_maxout(g):
    g.op(
        "maxout_grad",
        {"X": g.input("X"), "Out": g.output("Out"), "Out@GRAD": g.out_grad("Out")},
        {"X@GRAD": g.in_grad("X")},
        g.attrs,
    )


_MAXOUT_ATTRS = {"groups": POS_INT, "axis": Attr(1, is_int, "1 or -1")}
register(
    "maxout",
    kernel_module="activation",
    inputs=["X"],
    outputs=["Out"],
    attrs=_MAXOUT_ATTRS,
    run_infer=True,
    infer=_infer_maxout,
    grad=_grad_maxout,
    grad_reads=("Out", "X"),
    doc="Out[.., c, ..] = max over k < groups of X[.., c*groups + k, ..] along the channel `axis`; "
    "the gradient goes to the first maximum.",
    structured=Structured(meta=meta_rules.maxout_meta, cpu=cpu_activation.MAXOUT),
)
register(
    "maxout_grad",
    kernel_module="activation",
    inputs=["X", "Out", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_MAXOUT_ATTRS,
    infer=grads_like({"X@GRAD": "X"}),
    structured=Structured(meta=meta_rules.maxout_grad_meta, cpu=cpu_activation.MAXOUT_GRAD),
)
