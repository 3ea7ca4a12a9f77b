"""Sequence ops fused with their neighbours, as Fluid 1.8's CPU inference passes (and its contrib
layer fused_embedding_seq_pool) make them: fused_embedding_seq_pool (an embedding summed over each
sequence, with its gradient), fusion_seqpool_concat and fusion_seqpool_cvm_concat (sequence_pool of
several inputs joined along the columns; the cvm form takes log(x + 1) of each input's first two
columns), fusion_seqconv_eltadd_relu (relu(sequence_conv + bias), its im2col matrix ColMat built as
Fluid's kernel builds it) and fusion_seqexpand_concat_fc (an fc of X[0] joined with the other inputs'
one row per sequence, expanded). Fluid has CPU kernels only; pe's CUDA kernels run the CPU ones on
the host, as Fluid falls back to its CPU kernel on a GPU place."""

from ..base.dtypes import VarType
from ..kernels.cpu import sequence_fused as cpu
from ..shapes import sequence_fused as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, register

_POOL = ("AVERAGE", "SUM", "SQRT")
_ACTS = ("sigmoid", "tanh", "relu", "identity")


def _ids_width(ids):
    n = 1
    for d in ids[1:]:
        n *= d
    return n


def _infer_emb(ctx):
    w, ids = ctx.shape("W"), ctx.shape("Ids")
    if w is None or len(w) != 2:
        ctx.fail(f"W {fmt_shape(w)} must be 2-D [vocab_size, emb_dim]")
    if not ids or ids[-1] != 1:
        ctx.fail(f"Ids {fmt_shape(ids)} must end in a dimension of 1 (Fluid's ids layout)")
    width = _ids_width(ids)
    ctx.set_output("Out", [-1, -1 if width < 0 else w[1] * width], ctx.dtype("W"), lod_level=0)


def _grad_emb(g):
    g.op(
        "fused_embedding_seq_pool_grad",
        {"W": g.input("W"), "Ids": g.input("Ids"), "Out@GRAD": g.out_grad("Out")},
        {"W@GRAD": g.in_grad("W")},
        g.attrs,
    )


def _infer_emb_grad(ctx):
    w = ctx.input_var("W")
    ctx.set_output(
        "W@GRAD", w.shape, w.dtype, var_type=VarType.SELECTED_ROWS if ctx.attrs["is_sparse"] else VarType.LOD_TENSOR
    )


_EMB_ATTRS = {
    "combiner": Attr("sum", choices=("sum",)),
    "padding_idx": Attr(-1, long=True),
    "grad_inplace": False,
    "is_sparse": False,
    "@ALL_KERNELS_MUST_COMPUTE_RUNTIME_SHAPE@": True,
}
register(
    "fused_embedding_seq_pool",
    kernel_module="sequence_fused",
    structured=Structured(meta=metas.embedding_seq_pool_meta, cpu=cpu.fused_embedding_seq_pool_out),
    inputs=["W", "Ids"],
    outputs=["Out"],
    attrs=_EMB_ATTRS,
    infer=_infer_emb,
    grad=_grad_emb,
    grad_reads=("W", "Ids"),
    lod="drop",
    needs_lod=True,
    run_dtypes={"Ids": ("int64", "int32")},
    doc="Ids [T, k, ..., 1] (one LoD level): Out [N, k * emb_dim], row n the sum over sequence n's rows of "
    "W[ids] for each of the k id columns side by side; ids equal to padding_idx add nothing. The "
    "gradient of W is dense, or with is_sparse a SelectedRows of every id (padding_idx's too, as "
    "Fluid's) and its sequence's rows of Out@GRAD.",
)
register(
    "fused_embedding_seq_pool_grad",
    kernel_module="sequence_fused",
    structured=Structured(meta=metas.embedding_seq_pool_grad_meta, cpu=cpu.fused_embedding_seq_pool_grad_out),
    inputs=["W", "Ids", "Out@GRAD"],
    outputs=["W@GRAD"],
    attrs=_EMB_ATTRS,
    infer=_infer_emb_grad,
    lod="drop",
    needs_lod=True,
)


def _infer_pool_concat(ctx):
    xs = ctx.shapes("X")
    if not xs or any(s is None or len(s) != 2 for s in xs):
        ctx.fail(f"X must be one or more 2-D LoDTensors [T, w], got {[fmt_shape(s) for s in xs]}")
    if ctx.attrs["axis"] != 1:
        ctx.fail(f"axis={ctx.attrs['axis']}: Fluid joins the pooled rows along axis 1 only")
    width = xs[0][1]
    ctx.set_output("Out", [-1, -1 if width < 0 else width * len(xs)], ctx.dtype("X"), lod_level=1)


def _one_row_per_sequence(in_lods, attrs):
    lods = in_lods.get("X") or []
    offs = lods[0][-1] if lods and lods[0] else None
    return {} if offs is None else {"Out": [list(range(len(offs)))]}


