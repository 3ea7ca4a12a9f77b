"""GRU ops: gru (Fluid's op behind layers.dynamic_gru, over LoD input, the recurrence per sequence
batch as kernels/gru_math.py runs it), gru_unit (one step over a batch of rows) and fusion_gru (Fluid's
CPU inference fusion of an fc and gru)."""

from ..kernels.cpu import gru as cpu_gru
from ..shapes import recurrent as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, lods_like, register
from .sequence import need_lod

_ACTS = ("sigmoid", "tanh", "relu", "identity")
# gru_unit's activations are Fluid's integer codes
UNIT_ACT_CODES = {"identity": 0, "sigmoid": 1, "tanh": 2, "relu": 3}

_GRU_ATTRS = {
    "activation": Attr("tanh", choices=_ACTS),
    "gate_activation": Attr("sigmoid", choices=_ACTS),
    "is_reverse": False,
    "origin_mode": False,
}
_UNIT_ATTRS = {
    "activation": Attr(2, choices=(0, 1, 2, 3)),
    "gate_activation": Attr(1, choices=(0, 1, 2, 3)),
    "origin_mode": False,
}


# Fluid's batch-ordered outputs of gru and their widths in D
_BATCH_OUTPUTS = {"BatchGate": 3, "BatchResetHiddenPrev": 1, "BatchHidden": 1}


def _check_weights(ctx, what, input_at_run=False):
    """D from Weight [D, 3D]; Bias, when given, must be [1, 3D]; Input [what, 3D] (``input_at_run``: only when
    the op runs, as Fluid's gru)."""
    w = ctx.shape("Weight")
    if not w or len(w) != 2 or w[1] != 3 * w[0]:
        ctx.fail(f"Weight {list(w or [])} must be [D, 3D] (update and reset gates [D, 2D], then candidate [D, D])")
    d = w[0]
    x = ctx.input_var("Input")
    if x.shape and x.shape[-1] not in (-1, 3 * d) and (ctx.is_runtime or not input_at_run):
        ctx.fail(f"Input {list(x.shape)} must be [{what}, 3D] = [{what}, {3 * d}] (an fc to 3 x size)")
    if ctx.has_input("Bias") and [int(v) for v in ctx.shape("Bias")] != [1, 3 * d]:
        ctx.fail(f"Bias {list(ctx.shape('Bias'))} must be [1, {3 * d}] (update, reset, candidate)")
    return x, d


def _infer_gru(ctx):
    need_lod(ctx, "Input", "dynamic_gru")
    x, d = _check_weights(ctx, "T", input_at_run=True)
    if ctx.has_input("H0") and ctx.shape("H0")[-1] not in (-1, d):
        ctx.fail(f"H0 {list(ctx.shape('H0'))} must be [N, {d}]: one initial hidden state per sequence")
    ctx.set_output("Hidden", [-1, d], x.dtype, lod_level=x.lod_level)
    for slot, width in _BATCH_OUTPUTS.items():
        if ctx.has_output(slot):
            ctx.set_output(slot, [-1, width * d], x.dtype)


def _grads_of(g, slots):
    return {f"{s}@GRAD": g.in_grad(s) for s in slots if g.input(s)}


def _grad_gru(g):
    slots = ("Input", "H0", "Weight", "Bias")
    ins = {s: g.input(s) for s in slots if g.input(s)}
    # Fluid's gru_grad reads the forward's batch-ordered values: no second forward pass in the gradient
    ins.update({s: g.output(s) for s in (*_BATCH_OUTPUTS, "Hidden") if g.output(s)})
    ins["Hidden@GRAD"] = g.out_grad("Hidden")
    g.op("gru_grad", ins, _grads_of(g, slots), g.attrs)


def _infer_grads(slots):
    def infer(ctx):
        for slot in slots:
            if ctx.has_input(slot):
                var = ctx.input_var(slot)
                ctx.set_output(f"{slot}@GRAD", var.shape, var.dtype)

    return infer


