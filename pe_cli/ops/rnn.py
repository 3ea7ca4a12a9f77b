"""rnn, Paddle 2.x's recurrent op (what paddle.nn.LSTM / GRU / SimpleRNN save, cuDNN's layout on every
device): Input [T, N, input_size] time-major, PreState (LSTM: h0 and c0; GRU, RNN_TANH, RNN_RELU: h0), each
[num_layers * directions, N, hidden_size], WeightList (per layer and direction W_ih, W_hh, then per layer and
direction b_ih, b_hh) and SequenceLength (int [N]: steps past a sequence's length keep its state and output
0). Out [T, N, directions * hidden_size], State the last states. Dropout between layers in training is
refused (Paddle draws its mask); the kernels are numpy (kernels/<device>/rnn.py), structured (meta rules:
shapes/rnn.py)."""

from ..kernels.cpu import rnn as cpu_rnn
from ..shapes import rnn as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, register
from .pointwise_math import QUANT

GATES = metas.GATES
_ATTRS = {
    "dropout_prob": Attr(0.0, lambda v: 0 <= v < 1, "in [0, 1)"),
    "is_bidirec": Attr(False, choices=(False, True)),
    "input_size": Attr(10, lambda v: v > 0, "> 0"),
    "hidden_size": Attr(100, lambda v: v > 0, "> 0"),
    "num_layers": Attr(1, lambda v: v > 0, "> 0"),
    "mode": Attr("RNN_TANH", choices=tuple(GATES)),
    "seed": 0,
    "is_test": Attr(False, choices=(False, True)),
    **QUANT,
}


def _weight_shapes(a):
    dirs = 2 if a["is_bidirec"] else 1
    g, h = GATES[a["mode"]], a["hidden_size"]
    weights, biases = [], []
    for layer in range(a["num_layers"]):
        width = a["input_size"] if layer == 0 else h * dirs
        for _ in range(dirs):
            weights += [[g * h, width], [g * h, h]]
            biases += [[g * h], [g * h]]
    return weights + biases


def _infer(ctx):
    x, a = ctx.shape("Input"), ctx.attrs
    dirs = 2 if a["is_bidirec"] else 1
    if len(x) != 3:
        ctx.fail(f"Input {fmt_shape(x)} must be 3-D [seq_len, batch, input_size]")
    if x[2] >= 0 and x[2] != a["input_size"]:
        ctx.fail(f"Input {fmt_shape(x)} has {x[2]} features; input_size is {a['input_size']}")
    states = 2 if a["mode"] == "LSTM" else 1
    if ctx.num_inputs("PreState") != states:
        ctx.fail(f"mode {a['mode']} takes {states} PreState tensor(s), got {ctx.num_inputs('PreState')}")
    want = [a["num_layers"] * dirs, x[1], a["hidden_size"]]
    for i, shape in enumerate(ctx.shapes("PreState")):
        if len(shape) != 3 or any(s >= 0 and w >= 0 and s != w for s, w in zip(shape, want)):
            ctx.fail(f"PreState #{i} {fmt_shape(shape)} must be {fmt_shape(want)}")
    expected = _weight_shapes(a)
    got = ctx.shapes("WeightList")
    if [list(s) for s in got] != expected:
        ctx.fail(
            f"WeightList has shapes {[list(s) for s in got]}; {a['mode']} with {a['num_layers']} layer(s), "
            f"{dirs} direction(s), hidden {a['hidden_size']} over {a['input_size']} inputs takes {expected}"
        )
    ctx.set_output("Out", [x[0], x[1], dirs * a["hidden_size"]], ctx.dtype("Input"))
    for i in range(ctx.num_outputs("State")):
        ctx.set_output("State", want, ctx.dtype("Input"), i=i)
    ctx.set_output("Reserve", [0], ctx.dtype("Input"))
    ctx.set_output("DropoutState", [0], "uint8")


def _grad(g):
    ins = {s: g.input(s) for s in ("Input", "PreState", "WeightList", "SequenceLength") if g.input(s)}
    ins.update(Out=g.output("Out"), **{f"{s}@GRAD": g.out_grad(s) for s in ("Out", "State") if g.has_out_grad(s)})
    g.op("rnn_grad", ins, {f"{s}@GRAD": g.in_grad(s) for s in ("Input", "PreState", "WeightList")}, g.attrs)


def _infer_grad(ctx):
    for slot in ("Input", "PreState", "WeightList"):
        for i in range(ctx.num_outputs(f"{slot}@GRAD")):
            var = ctx.input_var(slot, i)
            ctx.set_output(f"{slot}@GRAD", var.shape, var.dtype, i=i)


register(
    "rnn",
    kernel_module="rnn",
    structured=Structured(meta=metas.rnn_meta, cpu=cpu_rnn.rnn_out),
    inputs=["Input", "PreState*", "WeightList*", "SequenceLength?"],
    outputs=["Out", "DropoutState?", "State*", "Reserve"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    lod="drop",
    grad_reads=("Input", "PreState", "WeightList", "SequenceLength", "Out"),
    doc="Out, State = a num_layers-deep (bidirectional: is_bidirec) LSTM, GRU or simple RNN (mode) over "
    "Input, from PreState, with WeightList; steps past SequenceLength keep the state, output 0.",
)
register(
    "rnn_grad",
    kernel_module="rnn",
    structured=Structured(meta=metas.rnn_grad_meta, cpu=cpu_rnn.rnn_grad_out),
    inputs=["Input", "PreState*", "WeightList*", "SequenceLength?", "Out", "Reserve?", "Out@GRAD?", "State@GRAD*?"],
    outputs=["Input@GRAD?", "PreState@GRAD*?", "WeightList@GRAD*?"],
    attrs=_ATTRS,
    infer=_infer_grad,
    lod="drop",
    no_need_buffer=("Out",),
)
