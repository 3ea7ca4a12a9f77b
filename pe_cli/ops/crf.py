"""Linear-chain CRF ops (Fluid's linear_chain_crf and crf_decoding). Transition is [D + 2, D]: row 0
the start weights, row 1 the end weights, rows 2.. the tag-to-tag weights. Sequences come from the
LoD (Emission [N, D], Label [N, 1]), or from a Length input over padded batches (Emission [B, T, D],
Label [B, T] or [B, T, 1], Length [B] or [B, 1]) as Fluid 1.6+ allows."""

from ..kernels.cpu import crf as cpu_crf
from ..shapes import structured_prediction as metas
from ..shapes.structured import Structured
from .define import fmt_shape, register


def _known(d):
    return d is not None and d >= 0


def _check_emission(ctx, op_name):
    """The tag count D, after checking Emission against Transition and the sequence mode (a sequence
    Emission's LoD, or its Label's, is the kernels' to check when the op runs, as Fluid's)."""
    em, tr = ctx.input_var("Emission"), ctx.shape("Transition")
    padded = ctx.has_input("Length")
    rank = 3 if padded else 2
    if em.shape is None or len(em.shape) != rank:
        how = "[B, T, D] (padded, with Length)" if padded else "[N, D] (a sequence of N steps over D tags)"
        ctx.fail(f"Emission {fmt_shape(em.shape)} must be {how}")
    d = em.shape[-1]
    if tr is None or len(tr) != 2 or (_known(d) and any(t >= 0 and t != want for t, want in zip(tr, (d + 2, d)))):
        ctx.fail(
            f"Transition {fmt_shape(tr)} must be [D + 2, D] = [{d + 2}, {d}] for Emission "
            f"{fmt_shape(em.shape)} (start row, end row, then one row per tag)"
        )
    return em, padded


def _check_label(ctx, em, padded, slot="Label"):
    lab = ctx.input_var(slot)
    shape = lab.shape
    if padded:
        ok = shape is not None and len(shape) in (2, 3) and (len(shape) == 2 or shape[2] == 1)
        want = "[B, T] or [B, T, 1]"
    else:
        ok = shape is not None and (len(shape) == 1 or (len(shape) == 2 and shape[1] in (1, -1)))
        want = "[N, 1]"
    if not ok:
        ctx.fail(f"{slot} {fmt_shape(shape)} must be {want}: one tag id per step of Emission {fmt_shape(em.shape)}")


def _infer_crf(ctx):
    em, padded = _check_emission(ctx, "linear_chain_crf")
    _check_label(ctx, em, padded)
    lod_level = 0 if padded else 1
    ctx.set_output("Alpha", em.shape, em.dtype, lod_level=lod_level)
    ctx.set_output("EmissionExps", em.shape, em.dtype, lod_level=lod_level)
    ctx.set_output("TransitionExps", ctx.shape("Transition"), em.dtype, lod_level=0)
    ctx.set_output("LogLikelihood", [em.shape[0] if padded else -1, 1], em.dtype, lod_level=0)


def _crf_lod(in_lods, attrs):
    lod = in_lods.get("Emission") or in_lods.get("Label")
    return {"Alpha": lod, "EmissionExps": lod} if lod else {}


def _grad_crf(g):
    ins = {s: g.output(s) for s in ("Alpha", "EmissionExps", "TransitionExps")}
    ins.update(
        {
            "Emission": g.input("Emission"),
            "Transition": g.input("Transition"),
            "Label": g.input("Label"),
            "LogLikelihood@GRAD": g.out_grad("LogLikelihood"),
        }
    )  # (Emission, Transition: Fluid's, unread)
    if g.input("Length"):
        ins["Length"] = g.input("Length")
    g.op(
        "linear_chain_crf_grad",
        ins,
        {"Emission@GRAD": g.in_grad("Emission"), "Transition@GRAD": g.in_grad("Transition")},
        g.attrs,
    )


def _infer_crf_grad(ctx):
    for out, like in (("Emission@GRAD", "EmissionExps"), ("Transition@GRAD", "TransitionExps")):
        var = ctx.input_var(like)
        ctx.set_output(out, var.shape, var.dtype)


register(
    "linear_chain_crf",
    kernel_module="crf",
    structured=Structured(meta=metas.crf_meta, cpu=cpu_crf.linear_chain_crf),
    inputs=["Emission", "Transition", "Label", "Length?"],
    outputs=["Alpha", "EmissionExps", "TransitionExps", "LogLikelihood"],
    infer=_infer_crf,
    grad=_grad_crf,
    grad_reads=("Alpha", "Emission", "EmissionExps", "Transition", "TransitionExps", "Label", "Length"),
    lod=_crf_lod,
    needs_lod=True,
    run_dtypes={"Label": ("int64", "int32")},
    doc="Per sequence, the negative log-likelihood -log p(Label | Emission) of a linear-chain CRF: "
    "log Z (forward recursion over Alpha, each row normalized to sum 1) minus the score of the "
    "label path (start + emissions + transitions + end). EmissionExps = exp(Emission - row max), "
    "TransitionExps = exp(Transition). An empty sequence costs 0.",
)
register(
    "linear_chain_crf_grad",
    kernel_module="crf",
    structured=Structured(meta=metas.crf_grad_meta, cpu=cpu_crf.linear_chain_crf_grad),
    inputs=[
        "Emission?",
        "Transition?",
        "Alpha",
        "EmissionExps",
        "TransitionExps",
        "Label",
        "Length?",
        "LogLikelihood@GRAD",
    ],
    no_need_buffer=("Emission", "Transition"),
    outputs=["Emission@GRAD?", "Transition@GRAD?"],
    infer=_infer_crf_grad,
    lod="drop",
    needs_lod=True,
)


def _infer_decoding(ctx):
    em, padded = _check_emission(ctx, "crf_decoding")
    if ctx.has_input("Label"):
        _check_label(ctx, em, padded)
    if padded:
        ctx.set_output("ViterbiPath", list(em.shape[:2]), "int64", lod_level=0)
    else:
        ctx.set_output("ViterbiPath", [em.shape[0], 1], "int64", lod_level=em.lod_level)


def _decoding_lod(in_lods, attrs):
    lod = in_lods.get("Emission")
    return {"ViterbiPath": lod} if lod else {}


register(
    "crf_decoding",
    kernel_module="crf",
    structured=Structured(meta=metas.crf_decoding_meta, cpu=cpu_crf.crf_decoding),
    inputs=["Emission", "Transition", "Label?", "Length?"],
    outputs=["ViterbiPath"],
    infer=_infer_decoding,
    lod=_decoding_lod,
    needs_lod=True,
    run_dtypes={"Label": ("int64", "int32")},
    doc="The highest-scoring tag path of each sequence (Viterbi over start, emission, transition and "
    "end scores; ties keep the lowest tag). With Label: 1 where the path equals the label, else 0. "
    "Padded input (Length) gives [B, T] with 0 past each length.",
)
