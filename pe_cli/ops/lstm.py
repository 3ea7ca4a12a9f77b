"""The LSTM ops: lstm (Fluid's op behind layers.dynamic_lstm, over LoD input; the recurrence runs per
sequence batch, kernels/lstm_math.py: sequences ordered by length, one GEMM per time step) and
lstm_unit (Fluid's op behind layers.lstm_unit: one LSTM step over a batch of rows, after the layer's
fc of [x_t, hidden_t_prev]). pe registered lstm as ``dynamic_lstm`` before; a program saved with that
name loads as lstm (define.renamed)."""

from ..kernels.cpu import lstm as cpu_lstm
from ..shapes import recurrent as metas
from ..shapes.structured import Structured
from .define import Attr, lods_like, register, renamed
from .sequence import need_lod

_ACTS = ("sigmoid", "tanh", "relu", "identity")
_LSTM_ATTRS = {
    "use_peepholes": True,
    "is_reverse": False,
    "gate_activation": Attr("sigmoid", choices=_ACTS),
    "cell_activation": Attr("tanh", choices=_ACTS),
    "candidate_activation": Attr("tanh", choices=_ACTS),
}
_GRAD_SLOTS = ("Input", "H0", "C0", "Weight", "Bias")


def _infer_lstm(ctx):
    x = need_lod(ctx, "Input", "lstm")
    w, b = ctx.shape("Weight"), ctx.shape("Bias")
    d = w[0] if w else -1
    if not w or len(w) != 2 or w[1] != 4 * d:
        ctx.fail(f"Weight {list(w or [])} must be [D, 4D] (hidden-to-hidden, gates candidate/input/forget/output)")
    if x.shape and x.shape[-1] not in (-1, 4 * d):
        ctx.fail(f"Input {list(x.shape)} must be [T, 4D] = [T, {4 * d}] (an fc of the sequence to 4 x size)")
    want = (7 if ctx.attrs["use_peepholes"] else 4) * d
    if b is None or int(b[-1]) != want:
        ctx.fail(f"Bias {list(b or [])} must be [1, {want}] ({'7D with peepholes' if want == 7 * d else '4D'})")
    for slot in ("Hidden", "Cell"):
        ctx.set_output(slot, [-1, d], x.dtype, lod_level=x.lod_level)
    for slot, width in (("BatchGate", 4 * d), ("BatchCellPreAct", d)):
        if ctx.has_output(slot):
            ctx.set_output(slot, [-1, width], x.dtype)


def _grad_lstm(g):
    ins = {s: g.input(s) for s in _GRAD_SLOTS if g.input(s)}
    # Fluid's lstm_grad reads the forward's batch-ordered gates: no second forward pass in the gradient
    ins.update({s: g.output(s) for s in ("Hidden", "Cell", "BatchGate", "BatchCellPreAct") if g.output(s)})
    ins["Hidden@GRAD"] = g.out_grad("Hidden")
    if g.has_out_grad("Cell"):  # pe's own: Fluid's lstm_grad drops the Cell output's gradient
        ins["Cell@GRAD"] = g.out_grad("Cell")
    g.op("lstm_grad", ins, {f"{s}@GRAD": g.in_grad(s) for s in _GRAD_SLOTS if g.input(s)}, g.attrs)


def _infer_lstm_grad(ctx):
    for slot in _GRAD_SLOTS:
        if ctx.has_input(slot):
            var = ctx.input_var(slot)
            ctx.set_output(f"{slot}@GRAD", var.shape, var.dtype)


