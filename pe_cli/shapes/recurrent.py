"""The meta rules of the recurrent ops over LoD input and their one-step forms (ops/gru.py, ops/lstm.py): gru,
fusion_gru, lstm and their gradients read the offsets of Input's (X's) last LoD level (``facts.lod``: a structured
step keeps their Meta per signature and LoD), gru_unit and lstm_unit rows alone. Their out-kernels are numpy forms
and numba passes that make their own arrays (``fresh`` variants, kernels/structured.fresh_outputs); the offsets are
the Meta's ``args``."""

import numpy as np

from ..base.errors import PeError
from .sequence import lod_offsets
from .structured import Meta


def check_initial_states(ins, offs, slots=("H0", "C0")):
    """A recurrent op's initial states (H0, C0) must have one row per sequence of Input."""
    for slot in slots:
        state = ins.get(slot)
        if state is not None and state.shape[0] != len(offs) - 1:
            raise PeError(
                f"{slot} has {state.shape[0]} rows but Input holds {len(offs) - 1} sequences: give one "
                f"initial state per sequence"
            )


def _offsets(facts, ins, slot):
    return lod_offsets(facts.lod.get(slot), slot, ins[slot].shape[0])


def _fresh(outputs, *args):
    return Meta(outputs, "fresh", fresh=True, args=args)


def _like(ins, *slots):
    """slot@GRAD -> (shape, dtype) of each given input ``slot``."""
    return {f"{s}@GRAD": (tuple(ins[s].shape), np.dtype(ins[s].dtype)) for s in slots if ins.get(s) is not None}


def gru_meta(attrs, ins, facts):
    """gru: Hidden [T, D] and Fluid's batch-ordered BatchGate [T, 3D], BatchResetHiddenPrev and BatchHidden
    [T, D], in Input's dtype; args: Input's offsets."""
    x = ins["Input"]
    offs = _offsets(facts, ins, "Input")
    check_initial_states(ins, offs)
    t, d, dtype = x.shape[0], ins["Weight"].shape[0], np.dtype(x.dtype)
    outputs = {"Hidden": ((t, d), dtype), "BatchGate": ((t, 3 * d), dtype)}
    outputs.update({s: ((t, d), dtype) for s in ("BatchResetHiddenPrev", "BatchHidden")})
    return _fresh(outputs, offs)


def gru_grad_meta(attrs, ins, facts):
    """gru_grad: the gradients of Input, Weight and Bias and H0 where given (Input's dtype); args: offsets."""
    x = ins["Input"]
    offs = _offsets(facts, ins, "Input")
    check_initial_states(ins, offs)
    dtype = np.dtype(x.dtype)
    return _fresh({k: (shape, dtype) for k, (shape, _) in _like(ins, "Input", "Weight", "Bias", "H0").items()}, offs)


def gru_unit_meta(attrs, ins, facts):
    """gru_unit: Gate [N, 3D], ResetHiddenPrev and Hidden [N, D] in the inputs' result dtype (numpy's)."""
    n, d = ins["HiddenPrev"].shape[0], ins["Weight"].shape[0]
    dtype = np.result_type(*(ins[s].dtype for s in ("Input", "HiddenPrev", "Weight", "Bias") if ins.get(s) is not None))
    return _fresh({"Gate": ((n, 3 * d), dtype), "ResetHiddenPrev": ((n, d), dtype), "Hidden": ((n, d), dtype)})


def gru_unit_grad_meta(attrs, ins, facts):
    """gru_unit_grad: the gradients of Input ([N, 3D], Gate's), HiddenPrev, Weight and Bias where given."""
    given = [ins[s].dtype for s in ("Gate", "ResetHiddenPrev", "HiddenPrev", "Hidden@GRAD", "Weight")]
    dtype = np.result_type(*given)
    outputs = {k: (shape, dtype) for k, (shape, _) in _like(ins, "HiddenPrev", "Weight", "Bias").items()}
    outputs["Input@GRAD"] = (tuple(ins["Gate"].shape), dtype)
    return _fresh(outputs)


