"""cudnn_lstm (Fluid 1.8's op behind layers.lstm, run by cuDNN there; Fluid's CPU build registers it
with a kernel that refuses to run): a multi-layer, optionally bidirectional LSTM over a padded
time-major batch, its weights in one flat W laid out as cuDNN lays them out. pe computes it on every
device (kernels/<device>/lstm_cudnn.py: each layer and direction one run of the lstm op's kernels)."""

from ..base.dims import numel
from ..kernels.cpu import lstm_cudnn as cpu_cudnn
from ..shapes import recurrent as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, register

_ATTRS = {
    "max_len": 20,
    "dropout_prob": Attr(0.0, lambda v: 0 <= v < 1, "in [0, 1)"),
    "is_bidirec": False,
    "input_size": 10,
    "hidden_size": Attr(100, lambda v: v > 0, "> 0"),
    "num_layers": Attr(1, lambda v: v > 0, "> 0"),
    "is_test": False,
    "seed": -1,
}


def weight_size(input_size, hidden, num_layers, dirs):
    """The values of cudnn_lstm's flat W: per layer and direction W_ih [4H, in] and W_hh [4H, H], then
    per layer and direction b_ih and b_hh [4H]."""
    size = 0
    for layer in range(num_layers):
        size += dirs * 4 * hidden * ((input_size if layer == 0 else hidden * dirs) + hidden)
    return size + num_layers * dirs * 8 * hidden


def _infer(ctx):
    x, h0, c0, w = ctx.shape("Input"), ctx.shape("InitH"), ctx.shape("InitC"), ctx.shape("W")
    a = ctx.attrs
    dirs = 2 if a["is_bidirec"] else 1
    if x is None or len(x) != 3:
        ctx.fail(f"Input {fmt_shape(x)} must be 3-D [seq_len, batch, input_size]")
    for slot, shape in (("InitH", h0), ("InitC", c0)):
        if shape is None or len(shape) != 3 or shape[0] not in (-1, a["num_layers"] * dirs):
            ctx.fail(
                f"{slot} {fmt_shape(shape)} must be [num_layers * directions = {a['num_layers'] * dirs}, batch, "
                f"hidden_size]"
            )
    want = weight_size(x[2], a["hidden_size"], a["num_layers"], dirs) if x[2] > 0 else -1
    if w is not None and -1 not in (want, *w) and int(numel(w)) != want:
        ctx.fail(
            f"W {fmt_shape(w)} holds {numel(w)} values; {a['num_layers']} layer(s) of hidden size "
            f"{a['hidden_size']} over inputs of {x[2]} need {want} (cuDNN's layout)"
        )
    ctx.set_output("Out", [x[0], x[1], a["hidden_size"] * dirs], ctx.dtype("Input"))
    ctx.set_output("last_h", h0, ctx.dtype("Input"))
    ctx.set_output("last_c", c0, ctx.dtype("Input"))


def _grad(g):
    ins = {s: g.input(s) for s in ("Input", "InitH", "InitC", "W", "Cache") if g.input(s)}
    ins.update(
        Out=g.output("Out"), **{f"{s}@GRAD": g.out_grad(s) for s in ("Out", "last_h", "last_c") if g.has_out_grad(s)}
    )
    g.op("cudnn_lstm_grad", ins, {f"{s}@GRAD": g.in_grad(s) for s in ("Input", "W", "InitH", "InitC")}, g.attrs)


def _infer_grad(ctx):
    for slot in ("Input", "W", "InitH", "InitC"):
        var = ctx.input_var(slot)
        ctx.set_output(f"{slot}@GRAD", var.shape, var.dtype)


register(
    "cudnn_lstm",
    kernel_module="lstm_cudnn",
    structured=Structured(meta=metas.cudnn_lstm_meta, cpu=cpu_cudnn.cudnn_lstm_out),
    inputs=["Input", "InitH", "InitC", "W", "Cache?"],
    outputs=["Out", "last_h", "last_c"],
    attrs=_ATTRS,
    infer=_infer,
    grad=_grad,
    grad_reads=("Input", "InitH", "InitC", "W", "Cache", "Out"),
    lod="drop",
    doc="LSTM layers over Input [seq_len, batch, input_size] (every sequence seq_len steps): gates i, f, "
    "g, o = x W_ih^T + b_ih + h' W_hh^T + b_hh, c = f c' + i tanh(g), h = o tanh(c); layer l > 0 reads "
    "layer l-1's outputs (both directions joined with is_bidirec). InitH, InitC [num_layers * dirs, "
    "batch, hidden_size] (layer l, direction d at l * dirs + d); Out [seq_len, batch, hidden_size * "
    "dirs]; last_h, last_c the states after each layer's last step (a reversed direction's: its first). "
    "W flat: every layer and direction's W_ih [4H, in] then W_hh [4H, H], then their b_ih, b_hh [4H]. "
    "dropout_prob between layers while training is cuDNN's random stream, which pe cannot reproduce: "
    "refused unless is_test.",
)
register(
    "cudnn_lstm_grad",
    kernel_module="lstm_cudnn",
    structured=Structured(meta=metas.cudnn_lstm_grad_meta, cpu=cpu_cudnn.cudnn_lstm_grad_out),
    inputs=["Input", "InitH", "InitC", "W", "Cache?", "Out", "Out@GRAD?", "last_h@GRAD?", "last_c@GRAD?"],
    outputs=["Input@GRAD?", "W@GRAD?", "InitH@GRAD?", "InitC@GRAD?"],
    attrs=_ATTRS,
    infer=_infer_grad,
    lod="drop",
)
