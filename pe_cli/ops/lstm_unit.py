"""lstm_unit (Fluid's op behind layers.lstm_unit): one LSTM step over a batch of rows, after the
layer's fc of [x_t, hidden_t_prev]."""
from .define import register


def _infer_lstm_unit(ctx):
    x, c = ctx.shape("X"), ctx.shape("C_prev")
    if not x or len(x) != 2 or not c or len(c) != 2:
        ctx.fail(f"X {list(x or [])} and C_prev {list(c or [])} must both be 2-D: [N, 4D] and [N, D]")
    if x[1] != -1 and c[1] != -1 and x[1] != 4 * c[1]:
        ctx.fail(f"X {list(x)} must be [N, 4D] = [N, {4 * c[1]}] for C_prev {list(c)} (gates i, f, o, candidate)")
    if -1 not in (x[0], c[0]) and x[0] != c[0]:
        ctx.fail(f"X {list(x)} and C_prev {list(c)} must have the same number of rows")
    for slot in ("C", "H"):
        ctx.set_output(slot, [x[0], c[1]], ctx.dtype("X"))


def _grad_lstm_unit(g):
    ins = {"X": g.input("X"), "C_prev": g.input("C_prev"), "C": g.output("C"),
           "C@GRAD": g.out_grad("C"), "H@GRAD": g.out_grad("H")}
    g.op("lstm_unit_grad", ins, {"X@GRAD": g.in_grad("X"), "C_prev@GRAD": g.in_grad("C_prev")}, g.attrs)


def _infer_lstm_unit_grad(ctx):
    for slot in ("X", "C_prev"):
        var = ctx.input_var(slot)
        ctx.set_output(f"{slot}@GRAD", var.shape, var.dtype)


register("lstm_unit", kernel_module="lstm_unit", inputs=["X", "C_prev"], outputs=["C", "H"],
         attrs={"forget_bias": 0.0}, infer=_infer_lstm_unit, grad=_grad_lstm_unit, grad_reads=("X", "C_prev", "C"),
         doc="One LSTM step over rows: X [N, 4D] split into (i, f, o, j), C_prev [N, D]; "
             "C = sigmoid(f + forget_bias) C_prev + sigmoid(i) tanh(j), H = sigmoid(o) tanh(C).")
register("lstm_unit_grad", kernel_module="lstm_unit", inputs=["X", "C_prev", "C", "C@GRAD", "H@GRAD"],
         outputs=["X@GRAD?", "C_prev@GRAD?"], attrs={"forget_bias": 0.0}, infer=_infer_lstm_unit_grad, lod="drop")