def fusion_gru_meta(attrs, ins, facts):
    """fusion_gru: Hidden [T, D], XX and BatchedInput [T, 3D], BatchedOut [T, D] in X's dtype, ReorderedH0 H0's
    rows (its dtype); args: X's offsets."""
    x = ins["X"]
    offs = _offsets(facts, ins, "X")
    check_initial_states(ins, offs, ("H0",))
    t, d, dtype = x.shape[0], ins["WeightH"].shape[0], np.dtype(x.dtype)
    outputs = {"Hidden": ((t, d), dtype), "XX": ((t, 3 * d), dtype), "BatchedInput": ((t, 3 * d), dtype)}
    outputs["BatchedOut"] = ((t, d), dtype)
    if ins.get("H0") is not None:
        outputs["ReorderedH0"] = (tuple(ins["H0"].shape), np.dtype(ins["H0"].dtype))
    return _fresh(outputs, offs)


def lstm_meta(attrs, ins, facts):
    """lstm: Hidden and Cell [T, D], Fluid's batch-ordered BatchGate [T, 4D] and BatchCellPreAct [T, D], in
    Input's dtype; args: Input's offsets."""
    x = ins["Input"]
    offs = _offsets(facts, ins, "Input")
    t, d, dtype = x.shape[0], ins["Weight"].shape[0], np.dtype(x.dtype)
    outputs = {s: ((t, d), dtype) for s in ("Hidden", "Cell", "BatchCellPreAct")}
    outputs["BatchGate"] = ((t, 4 * d), dtype)
    return _fresh(outputs, offs)


def lstm_grad_meta(attrs, ins, facts):
    """lstm_grad: the gradients of Input, Weight and Bias, and of H0 and C0 ([N, D] both) where either is given,
    in Input's dtype; args: Input's offsets."""
    x = ins["Input"]
    offs = _offsets(facts, ins, "Input")
    dtype, d = np.dtype(x.dtype), ins["Weight"].shape[0]
    outputs = {k: (shape, dtype) for k, (shape, _) in _like(ins, "Input", "Weight", "Bias").items()}
    if ins.get("H0") is not None or ins.get("C0") is not None:
        outputs.update({s: ((len(offs) - 1, d), dtype) for s in ("H0@GRAD", "C0@GRAD")})
    return _fresh(outputs, offs)


def lstm_unit_meta(attrs, ins, facts):
    """lstm_unit: C and H [N, D] in X's and C_prev's result dtype."""
    dtype = np.result_type(ins["X"].dtype, ins["C_prev"].dtype)
    shape = tuple(ins["C_prev"].shape)
    return _fresh({"C": (shape, dtype), "H": (shape, dtype)})


def lstm_unit_grad_meta(attrs, ins, facts):
    """lstm_unit_grad: X@GRAD [N, 4D] and C_prev@GRAD [N, D] in the inputs' result dtype."""
    dtype = np.result_type(*(ins[s].dtype for s in ("X", "C_prev", "C", "H@GRAD", "C@GRAD")))
    return _fresh({"X@GRAD": (tuple(ins["X"].shape), dtype), "C_prev@GRAD": (tuple(ins["C_prev"].shape), dtype)})


def lstmp_meta(attrs, ins, facts):
    """lstmp: Projection [T, P], Cell [T, D] and Fluid's batch-ordered BatchGate [T, 4D], BatchCellPreAct and
    BatchHidden [T, D], in Input's dtype; args: Input's offsets."""
    x = ins["Input"]
    offs = _offsets(facts, ins, "Input")
    check_initial_states(ins, offs)
    (d, p), t, dtype = ins["ProjWeight"].shape, x.shape[0], np.dtype(x.dtype)  # (Weight [P, 4D], ProjWeight [D, P])
    outputs = {"Projection": ((t, p), dtype), "BatchGate": ((t, 4 * d), dtype)}
    outputs.update({s: ((t, d), dtype) for s in ("Cell", "BatchCellPreAct", "BatchHidden")})
    return _fresh(outputs, offs)


