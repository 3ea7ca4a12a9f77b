"""LSTMs with their input layers fused in, as Fluid 1.8's CPU inference passes make them (fc_lstm,
embedding_fc_lstm and attention_lstm fuse passes): fusion_lstm (an fc of X, then lstm),
fused_embedding_fc_lstm (rows of a table that holds the embedding's fc already, then lstm) and
attention_lstm (per step, attention over the sequence's rows from the previous cell state, then an
LSTM step). They compute what Fluid 1.8.5's CPU kernels compute (its jit and cpu_vec activations:
sigmoid's input clipped to [-40, 13], tanh 2 sigmoid(2x) - 1); Fluid has no gradients and no CUDA
kernels for them (pe's CUDA kernels run the CPU ones on the host, as Fluid falls back to its CPU
kernel). Kernels in kernels/<device>/lstm_fused.py, the recurrence kernels/lstm_math.py's."""

from ..kernels.cpu import lstm_fused as cpu_fused
from ..shapes import recurrent as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, register
from .gru import infer_fused_weights

_ACTS = ("sigmoid", "tanh", "relu", "identity")
_LSTM_ATTRS = {
    "use_peepholes": True,
    "is_reverse": False,
    "use_seq": True,
    "gate_activation": Attr("sigmoid", choices=_ACTS),
    "cell_activation": Attr("tanh", choices=_ACTS),
    "candidate_activation": Attr("tanh", choices=_ACTS),
}
_INTERMEDIATES = ("XX", "BatchedInput", "BatchedHidden", "BatchedCell", "ReorderedH0", "ReorderedC0")


def _check_states_and_bias(ctx, d):
    if ctx.has_input("H0") != ctx.has_input("C0") and ctx.has_input("H0"):
        ctx.fail("H0 is given without C0: Fluid's kernel reads C0 wherever H0 is given")
    for slot in ("H0", "C0"):
        if ctx.has_input(slot) and ctx.shape(slot)[-1] not in (-1, d):
            ctx.fail(f"{slot} {fmt_shape(ctx.shape(slot))} must be [N, {d}]")
    b = ctx.shape("Bias")
    want = (7 if ctx.attrs["use_peepholes"] else 4) * d
    if b is None or len(b) != 2 or int(b[1]) != want:
        ctx.fail(f"Bias {fmt_shape(b)} must be [1, {want}] ({'7D with peepholes' if want == 7 * d else '4D'})")


def _set_outputs(ctx, rows, d, dtype, lod_level):
    for slot in ("Hidden", "Cell"):
        ctx.set_output(slot, [rows, d], dtype, lod_level=lod_level)
    for slot in _INTERMEDIATES:
        ctx.set_output(slot, [-1, 4 * d if slot in ("XX", "BatchedInput") else d], dtype)


def _infer_fusion_lstm(ctx):
    x, d = infer_fused_weights(ctx, 4, "gates candidate/input/forget/output")
    _check_states_and_bias(ctx, d)
    _set_outputs(ctx, x.shape[0], d, x.dtype, x.lod_level)
    ctx.set_output("CheckedCell", [2, d], x.dtype)


register(
    "fusion_lstm",
    kernel_module="lstm_fused",
    structured=Structured(meta=metas.fusion_lstm_meta, cpu=cpu_fused.fusion_lstm_out),
    inputs=["X", "WeightX", "WeightH", "Bias", "H0?", "C0?"],
    outputs=["Hidden", "Cell", *_INTERMEDIATES, "CheckedCell"],
    attrs=_LSTM_ATTRS,
    infer=_infer_fusion_lstm,
    needs_lod=True,
    traits=("optional_outputs",),
    doc="lstm over X WeightX + Bias[:4D] (XX [T, 4D]), WeightH its Weight, Bias[4D:7D] its peepholes; "
    "without H0 the states start at zero (C0 unread, as Fluid's kernel). Batched*: XX, Hidden, Cell in "
    "batch order; Reordered*: H0, C0 longest sequence first; use_seq changes none of them. CheckedCell "
    "(a workspace of Fluid's kernel) is not written.",
)


def _infer_embedding_fc_lstm(ctx):
    table, ids, wh = ctx.shape("Embeddings"), ctx.input_var("Ids"), ctx.shape("WeightH")
    if table is None or len(table) != 2:
        ctx.fail(f"Embeddings {fmt_shape(table)} must be 2-D [vocab_size, 4D]")
    if ids.shape is None or len(ids.shape) != 2 or ids.shape[1] != 1:
        ctx.fail(f"Ids {fmt_shape(ids.shape)} must be [T, 1] (one id per step)")
    d = table[1] // 4
    if wh is None or list(wh) != [d, 4 * d]:
        ctx.fail(f"WeightH {fmt_shape(wh)} must be [D, 4D] = [{d}, {4 * d}] for Embeddings {fmt_shape(table)}")
    _check_states_and_bias(ctx, d)
    _set_outputs(ctx, ids.shape[0], d, ctx.dtype("Embeddings"), ids.lod_level)