_POOL_ATTRS = {"pooltype": Attr("SUM", choices=_POOL), "axis": 1}
register(
    "fusion_seqpool_concat",
    kernel_module="sequence_fused",
    structured=Structured(meta=metas.seqpool_concat_meta, cpu=cpu.fusion_seqpool_concat_out),
    inputs=["X*"],
    outputs=["Out"],
    attrs=_POOL_ATTRS,
    infer=_infer_pool_concat,
    lod=_one_row_per_sequence,
    needs_lod=True,
    doc="Each X[i] [T_i, w] pooled over its sequences (SUM, AVERAGE: the sum / length, SQRT: the sum / "
    "sqrt(length); an empty sequence: 0, or NaN where divided by 0, as Fluid's), the pooled rows joined "
    "along the columns: Out [N, w * len(X)], one sequence per row.",
)


def _infer_cvm(ctx):
    if not ctx.attrs["use_cvm"]:
        ctx.fail("use_cvm=False: Fluid's fusion_seqpool_cvm_concat supports use_cvm=True only")
    _infer_pool_concat(ctx)


register(
    "fusion_seqpool_cvm_concat",
    kernel_module="sequence_fused",
    structured=Structured(meta=metas.seqpool_concat_meta, cpu=cpu.fusion_seqpool_cvm_concat_out),
    inputs=["X*", "CVM"],
    outputs=["Out"],
    attrs={**_POOL_ATTRS, "use_cvm": True},
    infer=_infer_cvm,
    lod=_one_row_per_sequence,
    needs_lod=True,
    doc="fusion_seqpool_concat, each pooled row's first two columns then replaced by log(show + 1) and "
    "log(click + 1) - log(show + 1) (cvm's form; the CVM input is not read, as in Fluid).",
)


def _infer_seqconv(ctx):
    x, w = ctx.shape("X"), ctx.shape("Filter")
    length, start = ctx.attrs["contextLength"], ctx.attrs["contextStart"]
    if length is None:
        ctx.fail("needs the attribute contextLength (the window's rows), which Fluid's op requires")
    if ctx.attrs["contextStride"] != 1:
        ctx.fail(f"contextStride={ctx.attrs['contextStride']}: Fluid supports a stride of 1 only")
    if x is None or w is None or len(x) != 2 or len(w) != 2 or -1 not in (x[1],) and w[0] != length * x[1]:
        ctx.fail(
            f"X {fmt_shape(x)} must be [T, M] and Filter {fmt_shape(w)} [contextLength * M, N] = "
            f"[{length} * {x[1] if x else '?'}, N]"
        )
    if length + start <= 0:
        ctx.fail(f"contextLength + contextStart = {length + start} must be > 0")
    ctx.set_output("Out", [x[0], w[1]], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("ColMat", [x[0], w[0]], ctx.dtype("X"))


register(
    "fusion_seqconv_eltadd_relu",
    kernel_module="sequence_fused",
    structured=Structured(meta=metas.seqconv_eltadd_relu_meta, cpu=cpu.fusion_seqconv_eltadd_relu_out),
    inputs=["X", "Filter", "Bias"],
    outputs=["Out", "ColMat"],
    attrs={"contextLength": Attr(None), "contextStart": 0, "contextStride": 1},
    infer=_infer_seqconv,
    needs_lod=True,
    doc="Out = relu(ColMat Filter + Bias): ColMat [T, contextLength * M] holds each step's context window "
    "of its sequence's rows, zeros outside it, as Fluid's kernel copies them (for contextStart <= 0 "
    "the rows from step + contextStart; for contextStart 1 Fluid's windows start at the step itself "
    "and never reach the sequence's last row, and pe's follow; above 1 Fluid's kernel copies outside "
    "its buffers, and pe refuses).",
)


def _infer_seqexpand(ctx):
    xs, w = ctx.shapes("X"), ctx.shape("FCWeight")
    if len(xs) < 2:
        ctx.fail(f"X takes 2 or more inputs (the sequences, then one row per sequence each), got {len(xs)}")
    if w is None or len(w) != 2:
        ctx.fail(f"FCWeight {fmt_shape(w)} must be 2-D [sum of the inputs' widths, D]")
    widths = [s[1] for s in xs]
    if -1 not in widths and w[0] != -1 and sum(widths) != w[0]:
        ctx.fail(f"FCWeight {fmt_shape(w)} must have {sum(widths)} rows: the inputs' widths {widths} summed")
    ctx.set_output("Out", [xs[0][0], w[1]], ctx.dtype("X"), lod_level=ctx.input_var("X").lod_level)
    ctx.set_output("FCOut", [-1, w[1]], ctx.dtype("X"))


register(
    "fusion_seqexpand_concat_fc",
    kernel_module="sequence_fused",
    structured=Structured(meta=metas.seqexpand_concat_fc_meta, cpu=cpu.fusion_seqexpand_concat_fc_out),
    inputs=["X*", "FCWeight", "FCBias?"],
    outputs=["Out", "FCOut"],
    attrs={"fc_activation": Attr("identity", choices=_ACTS)},
    infer=_infer_seqexpand,
    needs_lod=True,
    doc="Out = fc_activation(concat(X[0], expand(X[1]), ..., expand(X[n])) FCWeight + FCBias): X[0] [T, M0] "
    "the sequences, each other X[i] [N, Mi] one row per sequence, repeated over its steps; FCOut [N, D] "
    "the other inputs' part of the product (sum of X[i] W_i, no bias). Activations are Fluid's CPU "
    "vector ones (sigmoid's input clipped to [-40, 13], tanh as 2 sigmoid(2x) - 1).",
)
