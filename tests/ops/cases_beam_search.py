"""Op cases for family beam_search (beam_search and beam_search_decode are checked in
tests/test_control_flow_beam_search.py): gather_tree (no gradient), whose numpy reference back-traces
each (batch, beam) path one entry at a time as Fluid's gather_tree kernel does; sampling_id (a random op,
no gradient): rows with all mass on one id always give it, and over many identical rows the ids'
frequencies follow the probabilities."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(11)


def gather_tree_ref(i, a):
    ids, parents = i["Ids"], i["Parents"]
    steps, batch, beam = ids.shape
    out = np.zeros_like(ids)
    for b in range(batch):
        for k in range(beam):
            out[steps - 1, b, k] = ids[steps - 1, b, k]
            p = parents[steps - 1, b, k]
            for t in range(steps - 2, -1, -1):
                out[t, b, k] = ids[t, b, p]
                p = parents[t, b, p]
    return {"Out": out}


# Fluid's test_gather_tree_op.py example: 3 steps, batch 2, beam 2
IDS = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]], dtype=np.int64)
PARENTS = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]], dtype=np.int64)

CASES = [
    OpCase(
        "gather_tree",
        {"Ids": IDS, "Parents": PARENTS},
        lambda i, a: {"Out": np.array([[[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]], dtype=np.int64)},
        name="gather_tree_fluid_example",
    ),
    OpCase(
        "gather_tree",
        {"Ids": rng.integers(0, 50, size=(6, 3, 4)), "Parents": rng.integers(0, 4, size=(6, 3, 4))},
        gather_tree_ref,
        name="gather_tree_random",
    ),
    OpCase(
        "gather_tree",
        {
            "Ids": rng.integers(0, 9, size=(5, 2, 3)).astype(np.int32),
            "Parents": rng.integers(0, 3, size=(5, 2, 3)).astype(np.int32),
        },
        gather_tree_ref,
        name="gather_tree_int32",
    ),
    OpCase(
        "gather_tree",
        {"Ids": rng.integers(0, 9, size=(1, 2, 3)), "Parents": rng.integers(0, 3, size=(1, 2, 3))},
        gather_tree_ref,
        name="gather_tree_one_step",
    ),
]


PROBS = np.array([0.1, 0.2, 0.3, 0.4])


def _check_frequencies(outs, inputs):
    ids = np.asarray(outs["Out"])
    assert ids.dtype == np.int64 and ids.shape == (20000,)
    freq = np.bincount(ids, minlength=4) / len(ids)
    assert np.abs(freq - PROBS).max() < 0.015, freq


def _check_certain(outs, inputs):
    np.testing.assert_array_equal(np.asarray(outs["Out"]), [2, 0, 3, 1])


CASES += [
    OpCase(
        "sampling_id",
        {"X": np.tile(PROBS, (20000, 1))},
        attrs={"seed": 7},
        outputs=("Out",),
        check=_check_frequencies,
        name="sampling_id_frequencies",
    ),
    OpCase(
        "sampling_id",
        {"X": np.eye(4)[[2, 0, 3, 1]]},
        attrs={"seed": 3},
        outputs=("Out",),
        check=_check_certain,
        name="sampling_id_one_hot_rows",
    ),
]


# -- beam_log_probs: a beam search step's scores (BeamSearchDecoder) --------------------------------


def beam_log_probs_ref(i, a):
    x = i["Logits"].astype(np.float64)
    shifted = x - x.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    scores = np.where(i["Finished"][..., None], i["NoEnd"], log_p) + i["PreScores"][..., None]
    return {"Out": scores.astype(i["Logits"].dtype)}


def _beam_inputs(batch, beam, vocab, dtype, end=1):
    noend = np.full(vocab, -1e9, dtype)
    noend[end] = 0
    finished = rng.random((batch, beam)) < 0.3
    finished[0] = [True] + [False] * (beam - 1)
    return {
        "Logits": (rng.normal(size=(batch, beam, vocab)) * 3).astype(dtype),
        "Finished": finished,
        "NoEnd": noend,
        "PreScores": rng.normal(size=(batch, beam)).astype(dtype) - 2,
    }


CASES += [
    OpCase(
        "beam_log_probs",
        _beam_inputs(3, 2, 7, np.float64),
        beam_log_probs_ref,
        rtol=1e-12,
        name="beam_log_probs_float64",
    ),
    OpCase(
        "beam_log_probs",
        _beam_inputs(3, 2, 7, np.float32),
        beam_log_probs_ref,
        rtol=1e-5,
        atol=1e-6,
        name="beam_log_probs_float32",
    ),
    OpCase(
        "beam_log_probs",
        _beam_inputs(16, 4, 5000, np.float32),
        beam_log_probs_ref,
        rtol=1e-5,
        atol=1e-5,
        name="beam_log_probs_float32_rows_on_threads",
    ),
]
