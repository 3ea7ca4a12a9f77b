"""The lstm op's CPU kernels (kernels/cpu/lstm.py: numba passes around a GEMM per step, states kept in
the length order, the weight's gradient one GEMM at the end) against kernels/lstm_math.py, the numpy
reference they replaced: forward and every gradient, with peepholes, reversed, initial states, Cell's
gradient, sequences of equal and zero length."""

import numpy as np
import pytest

from pe_cli.kernels import lstm_math
from pe_cli.kernels.cpu.runtime import loops as _numba
from pe_cli.kernels.cpu import gru as cpu_gru, lstm as cpu_lstm
from pe_cli.base.errors import PeError


@pytest.fixture(autouse=True)
def compile_now(monkeypatch):
    monkeypatch.setattr(_numba, "EAGER", True)


def case(dtype, peep, reverse, states, lengths=(5, 1, 7, 0, 7, 3), d=6, acts=("sigmoid", "tanh", "tanh")):
    rng = np.random.default_rng(3)
    offs = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    t = int(offs[-1])
    x = rng.standard_normal((t, 4 * d)).astype(dtype)
    w = (rng.standard_normal((d, 4 * d)) * 0.5).astype(dtype)
    b = (rng.standard_normal((1, (7 if peep else 4) * d)) * 0.5).astype(dtype)
    h0, c0 = (rng.standard_normal((len(lengths), d)).astype(dtype) for _ in range(2)) if states else (None, None)
    attrs = {
        "use_peepholes": peep,
        "is_reverse": reverse,
        "gate_activation": acts[0],
        "cell_activation": acts[1],
        "candidate_activation": acts[2],
    }
    dh, dc = rng.standard_normal((t, d)).astype(dtype), rng.standard_normal((t, d)).astype(dtype)
    return x, w, b, h0, c0, offs, attrs, dh, dc


@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
@pytest.mark.parametrize(
    "peep,reverse,states", [(False, False, False), (True, True, True), (True, False, False), (False, True, True)]
)
def test_loops_equal_the_numpy_reference(dtype, tol, peep, reverse, states):
    x, w, b, h0, c0, offs, attrs, dh, dc = case(dtype, peep, reverse, states)
    want = lstm_math.forward(x, w, b, h0, c0, offs, attrs)
    got = cpu_lstm._forward(x, w, b, h0, c0, offs, attrs)
    for g, r in zip(got, want):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, r, rtol=tol, atol=tol)
    for d_cell in (None, dc):
        want_b = lstm_math.backward(x, w, b, want[1], want[2], dh, d_cell, offs, attrs, states)
        got_b = cpu_lstm._backward(x, w, b, got[1], got[2], dh, d_cell, offs, attrs, states)
        for g, r in zip(got_b[:3] + tuple(got_b[3]), want_b[:3] + tuple(want_b[3])):
            if r is None:
                assert g is None
                continue
            assert g.shape == r.shape and g.dtype == dtype
            np.testing.assert_allclose(g, r, rtol=tol * 10, atol=tol * 10)


def _stand_in(serial, parallel, use_parallel, *args, replica=None):
    """runtime/loops.twin as on a first run on a machine, the loops not compiled: the loop's stand-in."""
    assert replica is not None
    return replica


def _run(x, w, b, h0, c0, offs, attrs, dh, dc, states):
    hidden, cell, saved = cpu_lstm._forward(x, w, b, h0, c0, offs, attrs)
    dx, dw, db, (dh0, dc0) = cpu_lstm._backward(x, w, b, cell, saved, dh, dc, offs, attrs, states)
    return [v for v in (hidden, cell, saved, dx, dw, db, dh0, dc0) if v is not None]


