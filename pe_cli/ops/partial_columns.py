"""Column windows of several inputs (Fluid 1.8's contrib ops partial_concat and partial_sum, for
CTR models): each input X[i] [batch, n] gives its columns [start_index, start_index + length)
(start_index < 0 counts from the end; length -1: to the end, partial_concat's any length < 0); partial_concat joins the windows
along the columns, partial_sum adds them. Kernels in kernels/<device>/partial_columns.py."""

from ..shapes.manipulation import column_window
from ..kernels.cpu import partial_columns as cpu_partial
from ..shapes import partial_columns as rules
from .define import Attr, Structured, backend_attrs, fmt_shape, grad_of, grads_like, register

_ATTRS = {"start_index": Attr(0), "length": Attr(-1, lambda v: v == -1 or v > 0, "-1 (to the end) or > 0")}
# partial_concat's kernel takes any length < 0 to the end (partial_sum's only -1)
_CONCAT_ATTRS = dict(_ATTRS, length=Attr(-1, lambda v: v < 0 or v > 0, "< 0 (to the end) or > 0"))


def _window(ctx):
    """(rows, window width) of the inputs, which must all be [batch, n] of one n."""
    shapes = ctx.shapes("X")
    if not shapes:
        ctx.fail("needs at least one input in X")
    if any(len(s) != 2 for s in shapes) or len({s[1] for s in shapes}) != 1:
        ctx.fail(f"every input must be [batch, n] with the same n, got {[fmt_shape(s) for s in shapes]}")
    n = shapes[0][1]
    if n < 0:
        return shapes[0][0], -1
    try:
        start, stop = column_window(n, ctx.attrs["start_index"], ctx.attrs["length"])
    except ValueError as e:
        ctx.fail(str(e))
    return shapes[0][0], stop - start


def _infer_concat(ctx):
    rows, width = _window(ctx)
    ctx.set_output("Out", [rows, -1 if width < 0 else width * len(ctx.shapes("X"))], ctx.dtype("X"))


def _infer_sum(ctx):
    rows, width = _window(ctx)
    ctx.set_output("Out", [rows, width], ctx.dtype("X"))


for _type, _infer, _attrs, _doc in [
    ("partial_concat", _infer_concat, _CONCAT_ATTRS, "Out = concat([X[i][:, start:start + length] for i], axis=1)."),
    (
        "partial_sum",
        _infer_sum,
        dict(_ATTRS, **backend_attrs("use_mkldnn")),
        "Out = sum(X[i][:, start:start + length] for i).",
    ),
]:
    register(
        _type,
        kernel_module="partial_columns",
        structured=Structured(meta=getattr(rules, f"{_type}_meta"), cpu=cpu_partial.OUT[_type]),
        inputs=["X*"],
        outputs=["Out"],
        attrs=_attrs,
        infer=_infer,
        grad=grad_of(_type + "_grad", ("X",)),
        grad_reads=("X",),
        lod="drop",
        doc=_doc,
    )
    register(
        _type + "_grad",
        kernel_module="partial_columns",
        structured=Structured(meta=rules.partial_grad_meta, cpu=cpu_partial.OUT[_type + "_grad"]),
        inputs=["X*", "Out@GRAD"],
        outputs=["X@GRAD*"],
        attrs=_attrs,
        infer=grads_like({"X@GRAD": "X"}),
    )
