"""Fluid's ``beam_search``, ``beam_search_decode`` and ``sampling_id`` layers (pe_cli/ops/beam_search.py)."""

from ..framework.variable import Variable
from .checks import fluid_checks, optional
from .helper import LayerHelper

__all__ = ["beam_search", "beam_search_decode", "sampling_id"]


@fluid_checks(
    "beam_search",
    pre_ids=("int64",),
    pre_scores=("float32", "float64"),
    ids=optional(Variable),
    scores=("float32", "float64"),
)
def beam_search(
    pre_ids,
    pre_scores,
    ids,
    scores,
    beam_size,
    end_id,
    level=0,
    is_accumulated=True,
    name=None,
    return_parent_idx=False,
):
    """(selected_ids, selected_scores[, parent_idx]) of one decoding step; see the op's doc."""
    helper = LayerHelper("beam_search", name=name)
    selected_ids = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    selected_scores = helper.create_variable_for_type_inference(scores.dtype, stop_gradient=True)
    parent_idx = helper.create_variable_for_type_inference("int32", stop_gradient=True)
    inputs = {"pre_ids": [pre_ids], "pre_scores": [pre_scores], "scores": [scores]}
    if ids is not None:
        inputs["ids"] = [ids]
    helper.append_op(
        "beam_search",
        inputs,
        {"selected_ids": [selected_ids], "selected_scores": [selected_scores], "parent_idx": [parent_idx]},
        {"level": level, "beam_size": beam_size, "end_id": end_id, "is_accumulated": is_accumulated},
    )
    return (selected_ids, selected_scores, parent_idx) if return_parent_idx else (selected_ids, selected_scores)


@fluid_checks("beam_search_decode", ids=("int64",), scores=("float32",))
def beam_search_decode(ids, scores, beam_size, end_id, name=None):
    """(sentence ids, sentence scores) back-traced through the arrays of the steps' selections."""
    helper = LayerHelper("beam_search_decode", name=name)
    sentence_ids = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    sentence_scores = helper.create_variable_for_type_inference(scores.dtype, stop_gradient=True)
    helper.append_op(
        "beam_search_decode",
        {"Ids": [ids], "Scores": [scores]},
        {"SentenceIds": [sentence_ids], "SentenceScores": [sentence_scores]},
        {"beam_size": beam_size, "end_id": end_id},
    )
    return sentence_ids, sentence_scores


def sampling_id(x, min=0.0, max=1.0, seed=0, dtype="float32"):  # noqa: A002 -- Fluid's argument names
    """One id drawn per row of ``x`` ([batch, classes] probabilities); ``seed`` 0: the program's random
    seed. As Fluid 1.8.5's, the ids are int64 whatever ``dtype`` says (its kernel writes int64 into the
    variable it declares ``dtype``: a fetch gives int64 values); no cast follows."""
    helper = LayerHelper("sampling_id", x=x)
    out = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    helper.append_op(
        "sampling_id", {"X": [x]}, {"Out": [out]}, {"min": float(min), "max": float(max), "seed": int(seed)}
    )
    return out
