"""lstmp (Fluid's op behind layers.dynamic_lstmp): an LSTM over LoD input whose recurrent state is
a projection of the hidden state, with optional cell and projection clipping; the recurrence runs
per sequence batch (kernels/lstmp_math.py)."""

from ..kernels.cpu import lstmp as cpu_lstmp
from ..shapes import recurrent as metas
from ..shapes.structured import Structured
from .define import Attr, lods_like, register
from .sequence import need_lod

_ACTS = ("sigmoid", "tanh", "relu", "identity")
_ATTRS = {
    "use_peepholes": True,
    "is_reverse": False,
    "cell_clip": Attr(0.0, lambda v: v >= 0, ">= 0 (0: no clip)"),
    "proj_clip": Attr(0.0, lambda v: v >= 0, ">= 0 (0: no clip)"),
    "gate_activation": Attr("sigmoid", choices=_ACTS),
    "cell_activation": Attr("tanh", choices=_ACTS),
    "candidate_activation": Attr("tanh", choices=_ACTS),
    "proj_activation": Attr("tanh", choices=_ACTS),
}
_SLOTS = ("Input", "Weight", "ProjWeight", "Bias", "H0", "C0")
_OUTPUTS = ("Projection", "Cell", "BatchGate", "BatchCellPreAct", "BatchHidden")


def _infer(ctx):
    x = need_lod(ctx, "Input", "lstmp")
    pw, w, b = ctx.shape("ProjWeight"), ctx.shape("Weight"), ctx.shape("Bias")
    if not pw or len(pw) != 2:
        ctx.fail(f"ProjWeight {list(pw or [])} must be [D, P] (hidden size, projection size)")
    d, p = pw
    if not w or list(w) != [p, 4 * d]:
        ctx.fail(
            f"Weight {list(w or [])} must be [P, 4D] = [{p}, {4 * d}] (projection to gates candidate/input/"
            f"forget/output)"
        )
    if x.shape and x.shape[-1] not in (-1, 4 * d):
        ctx.fail(f"Input {list(x.shape)} must be [T, 4D] = [T, {4 * d}] (an fc of the sequence to 4 x size)")
    want = (7 if ctx.attrs["use_peepholes"] else 4) * d
    if not b or int(b[-1]) != want:
        ctx.fail(f"Bias {list(b or [])} must be [1, {want}] ({'7D with peepholes' if want == 7 * d else '4D'})")
    for slot, width in (("H0", p), ("C0", d)):
        if ctx.has_input(slot) and ctx.shape(slot)[-1] not in (-1, width):
            ctx.fail(f"{slot} {list(ctx.shape(slot))} must be [N, {width}]: one initial state per sequence")
    ctx.set_output("Projection", [-1, p], x.dtype, lod_level=x.lod_level)
    ctx.set_output("Cell", [-1, d], x.dtype, lod_level=x.lod_level)
    for slot, width in (("BatchGate", 4 * d), ("BatchCellPreAct", d), ("BatchHidden", d)):
        if ctx.has_output(slot):
            ctx.set_output(slot, [-1, width], x.dtype)


def _grad(g):
    ins = {s: g.input(s) for s in _SLOTS if g.input(s)}
    # Fluid's lstmp_grad reads these (pe's kernels run the forward again: they lack the unclipped values)
    ins.update({s: g.output(s) for s in _OUTPUTS if g.output(s)})
    ins["Projection@GRAD"] = g.out_grad("Projection")
    if g.has_out_grad("Cell"):
        ins["Cell@GRAD"] = g.out_grad("Cell")
    g.op("lstmp_grad", ins, {f"{s}@GRAD": g.in_grad(s) for s in _SLOTS if g.input(s)}, g.attrs)


def _infer_grad(ctx):
    for slot in _SLOTS:
        if ctx.has_input(slot):
            var = ctx.input_var(slot)
            ctx.set_output(f"{slot}@GRAD", var.shape, var.dtype)


register(
    "lstmp",
    kernel_module="lstmp",
    structured=Structured(meta=metas.lstmp_meta, cpu=cpu_lstmp.lstmp),
    inputs=["Input", "H0?", "C0?", "Weight", "ProjWeight", "Bias"],
    outputs=["Projection", "Cell", "BatchGate", "BatchCellPreAct", "BatchHidden"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=_SLOTS + _OUTPUTS,
    needs_lod=True,
    run_lod={"Input": None},
    traits=("optional_outputs",),
    lod=lods_like({"Projection": "Input", "Cell": "Input"}),  # (Fluid's ShareLoD: the batch outputs have none)
    doc="LSTM with a recurrent projection over each sequence of Input [T, 4D] (gates candidate/input/"
    "forget/output as dynamic_lstm): g = x + r' Weight + b (peepholes as dynamic_lstm), "
    "c = clip(f c' + i cand, cell_clip), h = o cell(c), r = clip(proj(h ProjWeight), proj_clip), proj "
    "being cell_activation unless proj_activation is identity (Fluid 1.8.5's kernels); "
    "Weight [P, 4D], ProjWeight [D, P], H0 [N, P], C0 [N, D]. Projection [T, P] and Cell [T, D] keep "
    "Input's LoD. BatchGate [T, 4D] (gates after activation), BatchCellPreAct [T, D] (cell(c)) and "
    "BatchHidden [T, D] (h) are Fluid's, rows in Fluid's batch order; the gradient runs the forward "
    "again.",
)
register(
    "lstmp_grad",
    kernel_module="lstmp",
    structured=Structured(meta=metas.lstmp_grad_meta, cpu=cpu_lstmp.lstmp_grad),
    inputs=[
        "Input",
        "Weight",
        "ProjWeight",
        "Bias",
        "H0?",
        "C0?",
        "Projection?",
        "Cell?",
        "BatchGate?",
        "BatchCellPreAct?",
        "BatchHidden?",
        "Projection@GRAD",
        "Cell@GRAD?",
    ],
    outputs=[f"{s}@GRAD?" for s in _SLOTS],
    attrs=_ATTRS,
    infer=_infer_grad,
    lod="drop",
    needs_lod=True,
)