def lstmp_grad_meta(attrs, ins, facts):
    """lstmp_grad: the gradients of Input, Bias, H0 and C0 (where given) in Input's dtype, of Weight and ProjWeight
    in theirs; args: Input's offsets."""
    x = ins["Input"]
    offs = _offsets(facts, ins, "Input")
    check_initial_states(ins, offs)
    dtype = np.dtype(x.dtype)
    outputs = {k: (shape, dtype) for k, (shape, _) in _like(ins, "Input", "Bias", "H0", "C0").items()}
    return _fresh({**outputs, **_like(ins, "Weight", "ProjWeight")}, offs)


def _fused_lstm(x_dtype, rows, d, ins, offs):
    """fusion_lstm's and fused_embedding_fc_lstm's outputs: Hidden, Cell and their intermediates."""
    dtype = np.dtype(x_dtype)
    outputs = {s: ((rows, 4 * d), dtype) for s in ("XX", "BatchedInput")}
    outputs.update({s: ((rows, d), dtype) for s in ("Hidden", "Cell", "BatchedHidden", "BatchedCell")})
    if ins.get("H0") is not None:  # (Fluid's kernels read C0 with H0 alone)
        outputs["ReorderedH0"] = _spec(ins["H0"])
        if ins.get("C0") is not None:
            outputs["ReorderedC0"] = _spec(ins["C0"])
    return _fresh(outputs, offs)


def _spec(value):
    return tuple(value.shape), np.dtype(value.dtype)


def fusion_lstm_meta(attrs, ins, facts):
    """fusion_lstm: Hidden and Cell [T, D], XX and BatchedInput [T, 4D], BatchedHidden and BatchedCell [T, D] in
    X's dtype, ReorderedH0 and ReorderedC0 the states' rows; args: X's offsets."""
    x = ins["X"]
    return _fused_lstm(x.dtype, x.shape[0], ins["WeightH"].shape[0], ins, _offsets(facts, ins, "X"))


def fused_embedding_fc_lstm_meta(attrs, ins, facts):
    """fused_embedding_fc_lstm: fusion_lstm's outputs over the rows of Embeddings (its dtype) that Ids name."""
    ids = ins["Ids"]
    rows = int(np.prod(ids.shape, dtype=np.int64))
    offs = lod_offsets(facts.lod.get("Ids"), "Ids", rows)
    return _fused_lstm(ins["Embeddings"].dtype, rows, ins["WeightH"].shape[0], ins, offs)


def attention_lstm_meta(attrs, ins, facts):
    """attention_lstm: Hidden and Cell [T, D], AttentionedX [T, 1], AttentionFCOut [longest sequence, 1], LSTMX
    [1, M] and LSTMOUT [1, 4D], in X's dtype; args: X's offsets."""
    x = ins["X"]
    offs = _offsets(facts, ins, "X")
    check_initial_states(ins, offs)
    (t, m), d, dtype = x.shape, ins["LSTMWeight"].shape[1] // 4, np.dtype(x.dtype)
    longest = int(np.diff(offs).max(initial=0))
    outputs = {"Hidden": ((t, d), dtype), "Cell": ((t, d), dtype), "AttentionedX": ((t, 1), dtype)}
    outputs.update({"AttentionFCOut": ((longest, 1), dtype), "LSTMX": ((1, m), dtype), "LSTMOUT": ((1, 4 * d), dtype)})
    return _fresh(outputs, offs)


def cudnn_lstm_meta(attrs, ins, facts):
    """cudnn_lstm: Out [seq, batch, hidden * directions], last_h and last_c of InitH's and InitC's shapes, in
    Input's dtype."""
    x = ins["Input"]
    dtype, width = np.dtype(x.dtype), attrs["hidden_size"] * (2 if attrs["is_bidirec"] else 1)
    outputs = {"Out": ((*x.shape[:2], width), dtype)}
    outputs.update({out: (tuple(ins[src].shape), dtype) for out, src in (("last_h", "InitH"), ("last_c", "InitC"))})
    return _fresh(outputs)


def cudnn_lstm_grad_meta(attrs, ins, facts):
    """cudnn_lstm_grad: the gradients of Input, W, InitH and InitC, of their shapes, in Input's dtype."""
    dtype = np.dtype(ins["Input"].dtype)
    return _fresh({k: (shape, dtype) for k, (shape, _) in _like(ins, "Input", "W", "InitH", "InitC").items()})