@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize(
    "peep,reverse,states", [(False, False, False), (True, True, True), (True, False, False), (False, True, True)]
)
def test_sequences_in_groups_give_the_same_bits_on_any_threads(monkeypatch, parts, peep, reverse, states):
    """A device with ``parts`` threads runs a large batch's recurrence as ``parts`` groups of sequences at
    once (sequence_groups): within float32 rounding of the numpy reference, and the same bits whether the
    groups run one after another (the serial loops), on the threads (their parallel twins) or from Python
    while the loops compile (their stand-ins)."""
    from pe_cli.kernels.cpu.runtime import threads

    monkeypatch.setattr(threads, "work_parts", lambda: parts)
    monkeypatch.setattr(threads, "SPLIT_GEMM_MACS", 0)
    monkeypatch.setattr(cpu_gru, "MIN_GROUP", 1)
    lengths = (5, 1, 7, 0, 7, 3, 2, 6)  # 8 sequences: groups of 4 and 4, or 3, 3 and 2 (one of them empty)
    x, w, b, h0, c0, offs, attrs, dh, dc = case(np.float32, peep, reverse, states, lengths=lengths)
    assert cpu_lstm.sequence_groups(len(lengths), len(x), 4 * w.shape[0] ** 2) == parts
    want = lstm_math.forward(x, w, b, h0, c0, offs, attrs)
    want_b = lstm_math.backward(x, w, b, want[1], want[2], dh, dc, offs, attrs, states)
    ran = []
    for threads_now in (1, 2):
        monkeypatch.setattr(cpu_lstm, "parallel_threads", lambda: threads_now)
        ran.append(_run(x, w, b, h0, c0, offs, attrs, dh, dc, states))
    monkeypatch.setattr(cpu_lstm, "twin", _stand_in)  # a first run's, while the groups' loops compile
    ran.append(_run(x, w, b, h0, c0, offs, attrs, dh, dc, states))
    reference = [*want, *want_b[:3], *(v for v in want_b[3] if v is not None)]
    for serial, parallel, stand_in, r in zip(*ran, reference):
        np.testing.assert_array_equal(serial, parallel)
        np.testing.assert_array_equal(serial, stand_in)
        np.testing.assert_allclose(serial, r, rtol=2e-4, atol=2e-4)


def test_a_large_batch_runs_in_groups_on_a_device_with_threads(monkeypatch):
    from pe_cli.kernels.cpu.runtime import threads

    for parts, nseq, rows, d, want in (
        (2, 64, 1600, 128, 2),
        (1, 64, 1600, 128, 1),
        (2, 64, 64, 16, 1),
        (4, 9, 400, 128, 2),
    ):
        monkeypatch.setattr(threads, "work_parts", lambda: parts)
        assert cpu_lstm.sequence_groups(nseq, rows, 4 * d * d) == want


@pytest.mark.parametrize("parts", [2, 3])
@pytest.mark.parametrize("reverse,origin,states", [(False, False, False), (True, True, True)])
def test_gru_sequences_in_groups_give_the_same_bits_on_any_threads(monkeypatch, parts, reverse, origin, states):
    """The GRU's groups as the LSTM's: within float32 rounding of one group, the serial loops' bits
    on the threads."""
    from pe_cli.kernels.cpu.runtime import threads

    lengths, d = (5, 1, 7, 0, 7, 3, 2, 6), 6
    rng = np.random.default_rng(4)
    offs = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    x = rng.standard_normal((int(offs[-1]), 3 * d)).astype(np.float32)
    w = (rng.standard_normal((d, 3 * d)) * 0.5).astype(np.float32)
    b = (rng.standard_normal((1, 3 * d)) * 0.5).astype(np.float32)
    h0 = rng.standard_normal((len(lengths), d)).astype(np.float32) if states else None
    dh = rng.standard_normal((len(x), d)).astype(np.float32)
    attrs = {"gate_activation": "sigmoid", "activation": "tanh", "is_reverse": reverse, "origin_mode": origin}

    def run():
        hidden, batch_gate = cpu_gru._forward(x, w, b, h0, offs, attrs)
        return [hidden, batch_gate, *cpu_gru._backward(x, w, batch_gate, dh, offs, attrs)]

    one = run()
    monkeypatch.setattr(threads, "work_parts", lambda: parts)
    monkeypatch.setattr(threads, "SPLIT_GEMM_MACS", 0)
    monkeypatch.setattr(cpu_gru, "MIN_GROUP", 1)
    assert cpu_gru.sequence_groups(len(lengths), len(x), 3 * d * d) == parts
    ran = []
    for threads_now in (1, 2):
        monkeypatch.setattr(cpu_gru, "parallel_threads", lambda: threads_now)
        ran.append(run())
    monkeypatch.setattr(cpu_gru, "twin", _stand_in)
    ran.append(run())
    for serial, parallel, stand_in, r in zip(*ran, one):
        np.testing.assert_array_equal(serial, parallel)
        np.testing.assert_array_equal(serial, stand_in)
        np.testing.assert_allclose(serial, r, rtol=1e-5, atol=1e-5)