def _infer_unit(ctx):
    x, d = _check_weights(ctx, "N")
    hp = ctx.shape("HiddenPrev")
    if hp and hp[-1] not in (-1, d):
        ctx.fail(f"HiddenPrev {list(hp)} must be [N, {d}]")
    rows = x.shape[0] if x.shape else -1
    ctx.set_output("Gate", [rows, 3 * d], x.dtype)
    ctx.set_output("ResetHiddenPrev", [rows, d], x.dtype)
    ctx.set_output("Hidden", [rows, d], x.dtype)


def _grad_unit(g):
    slots = ("Input", "HiddenPrev", "Weight", "Bias")
    ins = {s: g.input(s) for s in ("HiddenPrev", "Weight", "Bias") if g.input(s)}
    ins.update(
        {"Gate": g.output("Gate"), "ResetHiddenPrev": g.output("ResetHiddenPrev"), "Hidden@GRAD": g.out_grad("Hidden")}
    )
    for out in ("Gate", "ResetHiddenPrev"):
        if g.has_out_grad(out):
            ins[f"{out}@GRAD"] = g.out_grad(out)
    g.op("gru_unit_grad", ins, _grads_of(g, slots), g.attrs)


def _infer_unit_grad(ctx):
    _infer_grads(("HiddenPrev", "Weight", "Bias"))(ctx)
    gate = ctx.input_var("Gate")
    ctx.set_output("Input@GRAD", gate.shape, gate.dtype)


register(
    "gru",
    kernel_module="gru",
    structured=Structured(meta=metas.gru_meta, cpu=cpu_gru.gru),
    inputs=["Input", "H0?", "Weight", "Bias?"],
    outputs=["BatchGate", "BatchResetHiddenPrev", "BatchHidden", "Hidden"],
    attrs=_GRU_ATTRS,
    infer=_infer_gru,
    grad=_grad_gru,
    grad_reads=("Input", "H0", "Weight", "Bias", "Hidden", *_BATCH_OUTPUTS),
    needs_lod=True,
    run_infer=True,
    run_lod={"Input": None},
    traits=("optional_outputs",),
    lod=lods_like({"Hidden": "Input"}),  # (Fluid's ShareLoD)
    doc="GRU over each sequence of Input [T, 3D] (already projected; update, reset, candidate): "
    "u, r = gate_activation(x + h' W_ur + b), c = activation(x_c + (r h') W_c + b_c), "
    "h = u c + (1 - u) h' (origin_mode: u h' + (1 - u) c). Weight [D, 3D] holds W_ur [D, 2D] then "
    "W_c [D, D] in memory (Fluid's layout). is_reverse runs each sequence backwards. Hidden [T, D] "
    "keeps Input's LoD. BatchGate [T, 3D] (u, r, c), BatchResetHiddenPrev [T, D] (r h') and BatchHidden "
    "[T, D] (h) are Fluid's, rows in Fluid's batch order (time step by time step, the sequences still "
    "running longest first); the gradient reads them with Hidden, and without them runs the forward "
    "again.",
)
register(
    "gru_grad",
    kernel_module="gru",
    structured=Structured(meta=metas.gru_grad_meta, cpu=cpu_gru.gru_grad),
    inputs=[
        "Input",
        "H0?",
        "Weight",
        "Bias?",
        "BatchGate?",
        "BatchResetHiddenPrev?",
        "BatchHidden?",
        "Hidden?",
        "Hidden@GRAD",
    ],
    outputs=["Input@GRAD?", "H0@GRAD?", "Weight@GRAD?", "Bias@GRAD?"],
    attrs=_GRU_ATTRS,
    infer=_infer_grads(("Input", "H0", "Weight", "Bias")),
    lod="drop",
    needs_lod=True,
)
register(
    "gru_unit",
    kernel_module="gru",
    structured=Structured(meta=metas.gru_unit_meta, cpu=cpu_gru.gru_unit),
    inputs=["Input", "HiddenPrev", "Weight", "Bias?"],
    outputs=["Gate", "ResetHiddenPrev", "Hidden"],
    attrs=_UNIT_ATTRS,
    infer=_infer_unit,
    grad=_grad_unit,
    grad_reads=("HiddenPrev", "Weight", "Bias", "Gate", "ResetHiddenPrev"),
    lod="drop",
    doc="One GRU step over rows: Input [N, 3D] (projected), HiddenPrev [N, D]; Gate [N, 3D] = (u, r, c) "
    "after activation, ResetHiddenPrev = r * HiddenPrev, Hidden as gru's. Activations are Fluid's "
    "codes: 0 identity, 1 sigmoid, 2 tanh, 3 relu.",
)
register(
    "gru_unit_grad",
    kernel_module="gru",
    structured=Structured(meta=metas.gru_unit_grad_meta, cpu=cpu_gru.gru_unit_grad),
    inputs=[
        "HiddenPrev",
        "Weight",
        "Bias?",
        "Gate",
        "ResetHiddenPrev",
        "Hidden@GRAD",
        "Gate@GRAD?",
        "ResetHiddenPrev@GRAD?",
    ],
    outputs=["Input@GRAD?", "HiddenPrev@GRAD?", "Weight@GRAD?", "Bias@GRAD?"],
    attrs=_UNIT_ATTRS,
    infer=_infer_unit_grad,
    lod="drop",
)


