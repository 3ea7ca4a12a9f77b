"""Metric ops over tag and token sequences: chunk_eval (chunk precision / recall / F1 of tagged
sequences, as Fluid's) and edit_distance (Levenshtein distance per sequence pair; its ignored_tokens
go through sequence_erase, ops/sequence_rows.py). Neither has a gradient. Sequences come from the
LoD, or padded [B, T] with lengths as Fluid 1.6+ allows."""

from ..kernels.cpu import sequence_metric as cpu_metric
from ..shapes import sequence_metric as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, int_list, is_int, register

CHUNK_SCHEMES = ("IOB", "IOE", "IOBES", "plain")


# int ids, and their LoD unless padded with lengths: checked when the op runs (run_dtypes, run_lod), as
# Fluid's kernels check them
IDS = ("int64", "int32")


def check_seq(ctx, slot, length_slot):
    var = ctx.input_var(slot)
    shape = var.shape
    if ctx.has_input(length_slot):
        if shape is None or len(shape) not in (2, 3) or (len(shape) == 3 and shape[2] not in (1, -1)):
            ctx.fail(f"{slot} {fmt_shape(shape)} must be [B, T] or [B, T, 1] (padded, with {length_slot})")
    elif shape is None or not (len(shape) == 1 or (len(shape) == 2 and shape[1] in (1, -1))):
        ctx.fail(f"{slot} {fmt_shape(shape)} must be [N, 1]: one id per step")
    return var


def _infer_chunk(ctx):
    check_seq(ctx, "Inference", "SeqLength")
    check_seq(ctx, "Label", "SeqLength")
    for slot in ("Precision", "Recall", "F1-Score"):
        ctx.set_output(slot, [1], "float32", lod_level=0)
    for slot in ("NumInferChunks", "NumLabelChunks", "NumCorrectChunks"):
        ctx.set_output(slot, [1], "int64", lod_level=0)


register(
    "chunk_eval",
    kernel_module="sequence_metric",
    structured=Structured(meta=metas.chunk_eval_meta, cpu=cpu_metric.chunk_eval),
    inputs=["Inference", "Label", "SeqLength?"],
    outputs=["Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks", "NumCorrectChunks"],
    attrs={
        "num_chunk_types": Attr(1, lambda v: is_int(v) and v >= 1, "an int >= 1"),
        "chunk_scheme": Attr("IOB", choices=CHUNK_SCHEMES),
        "excluded_chunk_types": Attr([], int_list, "a list of ints"),
    },
    infer=_infer_chunk,
    lod="drop",
    needs_lod=True,
    run_dtypes={"Inference": IDS, "Label": IDS},
    run_lod={"Inference": "SeqLength", "Label": "SeqLength"},
    doc="Chunks of the predicted and the true tags of each sequence (tag id = chunk type * tag kinds + "
    "tag kind, kinds per scheme: IOB B,I; IOE I,E; IOBES B,I,E,S; plain one; num_chunk_types * kinds "
    "is 'outside'), compared: a chunk is correct when its begin, end and type all match. "
    "Precision = correct / predicted, Recall = correct / true, F1 = 2PR / (P + R) (0 when nothing is "
    "correct); chunks of excluded_chunk_types are not counted. The counts are int64.",
)


def _infer_edit(ctx):
    hyps = check_seq(ctx, "Hyps", "HypsLength")
    check_seq(ctx, "Refs", "RefsLength")
    if ctx.has_input("HypsLength") != ctx.has_input("RefsLength"):
        ctx.fail("give both HypsLength and RefsLength (padded input), or neither (LoD input)")
    rows = hyps.shape[0] if ctx.has_input("HypsLength") and hyps.shape else -1
    ctx.set_output("Out", [rows, 1], "float32", lod_level=0)
    ctx.set_output("SequenceNum", [1], "int64", lod_level=0)


register(
    "edit_distance",
    kernel_module="sequence_metric",
    structured=Structured(meta=metas.edit_distance_meta, cpu=cpu_metric.edit_distance),
    inputs=["Hyps", "Refs", "HypsLength?", "RefsLength?"],
    outputs=["Out", "SequenceNum"],
    attrs={"normalized": False},
    infer=_infer_edit,
    lod="drop",
    needs_lod=True,
    run_dtypes={"Hyps": IDS, "Refs": IDS},
    run_lod={"Hyps": "HypsLength", "Refs": "RefsLength"},
    doc="Out[i] = the Levenshtein distance (insertions, deletions, substitutions, each 1) between "
    "hypothesis i and reference i, divided by the reference's length when normalized (which then "
    "must not be empty); float32 [num_sequences, 1]. SequenceNum = num_sequences (int64 [1]).",
)