def test_other_activations_and_an_unknown_one():
    x, w, b, h0, c0, offs, attrs, dh, _ = case(np.float64, False, False, False, acts=("tanh", "relu", "identity"))
    for g, r in zip(cpu_lstm._forward(x, w, b, h0, c0, offs, attrs), lstm_math.forward(x, w, b, h0, c0, offs, attrs)):
        np.testing.assert_allclose(g, r, rtol=1e-12, atol=1e-12)
    with pytest.raises(PeError, match="activation 'gelu'"):
        cpu_lstm._forward(x, w, b, h0, c0, offs, dict(attrs, cell_activation="gelu"))


def test_float32_runs_every_step_in_one_call_without_the_gil():
    """The whole-sequence loops (what lets two devices' LSTMs and GRUs compute at once) are compiled
    nogil, and a float32 LSTM (a GRU of either float type) takes them where a CBLAS GEMM is found."""
    from pe_cli.kernels.cpu import _activation_loops, _gru_loops, _lstm_loops
    from pe_cli.kernels.cpu.runtime import cblas

    for loop in (
        _lstm_loops.forward_sequence,
        _lstm_loops.backward_sequence,
        _lstm_loops.forward_groups_parallel,
        _lstm_loops.backward_groups_parallel,
        _activation_loops.activate,
        _gru_loops.forward_sequence,
        _gru_loops.backward_sequence,
        _gru_loops.forward_groups_parallel,
        _gru_loops.backward_groups_parallel,
    ):
        assert loop.targetoptions.get("nogil") is True
    x, w, *_ = case(np.float32, False, False, False)
    found = cblas.gemm(np.dtype(np.float32)) is not None
    assert (cpu_lstm._sequence_gemm(x, w) is not None) == found
    assert cpu_lstm._sequence_gemm(x.astype(np.float64), w.astype(np.float64)) is None
    assert (cpu_gru._sequence_gemm(x, w) is not None) == found  # the GRU's, float64 too


def test_float32_activations_within_two_ulps_of_float64():
    """Sigmoid (of the input clipped to [-40, 13], as Fluid's recurrent ops) and tanh within 2 ulps of
    the float64 result rounded to float32 over float32's normal range (numpy's float32 calls too),
    relu and identity exact, NaN kept, saturation at the ends."""
    from pe_cli.kernels.cpu import _activation_loops

    v = np.concatenate(
        [
            np.linspace(-30, 30, 40001),
            [-1e-9, 0.0, 1e-9, 0.6, 0.65, 86.0, -86.0, -104.0, 120.0, 1e30, -1e30, np.inf, -np.inf],
        ]
    ).astype(np.float32)
    v64 = v.astype(np.float64)
    with np.errstate(over="ignore"):
        want = {0: 1 / (1 + np.exp(-np.clip(v64, -40, 13))), 1: np.tanh(v64), 2: np.maximum(v64, 0), 3: v64}
    for code, ref in want.items():
        got = np.stack([v, np.full_like(v, np.nan)])
        _activation_loops.activate(got, 2, 0, v.size, code)
        ref = ref.astype(np.float32)
        normal = np.abs(ref) >= np.finfo(np.float32).tiny
        np.testing.assert_array_max_ulp(got[0][normal], ref[normal], maxulp=2 if code < 2 else 0)
        np.testing.assert_allclose(got[0][~normal], ref[~normal], rtol=0, atol=np.finfo(np.float32).tiny)
        assert np.isnan(got[1]).all()