register(
    "fused_embedding_fc_lstm",
    kernel_module="lstm_fused",
    structured=Structured(meta=metas.fused_embedding_fc_lstm_meta, cpu=cpu_fused.fused_embedding_fc_lstm_out),
    inputs=["Ids", "Embeddings", "WeightH", "Bias", "H0?", "C0?"],
    outputs=["Hidden", "Cell", *_INTERMEDIATES],
    attrs=_LSTM_ATTRS,
    infer=_infer_embedding_fc_lstm,
    needs_lod=True,
    traits=("optional_outputs",),
    doc="lstm over Embeddings' rows picked by Ids (XX [T, 4D]; the table holds the embedding's fc and its "
    "bias already, so Bias[:4D] is not added, as in Fluid's kernel), WeightH its Weight, Bias[4D:7D] "
    "its peepholes; otherwise as fusion_lstm.",
)


def _infer_attention(ctx):
    x, w, c0 = ctx.input_var("X"), ctx.shape("LSTMWeight"), ctx.shape("C0")
    if x.shape is None or len(x.shape) != 2:
        ctx.fail(f"X {fmt_shape(x.shape)} must be 2-D [T, M]")
    m = x.shape[1]
    d = w[1] // 4 if w and len(w) == 2 else -1
    if d < 0 or -1 not in (m,) and w[0] != d + m:
        ctx.fail(f"LSTMWeight {fmt_shape(w)} must be [D + M, 4D] (rows for the hidden state, then for x)")
    if [int(v) for v in ctx.shape("LSTMBias")] != [1, 4 * d]:
        ctx.fail(f"LSTMBias {fmt_shape(ctx.shape('LSTMBias'))} must be [1, {4 * d}]")
    if c0 is None or len(c0) != 2 or (ctx.has_input("H0") and -1 not in c0 and list(ctx.shape("H0")) != list(c0)):
        ctx.fail(f"C0 {fmt_shape(c0)} must be [N, {d}] (and H0 the same)")
    if list(ctx.shape("AttentionWeight")) not in ([m + d, 1], [-1, 1]):
        ctx.fail(f"AttentionWeight {fmt_shape(ctx.shape('AttentionWeight'))} must be [M + D, 1] = [{m + d}, 1]")
    for slot in ("AttentionBias", "AttentionScalar", "AttentionScalarBias"):
        if ctx.has_input(slot) and [int(v) for v in ctx.shape(slot)] != [1, 1]:
            ctx.fail(f"{slot} {fmt_shape(ctx.shape(slot))} must be [1, 1]")
    if ctx.has_input("AttentionScalarBias") and not ctx.has_input("AttentionScalar"):
        ctx.fail("AttentionScalarBias is given without AttentionScalar")
    for slot, shape in (
        ("Hidden", [x.shape[0], d]),
        ("Cell", [x.shape[0], d]),
        ("AttentionedX", [x.shape[0], 1]),
        ("AttentionFCOut", [-1, 1]),
        ("LSTMX", [1, m]),
        ("LSTMOUT", [1, 4 * d]),
    ):
        ctx.set_output(slot, shape, x.dtype, lod_level=x.lod_level if slot in ("Hidden", "Cell") else None)


register(
    "attention_lstm",
    kernel_module="lstm_fused",
    structured=Structured(meta=metas.attention_lstm_meta, cpu=cpu_fused.attention_lstm_out),
    inputs=[
        "X",
        "C0",
        "H0?",
        "AttentionWeight",
        "AttentionBias?",
        "AttentionScalar?",
        "AttentionScalarBias?",
        "LSTMWeight",
        "LSTMBias",
    ],
    outputs=["Hidden", "Cell", "AttentionedX", "AttentionFCOut", "LSTMX", "LSTMOUT"],
    attrs={k: v for k, v in _LSTM_ATTRS.items() if k.endswith("activation")},
    infer=_infer_attention,
    needs_lod=True,
    doc="Per step of each sequence of X [T, M]: scores = relu(X AttentionWeight[:M] + AttentionBias + "
    "c' . AttentionWeight[M:]) over the sequence's rows (then, with AttentionScalar, relu(scores * "
    "scalar + AttentionScalarBias)), softmax over them, x_t = their weighted sum of the rows [1, M]; "
    "then an LSTM step of gates (forget, input, output, candidate) = [h', x_t] LSTMWeight + LSTMBias: "
    "c = f c' + i cand, h = o cell(c); states from C0 (and H0, else zero). AttentionedX [T, 1] is X "
    "AttentionWeight[:M] + AttentionBias; AttentionFCOut, LSTMX and LSTMOUT hold what Fluid's kernel "
    "leaves in them: the last step's scores, x_t and gates buffer.",
)
