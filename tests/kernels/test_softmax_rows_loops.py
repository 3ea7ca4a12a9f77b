"""The float32 wide-row loops (_softmax_rows_loops.py): softmax_with_cross_entropy, its gradient and
log_softmax against float64 numpy (and a beam search step's scores against the ops it replaces), on a device of 1 thread and of 2 (the parallel twins, which must give
the serial loops' bits), with NaN and infinite rows, ignore_index and a label outside the classes."""

import numpy as np
import pytest

from pe_cli.base.errors import PeError
from pe_cli.kernels.cpu import activation, beam_search, elementwise, indexing, loss_classification
from pe_cli.kernels.cpu.runtime import threads, loops as _numba

rng = np.random.default_rng(5)
ATTRS = {"soft_label": False, "ignore_index": 7, "numeric_stable_mode": True, "axis": -1}


def _logits(rows=37, classes=3001):
    x = (rng.standard_normal((rows, classes)) * 4).astype(np.float32)
    x[3, 100] = np.nan  # the row's softmax and loss are NaN
    x[4, :] = -60.0  # a flat row: 1 / classes everywhere
    x[5, 10] = 80.0  # one value far above the rest: a softmax of ~1 and ~0
    return x


def _log_softmax64(x, floor=None):
    """float64 log_softmax along the rows; ``floor``: the shifted logits clipped below there first (Paddle's CPU
    log_softmax clips at -64)."""
    s = x.astype(np.float64) - x.astype(np.float64).max(axis=-1, keepdims=True)
    if floor is not None:
        s = np.where(s < floor, floor, s)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


def test_softmax_with_cross_entropy_of_wide_float32_rows(device_threads):
    x = _logits()
    label = rng.integers(0, x.shape[1], (x.shape[0], 1))
    label[6, 0] = 7  # ignore_index: loss 0, gradient 0
    out = loss_classification.softmax_with_cross_entropy({"Logits": x, "Label": label}, ATTRS)
    assert out["Softmax"].dtype == out["Loss"].dtype == np.float32
    want = _log_softmax64(x)
    ok = np.arange(x.shape[0]) != 3
    assert np.isnan(out["Softmax"][3]).all() and np.isnan(out["Loss"][3, 0])
    np.testing.assert_allclose(out["Softmax"][ok], np.exp(want[ok]), rtol=2e-6, atol=1e-30)
    np.testing.assert_allclose(out["Softmax"][4], 1.0 / x.shape[1], rtol=2e-6)
    loss = -np.take_along_axis(want, label, axis=-1)
    loss[6] = 0
    np.testing.assert_allclose(out["Loss"][ok], loss[ok], rtol=2e-6, atol=2e-6)
    assert out["Loss"][6, 0] == 0
    dloss = rng.standard_normal((x.shape[0], 1)).astype(np.float32)
    grad = loss_classification.softmax_with_cross_entropy_grad(
        {"Softmax": out["Softmax"], "Label": label, "Loss@GRAD": dloss}, ATTRS
    )["Logits@GRAD"]
    onehot = np.eye(x.shape[1], dtype=np.float32)[label[:, 0]]
    onehot[6] = 0
    want_grad = (out["Softmax"] - onehot) * dloss
    want_grad[6] = 0
    np.testing.assert_array_equal(grad[ok], want_grad[ok])


def test_log_softmax_of_wide_float32_rows(device_threads):
    x = _logits()
    out = activation.log_softmax({"X": x}, ATTRS)["Out"]
    assert out.dtype == np.float32
    want = _log_softmax64(x, floor=-64.0)
    ok = np.arange(x.shape[0]) != 3
    assert np.isnan(out[3]).all()
    np.testing.assert_allclose(out[ok], want[ok], rtol=2e-6, atol=2e-5)


def test_the_parallel_twins_give_the_serial_loops_bits(monkeypatch):
    monkeypatch.setattr(_numba, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_numba, "EAGER", True)
    x = _logits(rows=41, classes=1500)
    label = rng.integers(0, x.shape[1], (x.shape[0], 1))
    results = []
    for share in (1, 2):
        monkeypatch.setattr(threads, "_share", share)
        out = loss_classification.softmax_with_cross_entropy({"Logits": x, "Label": label}, ATTRS)
        out["Out"] = activation.log_softmax({"X": x}, ATTRS)["Out"]
        results.append(out)
    for key in ("Softmax", "Loss", "Out"):
        np.testing.assert_array_equal(results[0][key], results[1][key])


def test_a_label_outside_the_classes_names_its_row(device_threads):
    x = _logits(rows=9, classes=1200)
    label = np.zeros((9, 1), np.int64)
    label[8, 0] = 1200
    with pytest.raises(PeError, match="Label holds 1200 at row 8, outside the 1200 classes"):
        loss_classification.softmax_with_cross_entropy({"Logits": x, "Label": label}, ATTRS)


@pytest.mark.parametrize("share", [1, 2])
def test_a_beam_search_steps_scores_are_the_bits_of_log_softmax_where_and_add(share, monkeypatch):
    """beam_log_probs in one pass gives, on one thread and on two, the bits that log_softmax's loop,
    where and the add (axis 0) give one after the other (BeamSearchDecoder's step before the op)."""
    monkeypatch.setattr(_numba, "PARALLEL_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_numba, "EAGER", True)
    monkeypatch.setattr(threads, "_share", share)
    logits = _logits(rows=12, classes=3001).reshape(3, 4, 3001)  # [batch, beam, vocabulary]
    finished = np.zeros((3, 4), bool)
    finished[1, 2] = finished[2, 0] = True
    noend = np.full(3001, -1e9, np.float32)
    noend[1] = 0.0
    pre = rng.normal(size=(3, 4)).astype(np.float32) * 5
    out = beam_search.beam_log_probs({"Logits": logits, "Finished": finished, "NoEnd": noend, "PreScores": pre}, {})[
        "Out"
    ]
    log_p = activation.log_softmax({"X": logits}, ATTRS)["Out"]
    masked = indexing.where({"Condition": finished[..., None], "X": noend, "Y": log_p}, {})["Out"]
    want = elementwise.elementwise_add({"X": masked, "Y": pre}, {"axis": 0})["Out"]
    assert out.dtype == np.float32 and out.tobytes() == want.tobytes()
    assert np.isnan(out[0, 3]).all() and (out[1, 2, 1] == pre[1, 2])  # a NaN row; a finished beam
