"""The meta rules of the structured-prediction ops (ops/crf.py, ops/ctc.py, ops/viterbi.py): linear_chain_crf,
crf_decoding, viterbi_decode,
ctc_align, warpctc and their gradients. Their out-kernels find the sequences from the call's LoD or the Length
tensors' values and hand over the arrays their numba and numpy passes make (``fresh`` variants,
kernels/structured.fresh_outputs); a length of one row per sequence is -1 where a LoD gives the sequences (and
ctc_align's Output, whose rows its values decide)."""

import numpy as np

from .structured import Meta

_INT64 = np.dtype(np.int64)


def _fresh(outputs):
    return Meta(outputs, "fresh", fresh=True)


def _spec(value):
    return tuple(value.shape), np.dtype(value.dtype)


def _sequences(ins, length_slot, batch_dim=0):
    """One row per sequence: the batch where ``length_slot`` gives lengths of padded input, else -1 (the LoD's)."""
    x = ins[length_slot] if ins.get(length_slot) is not None else None
    return -1 if x is None else int(np.prod(x.shape, dtype=np.int64))


def crf_meta(attrs, ins, facts):
    """linear_chain_crf: Alpha and EmissionExps of Emission's shape and dtype, TransitionExps Transition's,
    LogLikelihood [sequences, 1]."""
    x = ins["Emission"]
    return _fresh(
        {
            "Alpha": _spec(x),
            "EmissionExps": _spec(x),
            "TransitionExps": _spec(ins["Transition"]),
            "LogLikelihood": ((_sequences(ins, "Length"), 1), np.dtype(x.dtype)),
        }
    )


def crf_grad_meta(attrs, ins, facts):
    """linear_chain_crf_grad: Emission@GRAD of Alpha's shape and dtype, Transition@GRAD TransitionExps'."""
    return _fresh({"Emission@GRAD": _spec(ins["Alpha"]), "Transition@GRAD": _spec(ins["TransitionExps"])})


def crf_decoding_meta(attrs, ins, facts):
    """crf_decoding: ViterbiPath (int64) [B, T] of padded Emission with Length, else a row per step [rows, 1]."""
    x = ins["Emission"]
    shape = tuple(x.shape[:2]) if ins.get("Length") is not None else (x.shape[0], 1)
    return _fresh({"ViterbiPath": (shape, _INT64)})


def ctc_align_meta(attrs, ins, facts):
    """ctc_align: padded ids with InputLength, Output [N, T] and OutputLength [N, 1] (int64); a LoD's sequences,
    Output [kept, 1] (-1: the values decide; its LoD the out-kernel's)."""
    x = ins["Input"]
    dtype = np.dtype(x.dtype)
    if ins.get("InputLength") is not None:
        return _fresh({"Output": (tuple(x.shape), dtype), "OutputLength": ((x.shape[0], 1), _INT64)})
    return _fresh({"Output": ((-1, 1), dtype)})


def warpctc_meta(attrs, ins, facts):
    """warpctc: WarpCTCGrad of Logits' shape and dtype, Loss [sequences, 1]."""
    logits = ins["Logits"]
    return _fresh(
        {"WarpCTCGrad": _spec(logits), "Loss": ((_sequences(ins, "LogitsLength"), 1), np.dtype(logits.dtype))}
    )


def warpctc_grad_meta(attrs, ins, facts):
    """warpctc_grad: Logits@GRAD of WarpCTCGrad's shape and dtype."""
    return _fresh({"Logits@GRAD": _spec(ins["WarpCTCGrad"])})


def viterbi_decode_meta(attrs, ins, facts):
    """viterbi_decode: Scores [B] of Input's dtype, Path int64 [B, the longest Length] (-1: the values give it)."""
    x = ins["Input"]
    batch = tuple(x.shape)[:1] or (-1,)  # (an Input of no dims: the out-kernel's error)
    return _fresh({"Scores": (batch, np.dtype(x.dtype)), "Path": (batch + (-1,), _INT64)})