def infer_fused_weights(ctx, gates, what):
    """(X's variable, D) of Fluid's fused recurrent ops: X [T, M], WeightX [M, gates D], WeightH [D, gates D]."""
    x, wx, wh = ctx.input_var("X"), ctx.shape("WeightX"), ctx.shape("WeightH")
    if x.shape is None or len(x.shape) != 2:
        ctx.fail(f"X {fmt_shape(x.shape)} must be 2-D [T, M] (the steps of its sequences)")
    if wx is None or len(wx) != 2 or x.shape[1] not in (-1, wx[0]):
        ctx.fail(f"WeightX {fmt_shape(wx)} must be [M, {gates}D] with M = X's width {x.shape[1]}")
    d = wx[1] // gates
    if wh is None or list(wh) != [d, gates * d]:
        ctx.fail(f"WeightH {fmt_shape(wh)} must be [D, {gates}D] = [{d}, {gates * d}] ({what})")
    return x, d


def _infer_fusion_gru(ctx):
    x, d = infer_fused_weights(ctx, 3, "update and reset [D, 2D], then candidate [D, D], in memory")
    if ctx.has_input("Bias") and [int(v) for v in ctx.shape("Bias")] != [1, 3 * d]:
        ctx.fail(f"Bias {fmt_shape(ctx.shape('Bias'))} must be [1, {3 * d}]")
    if ctx.has_input("H0") and ctx.shape("H0")[-1] not in (-1, d):
        ctx.fail(f"H0 {fmt_shape(ctx.shape('H0'))} must be [N, {d}]")
    ctx.set_output("Hidden", [x.shape[0], d], x.dtype, lod_level=x.lod_level)
    for slot, width in (("XX", 3 * d), ("BatchedInput", 3 * d), ("BatchedOut", d), ("ReorderedH0", d)):
        ctx.set_output(slot, [-1, width], x.dtype)


register(
    "fusion_gru",
    kernel_module="gru",
    structured=Structured(meta=metas.fusion_gru_meta, cpu=cpu_gru.fusion_gru_out),
    inputs=["X", "H0?", "WeightX", "WeightH", "Bias?"],
    outputs=["ReorderedH0", "XX", "BatchedInput", "BatchedOut", "Hidden"],
    attrs={**_GRU_ATTRS, "use_seq": True},
    infer=_infer_fusion_gru,
    needs_lod=True,
    traits=("optional_outputs",),
    doc="Fluid's CPU inference fusion of an fc and gru: gru over X WeightX + Bias (XX, [T, 3D]) with "
    "WeightH as gru's Weight, as Fluid 1.8.5's kernel computes it: h = u c + (1 - u) h' whatever "
    "origin_mode says (its jit kernels do not read it), activations Fluid's CPU vector ones (sigmoid's "
    "input clipped to [-40, 13], tanh 2 sigmoid(2x) - 1). BatchedInput, BatchedOut: XX and Hidden in "
    "batch order; ReorderedH0: H0's rows longest sequence first; use_seq changes none of them. No "
    "gradient (Fluid has none); CUDA runs the CPU kernel on the host, as Fluid falls back to it.",
)
