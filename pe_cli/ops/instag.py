"""filter_by_instag (Fluid 1.8): keeps the instances whose tags meet a filter's tags (kernels in
kernels/<device>/instag.py)."""

from ..kernels.cpu import instag as cpu
from ..shapes import instag as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, is_int, register


def _infer(ctx):
    ins, _tag, filt = ctx.shape("Ins"), ctx.input_var("Ins_tag"), ctx.shape("Filter_tag")
    if len(ins) != 2:
        ctx.fail(f"Ins {fmt_shape(ins)} must be [instances (or their rows), width]")
    # Ins_tag's LoD (and Ins's with is_lod) and the tags' int64 are checked when the op runs, as Fluid's
    if len(filt) != 1 and not (len(filt) == 2 and filt[1] in (1, -1)):
        ctx.fail(f"Filter_tag {fmt_shape(filt)} must be a 1-D list of tags")
    ctx.set_output("Out", [-1, ins[1]], ctx.dtype("Ins"), lod_level=1)
    ctx.set_output("LossWeight", [-1, 1], "float32", lod_level=1)
    ctx.set_output("IndexMap", [-1, 3], "int64", lod_level=1)


def _grad(g):
    g.op(
        "filter_by_instag_grad",
        {
            "Ins": g.input("Ins"),
            "LossWeight": g.output("LossWeight"),
            "IndexMap": g.output("IndexMap"),
            "Out@GRAD": g.out_grad("Out"),
        },
        {"Ins@GRAD": g.in_grad("Ins")},
        g.attrs,
    )


def _infer_grad(ctx):
    var = ctx.input_var("Ins")
    ctx.set_output("Ins@GRAD", var.shape, var.dtype, lod_level=var.lod_level)


_ATTRS = {"is_lod": Attr(False, choices=(False, True)), "out_val_if_empty": Attr(0, is_int, "an int", long=True)}
register(
    "filter_by_instag",
    kernel_module="instag",
    structured=Structured(meta=metas.filter_by_instag_meta, cpu=cpu.filter_by_instag_out),
    inputs=["Ins", "Ins_tag", "Filter_tag"],
    outputs=["Out", "LossWeight", "IndexMap"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("IndexMap", "Ins", "LossWeight"),
    lod="drop",
    needs_lod=True,
    run_dtypes={"Ins_tag": ("int64",), "Filter_tag": ("int64",)},
    doc="Out = the instances of Ins (its rows, or its sequences with is_lod) having a tag in Filter_tag, "
    "in order, with a LoD over them; IndexMap rows (Out's first row, Ins's first row, rows) and "
    "LossWeight 1 per kept instance. None kept: Out is one row of out_val_if_empty and LossWeight 0. "
    "The gradient copies Out@GRAD back to the kept rows (none when nothing was kept).",
)
register(
    "filter_by_instag_grad",
    kernel_module="instag",
    structured=Structured(meta=metas.filter_by_instag_grad_meta, cpu=cpu.filter_by_instag_grad),
    inputs=["Ins", "LossWeight", "IndexMap", "Out@GRAD"],
    outputs=["Ins@GRAD"],
    attrs=_ATTRS,
    infer=_infer_grad,
    needs_lod=True,
)
