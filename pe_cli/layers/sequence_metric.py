"""Metric layers over tag and token sequences: chunk_eval (chunk precision / recall / F1 of tagged
sequences) and edit_distance (Levenshtein distance per sequence pair, its ignored_tokens dropped by
the sequence_erase op first). Their outputs carry no gradient."""

__all__ = ["chunk_eval", "edit_distance"]
from ..base.errors import PeError
from .helper import LayerHelper
from .checks import fluid_checks


@fluid_checks("chunk_eval", input=("int64",), label=("int64",))
def chunk_eval(input, label, chunk_scheme, num_chunk_types, excluded_chunk_types=None, seq_length=None):
    """Chunk precision, recall and F1 of predicted tags ``input`` against ``label`` (int64 [N, 1]
    LoD sequences, or padded [B, T] with ``seq_length``), tags encoded by ``chunk_scheme`` (IOB,
    IOE, IOBES or plain) over ``num_chunk_types`` types. Returns (precision, recall, f1_score,
    num_infer_chunks, num_label_chunks, num_correct_chunks): float32 [1] x 3, int64 [1] x 3."""
    helper = LayerHelper("chunk_eval", input=input)
    outs = [helper.create_variable_for_type_inference(d, stop_gradient=True) for d in ("float32",) * 3 + ("int64",) * 3]
    inputs = {"Inference": [input], "Label": [label]}
    if seq_length is not None:
        inputs["SeqLength"] = [seq_length]
    slots = ("Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks", "NumCorrectChunks")
    helper.append_op(
        "chunk_eval",
        inputs,
        {s: [v] for s, v in zip(slots, outs)},
        {
            "num_chunk_types": num_chunk_types,
            "chunk_scheme": chunk_scheme,
            "excluded_chunk_types": list(excluded_chunk_types or []),
        },
    )
    return tuple(outs)


@fluid_checks("edit_distance", input=("int64",), label=("int64",))
def edit_distance(input, label, normalized=True, ignored_tokens=None, input_length=None, label_length=None):
    """Levenshtein distance between each hypothesis sequence of ``input`` and the reference of
    ``label`` (int64 LoD sequences, or padded [B, T] with ``input_length`` and ``label_length``),
    divided by the reference's length when ``normalized``; tokens in ``ignored_tokens`` are dropped
    first (LoD input). Returns (distances float32 [num_sequences, 1], sequence count int64 [1])."""
    helper = LayerHelper("edit_distance", input=input)
    if ignored_tokens:
        if input_length is not None or label_length is not None:
            raise PeError(
                f"edit_distance '{helper.name}': ignored_tokens works on LoD input; for padded input "
                f"drop those tokens before padding"
            )
        input, label = (_erase(helper, v, ignored_tokens) for v in (input, label))
    out = helper.create_variable_for_type_inference("float32", stop_gradient=True)
    seq_num = helper.create_variable_for_type_inference("int64", stop_gradient=True)
    inputs = {"Hyps": [input], "Refs": [label]}
    if input_length is not None:
        inputs["HypsLength"] = [input_length]
    if label_length is not None:
        inputs["RefsLength"] = [label_length]
    helper.append_op("edit_distance", inputs, {"Out": [out], "SequenceNum": [seq_num]}, {"normalized": normalized})
    return out, seq_num


def _erase(helper, x, tokens):
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("sequence_erase", {"X": [x]}, {"Out": [out]}, {"tokens": [int(t) for t in tokens]})
    return out
