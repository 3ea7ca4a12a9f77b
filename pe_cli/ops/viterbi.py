"""viterbi_decode (paddle.text.viterbi_decode, ViterbiDecoder): the best tag path of each sequence of
emission scores Input [B, T, tags] under Transition [tags, tags] (from row tag to column tag), over its first
Length[b] steps; with include_bos_eos_tag the last tag is the start tag and the one before it the stop tag, their
transitions added at the ends. Scores [B] the best paths' scores, Path [B, max(Length)] int64 (0 past a sequence's length)."""

from ..kernels.cpu import viterbi as cpu_viterbi
from ..shapes.structured_prediction import viterbi_decode_meta
from .define import Attr, Structured, fmt_shape, register
from .pointwise_math import QUANT


def _infer(ctx):
    x, t, n = ctx.shape("Input"), ctx.shape("Transition"), ctx.shape("Length")
    if len(x) != 3 or len(t) != 2 or len(n) != 1 or (x[2] >= 0 and list(t) != [x[2], x[2]]):
        ctx.fail(
            f"Input {fmt_shape(x)} must be [B, T, tags], Transition {fmt_shape(t)} [tags, tags] and Length "
            f"{fmt_shape(n)} [B]"
        )
    ctx.set_output("Scores", [x[0]], ctx.dtype("Input"))
    ctx.set_output("Path", [x[0], -1], "int64")


register(
    "viterbi_decode",
    kernel_module="viterbi",
    structured=Structured(meta=viterbi_decode_meta, cpu=cpu_viterbi.VITERBI_DECODE),
    inputs=["Input", "Transition", "Length"],
    outputs=["Scores", "Path"],
    attrs={"include_bos_eos_tag": Attr(True, choices=(True, False)), **QUANT},
    infer=_infer,
    lod="drop",
    doc="Scores, Path = the best tag sequence of each batch row over its Length steps (first index on ties).",
)
