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


@pytest.mark.parametrize("width", [1, 2, 8, 9, 16, 17, 3001])
def test_row_max_is_a_running_maxs_value(width):
    """_pointwise_loops.row_max (eight running maxima, combined): the value one running ``v > m`` keeps, bit for bit,
    at every width around its blocks of eight: the row's max, NaN where the row holds one, infinities, and the
    first zero's sign where the max is a zero."""
    import numba

    from pe_cli.kernels.cpu._pointwise_loops import row_max

    @numba.njit
    def maxima(x, out):
        for r in range(x.shape[0]):
            out[r] = row_max(x, r)

    x = (rng.standard_normal((12, width)) * 3).astype(np.float32)
    x[1] = -np.abs(x[1])
    x[1, width // 2] = -0.0  # the max a zero: its sign the first zero's
    x[1, width - 1] = 0.0
    x[2] = -np.abs(x[2])
    x[2, width - 1] = -0.0
    x[2, 0] = 0.0 if width > 1 else -0.0
    x[3, width - 1] = np.nan
    x[4, 0] = np.inf
    x[5] = -np.inf
    x[6, width // 3] = np.float32(1e30)
    if width > 9:  # a -0.0 in the first block's second lane, a 0.0 in the second block's first: the -0.0 comes first
        x[7] = -np.abs(x[7])
        x[7, 2], x[7, 9] = -0.0, 0.0
    want = np.empty(len(x), np.float32)
    for r, row in enumerate(x):  # (a running max, in order)
        m = row[0]
        for v in row[1:]:
            m = v if v > m else m
        want[r] = np.float32(np.nan) if np.isnan(row).any() else m
    got = np.empty(len(x), np.float32)
    maxima(x, got)
    np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