register(
    "lstm",
    kernel_module="lstm",
    structured=Structured(meta=metas.lstm_meta, cpu=cpu_lstm.lstm),
    inputs=["Input", "H0?", "C0?", "Weight", "Bias"],
    outputs=["Hidden", "Cell", "BatchGate", "BatchCellPreAct"],
    attrs=_LSTM_ATTRS,
    infer=_infer_lstm,
    grad=_grad_lstm,
    grad_reads=_GRAD_SLOTS + ("Hidden", "Cell", "BatchGate", "BatchCellPreAct"),
    needs_lod=True,
    run_lod={"Input": None},
    traits=("optional_outputs",),
    lod=lods_like({"Hidden": "Input", "Cell": "Input"}),  # (Fluid's ShareLoD)
    doc="LSTM over each sequence of Input [T, 4D] (already projected, gates candidate/input/forget/"
    "output): i, f = gate(x + W h + peephole * c + b), c = f c' + i cand(x + W h + b), "
    "o = gate(x + W h + W_oc c + b), h = o cell(c); is_reverse runs each sequence backwards. "
    "Hidden and Cell [T, D] keep Input's LoD. BatchGate [T, 4D] (the gates after activation) and "
    "BatchCellPreAct [T, D] (cell_activation(c)) are Fluid's, rows in Fluid's batch order (time step "
    "by time step, the sequences still running longest first); the gradient reads them with Hidden "
    "and Cell, and without them runs the forward again.",
)
register(
    "lstm_grad",
    kernel_module="lstm",
    structured=Structured(meta=metas.lstm_grad_meta, cpu=cpu_lstm.lstm_grad),
    inputs=[
        "Input",
        "H0?",
        "C0?",
        "Weight",
        "Bias",
        "Hidden?",
        "Cell?",
        "BatchGate?",
        "BatchCellPreAct?",
        "Hidden@GRAD",
        "Cell@GRAD?",
    ],
    outputs=["Input@GRAD?", "H0@GRAD?", "C0@GRAD?", "Weight@GRAD?", "Bias@GRAD?"],
    attrs=_LSTM_ATTRS,
    infer=_infer_lstm_grad,
    lod="drop",
    needs_lod=True,
)
# pe's names before it built Fluid's: its older saves hold them (the slots are Fluid's already)
renamed("dynamic_lstm", "lstm")
renamed("dynamic_lstm_grad", "lstm_grad")


def _infer_lstm_unit(ctx):
    x, c = ctx.shape("X"), ctx.shape("C_prev")
    if not x or len(x) != 2 or not c or len(c) != 2:
        ctx.fail(f"X {list(x or [])} and C_prev {list(c or [])} must both be 2-D: [N, 4D] and [N, D]")
    if ctx.is_runtime and x[1] != 4 * c[1]:  # (Fluid compares X with C_prev when it runs)
        ctx.fail(f"X {list(x)} must be [N, 4D] = [N, {4 * c[1]}] for C_prev {list(c)} (gates i, f, o, candidate)")
    if ctx.is_runtime and x[0] != c[0]:
        ctx.fail(f"X {list(x)} and C_prev {list(c)} must have the same number of rows")
    for slot in ("C", "H"):
        ctx.set_output(slot, [c[0], c[1]], ctx.dtype("X"))


def _grad_lstm_unit(g):
    ins = {
        "X": g.input("X"),
        "C_prev": g.input("C_prev"),
        "C": g.output("C"),
        "C@GRAD": g.out_grad("C"),
        "H@GRAD": g.out_grad("H"),
    }
    g.op("lstm_unit_grad", ins, {"X@GRAD": g.in_grad("X"), "C_prev@GRAD": g.in_grad("C_prev")}, g.attrs)


def _infer_lstm_unit_grad(ctx):
    for slot in ("X", "C_prev"):
        var = ctx.input_var(slot)
        ctx.set_output(f"{slot}@GRAD", var.shape, var.dtype)


register(
    "lstm_unit",
    kernel_module="lstm",
    structured=Structured(meta=metas.lstm_unit_meta, cpu=cpu_lstm.lstm_unit),
    inputs=["X", "C_prev"],
    outputs=["C", "H"],
    run_infer=True,
    attrs={"forget_bias": 0.0},
    infer=_infer_lstm_unit,
    grad=_grad_lstm_unit,
    grad_reads=("X", "C_prev", "C"),
    doc="One LSTM step over rows: X [N, 4D] split into (i, f, o, j), C_prev [N, D]; "
    "C = sigmoid(f + forget_bias) C_prev + sigmoid(i) tanh(j), H = sigmoid(o) tanh(C).",
)
register(
    "lstm_unit_grad",
    kernel_module="lstm",
    structured=Structured(meta=metas.lstm_unit_grad_meta, cpu=cpu_lstm.lstm_unit_grad),
    inputs=["X", "C_prev", "C", "C@GRAD", "H@GRAD"],
    outputs=["X@GRAD?", "C_prev@GRAD?"],
    attrs={"forget_bias": 0.0},
    infer=_infer_lstm_unit_grad,
    lod="drop",
)
