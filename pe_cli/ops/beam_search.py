"""Beam search for sequence generation (Fluid's ``beam_search`` and ``beam_search_decode``). A step's
candidates carry a 2-level LoD: level 0 groups the prefixes (branches) of each source sentence, level 1
the candidates each prefix extends into."""

from ..kernels.cpu import beam_search as cpu_beam
from ..shapes import beam_search as metas
from ..shapes.structured import Structured
from .define import Attr, fmt_shape, is_int, register

_BEAM = Attr(1, lambda v: is_int(v) and v > 0, "an int > 0")


def _infer_beam_search(ctx):
    ctx.set_output("selected_ids", [-1, 1], "int64", lod_level=2)
    ctx.set_output("selected_scores", [-1, 1], ctx.dtype("scores"), lod_level=2)
    ctx.set_output("parent_idx", [-1], "int32")


register(
    "beam_search",
    structured=Structured(meta=metas.beam_search_meta, cpu=cpu_beam.beam_search_out),
    kernel_module="beam_search",
    lod="drop",
    needs_lod=True,
    inputs=["pre_ids", "pre_scores", "ids?", "scores"],
    outputs=["selected_ids", "selected_scores", "parent_idx?"],
    attrs={"level": 0, "beam_size": _BEAM, "end_id": 0, "is_accumulated": True},
    infer=_infer_beam_search,
    doc="One step of beam search: for each source (scores' LoD level `level`), the beam_size best "
    "(id, score) candidates over its prefixes (a prefix whose pre_id is end_id offers only (end_id, "
    "pre_score)); scores are accumulated, or pre_score + log(scores) when is_accumulated is false. "
    "A source whose prefixes all ended and chose end_id again is pruned. Outputs are grouped by "
    "prefix (LoD [sources' prefixes, each prefix's selections]); parent_idx: each one's prefix row.",
)


def _infer_decode(ctx):
    ctx.set_output("SentenceIds", [-1], "int64", lod_level=2)
    ctx.set_output("SentenceScores", [-1], ctx.dtype("Scores"), lod_level=2)


register(
    "beam_search_decode",
    structured=Structured(meta=metas.beam_search_decode_meta, cpu=cpu_beam.beam_search_decode_out),
    kernel_module="beam_search",
    lod="drop",
    inputs=["Ids", "Scores"],
    outputs=["SentenceIds", "SentenceScores"],
    attrs={"beam_size": _BEAM, "end_id": 0},
    infer=_infer_decode,
    doc="The sentences of a beam search, back-traced through the arrays of each step's selected ids "
    "and scores: per source, its hypotheses best first (by their last score), each from its first "
    "word (LoD [sources' sentences, sentences' words]).",
)


def _infer_gather_tree(ctx):
    ids, parents = ctx.shape("Ids"), ctx.shape("Parents")
    if len(ids) != 3 or len(parents) != 3 or any(a != b and a >= 0 and b >= 0 for a, b in zip(ids, parents)):
        ctx.fail(f"Ids {fmt_shape(ids)} and Parents {fmt_shape(parents)} must both be [max_time, batch, beam]")
    ctx.set_output("Out", ids, ctx.dtype("Ids"))


register(
    "gather_tree",
    structured=Structured(meta=metas.gather_tree_meta, cpu=cpu_beam.gather_tree),
    kernel_module="beam_search",
    lod="drop",
    inputs=["Ids", "Parents"],
    outputs=["Out"],
    run_dtypes={"Ids": ("int32", "int64"), "Parents": ("int32", "int64")},
    infer=_infer_gather_tree,
    doc="The full sequences of a beam search from each step's selected ids and their parent beams "
    "([max_time, batch, beam] each): Out[T-1] = Ids[T-1], and going back, Out[t, b, k] = "
    "Ids[t, b, p] where p is the parent that beam k's path took at step t + 1.",
)


def _fits(shape, like):
    """Same rank, and equal dims where both are known."""
    return len(shape) == len(like) and all(a == b or a < 0 or b < 0 for a, b in zip(shape, like))


def _infer_beam_log_probs(ctx):
    logits, finished, noend, pre = (ctx.shape(s) for s in ("Logits", "Finished", "NoEnd", "PreScores"))
    if len(logits) != 3 or not _fits(finished, logits[:2]) or not _fits(pre, logits[:2]):
        ctx.fail(
            f"Logits {fmt_shape(logits)} must be [batch, beam, vocabulary], Finished {fmt_shape(finished)} "
            f"and PreScores {fmt_shape(pre)} [batch, beam]"
        )
    if not _fits(noend, logits[2:]):
        ctx.fail(f"NoEnd {fmt_shape(noend)} must be [vocabulary], as Logits {fmt_shape(logits)}'s last dim")
    if (
        ctx.dtype("Logits") not in ("float32", "float64")
        or ctx.dtype("NoEnd") != ctx.dtype("Logits")
        or ctx.dtype("PreScores") != ctx.dtype("Logits")
    ):
        ctx.fail(
            f"Logits ({ctx.dtype('Logits')}), NoEnd ({ctx.dtype('NoEnd')}) and PreScores "
            f"({ctx.dtype('PreScores')}) must be one float dtype"
        )
    if ctx.dtype("Finished") != "bool":
        ctx.fail(f"Finished is {ctx.dtype('Finished')}; it flags the finished beams (bool)")
    ctx.set_output("Out", logits, ctx.dtype("Logits"))


register(
    "beam_log_probs",
    structured=Structured(meta=metas.beam_log_probs_meta, cpu=cpu_beam.beam_log_probs_out),
    kernel_module="beam_search",
    inputs=["Logits", "Finished", "NoEnd", "PreScores"],
    outputs=["Out"],
    infer=_infer_beam_log_probs,
    doc="A beam search step's scores of every (beam, word) (BeamSearchDecoder's): Out[b, k] = "
    "log_softmax(Logits[b, k]) + PreScores[b, k], or NoEnd + PreScores[b, k] where Finished[b, k] "
    "(NoEnd: 0 at the end token, -inf-like elsewhere, so a finished beam only ends again). The "
    "numbers of log_softmax, where and elementwise_add (axis 0) in one pass over the vocabulary. "
    "No gradient (a decoding op).",
)


def _infer_sampling_id(ctx):
    x = ctx.shape("X")
    if len(x) != 2:
        ctx.fail(f"X {fmt_shape(x)} must be [batch, classes]: each row the probabilities to draw an id from")
    if ctx.dtype("X") not in ("float32", "float64"):
        ctx.fail(f"X is {ctx.dtype('X')}; it holds probabilities (float32 or float64)")
    ctx.set_output("Out", [x[0]], "int64")


register(
    "sampling_id",
    structured=Structured(meta=metas.sampling_id_meta, cpu=cpu_beam.sampling_id_out),
    kernel_module="beam_search",
    lod="drop",
    needs_rng=True,
    inputs=["X"],
    outputs=["Out"],
    attrs={"min": 0.0, "max": 1.0, "seed": 0},
    infer=_infer_sampling_id,
    doc="One id per row of X (probabilities): draws r ~ U[min, max) and takes the first j whose "
    "cumulative probability X[0] + ... + X[j] exceeds r (the last id when none does). No gradient.",
)
