"""CTC (kernels in kernels/<device>/ctc.py): warpctc (Fluid 1.8), the CTC loss of unscaled logits
against label sequences, over LoD sequences or time-major padded batches with lengths; and ctc_align
(Fluid 1.8), the decoding step of ctc_greedy_decoder: per sequence, drop the blank id and
(merge_repeated) each id equal to the step before it. Sequences come from the LoD of Input [T, 1],
or padded [N, T] with InputLength. ctc_align has no gradient."""

from ..kernels.cpu import ctc as cpu_ctc
from ..shapes import structured_prediction as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, grads_like, is_int, register


def _infer_ctc_align(ctx):
    x, var = ctx.shape("Input"), ctx.input_var("Input")
    if ctx.has_input("InputLength"):
        if len(x) != 2:
            ctx.fail(f"Input {fmt_shape(x)} must be [N, T] padded ids with InputLength")
        ctx.set_output("Output", x, var.dtype)
        ctx.set_output("OutputLength", [x[0], 1], "int64")
        return
    if len(x) != 2 or x[1] not in (1, -1):  # the LoD may come with the feed (Fluid checks it at run time)
        ctx.fail(f"Input {fmt_shape(x)} must be [T, 1] ids with a LoD, or padded [N, T] with InputLength")
    ctx.set_output("Output", [-1, 1], var.dtype, lod_level=1)


register(
    "ctc_align",
    kernel_module="ctc",
    structured=Structured(meta=metas.ctc_align_meta, cpu=cpu_ctc.ctc_align_out),
    inputs=["Input", "InputLength?"],
    outputs=["Output", "OutputLength?"],
    attrs={"blank": 0, "merge_repeated": True, "padding_value": 0},
    infer=_infer_ctc_align,
    lod="drop",
    needs_lod=True,
    run_dtypes={"Input": ("int32", "int64")},
    doc="Output = each sequence of Input without its blank ids and, with merge_repeated, without ids "
    "equal to the step before (a blank between two equal ids keeps both). LoD input: Output's LoD "
    "counts what is left (all sequences empty: Output is [[-1]], as Fluid); padded input: Output "
    "[N, T] padded with padding_value, OutputLength [N, 1].",
)


def _infer(ctx):
    logits, label = ctx.shape("Logits"), ctx.shape("Label")
    padded = ctx.has_input("LogitsLength")
    if padded != ctx.has_input("LabelLength"):
        ctx.fail("padded input needs both LogitsLength and LabelLength")
    if padded:
        if len(logits) != 3 or len(label) != 2:
            ctx.fail(
                f"padded Logits {fmt_shape(logits)} must be [max_time, batch, classes] and Label "
                f"{fmt_shape(label)} [batch, max_label_length]"
            )
        batch = logits[1]
    else:
        if len(logits) != 2:  # (their LoD is checked when the op runs: run_lod)
            ctx.fail(
                f"Logits {fmt_shape(logits)} and Label {fmt_shape(label)} must be sequences (LoD) of "
                f"[steps, classes] and [length, 1], or padded with LogitsLength and LabelLength"
            )
        batch = -1
    blank = ctx.attrs["blank"]
    if logits[-1] >= 0 and not 0 <= blank < logits[-1]:
        ctx.fail(f"blank={blank} must be a class of Logits {fmt_shape(logits)}")
    ctx.set_output("WarpCTCGrad", logits, ctx.dtype("Logits"))
    ctx.set_output("Loss", [batch, 1], ctx.dtype("Logits"))


def _grad(g):
    g.op(
        "warpctc_grad",
        {
            "Logits": g.input("Logits"),
            "WarpCTCGrad": g.output("WarpCTCGrad"),
            "Loss@GRAD": g.out_grad("Loss"),
            **({"LogitsLength": g.input("LogitsLength")} if g.input("LogitsLength") else {}),
        },
        {"Logits@GRAD": g.in_grad("Logits")},
        g.attrs,
    )


_ATTRS = {"blank": Attr(0, lambda v: is_int(v) and v >= 0, "an int >= 0"), "norm_by_times": False}
register(
    "warpctc",
    kernel_module="ctc",
    structured=Structured(meta=metas.warpctc_meta, cpu=cpu_ctc.warpctc_out),
    inputs=["Logits", "Label", "LogitsLength?", "LabelLength?"],
    outputs=["WarpCTCGrad", "Loss"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("Logits", "LogitsLength", "WarpCTCGrad"),
    lod="drop",
    needs_lod=True,
    run_dtypes={"Label": ("int32", "int64")},
    run_lod={"Logits": "LogitsLength", "Label": "LabelLength"},
    doc="Loss = -log p(Label | Logits) per sequence under CTC (softmax over the classes at each step, "
    "the blank class between and around labels, repeats merged), by the forward-backward "
    "recursions in log space; WarpCTCGrad = its gradient wrt the logits (softmax - posterior), "
    "divided by the sequence's steps with norm_by_times (the gradient only, as Fluid). An "
    "impossible alignment (fewer steps than labels and repeats) gives a loss of 0 and a zero "
    "gradient, as Fluid 1.8's warp-ctc.",
)
register(
    "warpctc_grad",
    kernel_module="ctc",
    structured=Structured(meta=metas.warpctc_grad_meta, cpu=cpu_ctc.warpctc_grad_out),
    inputs=["Logits", "WarpCTCGrad", "Loss@GRAD", "LogitsLength?"],
    outputs=["Logits@GRAD"],
    attrs=_ATTRS,
    infer=grads_like({"Logits@GRAD": "Logits"}),
    needs_lod=True,
)
