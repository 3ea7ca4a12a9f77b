"""Paddle 2.x's searching and counting, under Paddle 2.6's op types: searchsorted (where each of Values would
go in SortedSequence's last dim, left or right of equal values; int64, or int32 with out_int32), histogram
(counts of X in `bins` equal bins over [min, max], the data's range when both are equal) and repeat_interleave
(each slice of X along `dim` repeated Repeats times, or RepeatsTensor[i] times for slice i)."""

from ..kernels.cpu import bucketing as cpu
from ..shapes import bucketing as metas
from .define import Attr, Structured, fmt_shape, is_int, register
from .pointwise_math import QUANT


def _infer_searchsorted(ctx):
    s, v = ctx.shape("SortedSequence"), ctx.shape("Values")
    if len(s) != 1 and (len(s) != len(v) or any(a >= 0 and b >= 0 and a != b for a, b in zip(s[:-1], v[:-1]))):
        ctx.fail(
            f"SortedSequence {fmt_shape(s)} must be 1-D, or share every dim but the last with Values {fmt_shape(v)}"
        )
    ctx.set_output("Out", v, "int32" if ctx.attrs["out_int32"] else "int64")


register(
    "searchsorted",
    kernel_module="bucketing",
    structured=Structured(meta=metas.searchsorted_meta, cpu=cpu.searchsorted_out),
    inputs=["SortedSequence", "Values"],
    outputs=["Out"],
    lod="drop",
    attrs={"out_int32": Attr(False, choices=(False, True)), "right": Attr(False, choices=(False, True)), **QUANT},
    infer=_infer_searchsorted,
    doc="Out = the index in SortedSequence's last dim where each of Values goes (the first such place; the "
    "last with right).",
)


def _infer_histogram(ctx):
    a = ctx.attrs
    if a["bins"] < 1 or a["min"] > a["max"]:
        ctx.fail(f"bins={a['bins']} must be >= 1 and min={a['min']} <= max={a['max']}")
    ctx.set_output("Out", [a["bins"]], "int64")


register(
    "histogram",
    kernel_module="bucketing",
    structured=Structured(meta=metas.histogram_meta, cpu=cpu.histogram_out),
    inputs=["X"],
    outputs=["Out"],
    lod="drop",
    attrs={
        "bins": Attr(100, is_int, "an int >= 1"),
        "min": Attr(0, is_int, "an int"),
        "max": Attr(0, is_int, "an int"),
        **QUANT,
    },
    infer=_infer_histogram,
    doc="Out = how many elements of X fall in each of `bins` equal bins over [min, max] (both 0, or equal: "
    "X's own range, widened by 1 each way where that is one value); values outside are not counted.",
)


def _infer_repeat(ctx):
    x, a = ctx.shape("X"), ctx.attrs
    if not -max(len(x), 1) <= a["dim"] < max(len(x), 1):
        ctx.fail(f"dim={a['dim']} is out of range for X {fmt_shape(x)}")
    out = list(x)
    d = a["dim"] % max(len(x), 1)
    if out:
        out[d] = -1 if ctx.has_input("RepeatsTensor") or out[d] < 0 else out[d] * a["Repeats"]
    ctx.set_output("Out", out, ctx.dtype("X"))


def _grad_repeat(g):
    ins = {"X": g.input("X"), "Out@GRAD": g.out_grad("Out")}
    if g.input("RepeatsTensor"):
        ins["RepeatsTensor"] = g.input("RepeatsTensor")
    g.op("repeat_interleave_grad", ins, {"X@GRAD": g.in_grad("X")}, g.attrs)


_REPEAT_ATTRS = {"Repeats": Attr(0, is_int, "an int"), "dim": Attr(0, is_int, "an int"), **QUANT}
register(
    "repeat_interleave",
    kernel_module="bucketing",
    structured=Structured(meta=metas.repeat_interleave_meta, cpu=cpu.repeat_interleave_out),
    inputs=["X", "RepeatsTensor?"],
    outputs=["Out"],
    lod="drop",
    attrs=_REPEAT_ATTRS,
    infer=_infer_repeat,
    grad=_grad_repeat,
    grad_reads=("X", "RepeatsTensor"),
    doc="Out = X with each slice along `dim` repeated Repeats times (RepeatsTensor: slice i RepeatsTensor[i] times).",
)
register(
    "repeat_interleave_grad",
    kernel_module="bucketing",
    structured=Structured(meta=metas.repeat_interleave_grad_meta, cpu=cpu.repeat_interleave_grad_out),
    inputs=["X", "RepeatsTensor?", "Out@GRAD"],
    outputs=["X@GRAD"],
    attrs=_REPEAT_ATTRS,
    lod="drop",
    no_need_buffer=("X",),
    infer=lambda ctx: ctx.set_output("X@GRAD", ctx.shape("X"), ctx.dtype("X")),
)
