"""paddle.optimizer.lr: each of the 18 schedulers' sequences against a numpy/closed-form reference
of Paddle 2.6's formula (the recursive ones against their closed forms), state_dict, and the
arguments Paddle refuses."""

import math

import numpy as np
import pytest

from pe_cli.paddle.optimizer import lr


def seq(scheduler, n, **step):
    out = []
    for _ in range(n):
        out.append(scheduler())
        scheduler.step(**step)
    return np.array(out)


E = np.arange(12)


def test_the_18_names():
    assert len(lr.__all__) == 18 and all(hasattr(lr, n) for n in lr.__all__)


@pytest.mark.parametrize(
    "make, reference",
    [
        (
            lambda: lr.NoamDecay(64, 4, 2.0),
            2.0 * 64**-0.5 * np.minimum(np.where(E == 0, 1, np.maximum(E, 1) ** -0.5), E * 4**-1.5),
        ),
        (lambda: lr.PiecewiseDecay([3, 7], [1.0, 0.5, 0.1]), np.select([E < 3, E < 7], [1.0, 0.5], 0.1)),
        (lambda: lr.NaturalExpDecay(0.5, 0.1), 0.5 * np.exp(-0.1 * E)),
        (lambda: lr.InverseTimeDecay(0.5, 0.1), 0.5 / (1 + 0.1 * E)),
        (lambda: lr.PolynomialDecay(0.5, 5, 0.01, 2.0), (0.5 - 0.01) * (1 - np.minimum(E, 5) / 5) ** 2 + 0.01),
        (
            lambda: lr.PolynomialDecay(0.5, 5, 0.01, 1.0, cycle=True),
            (0.5 - 0.01) * (1 - E / (5 * np.maximum(np.ceil(E / 5), 1))) + 0.01,
        ),
        (lambda: lr.ExponentialDecay(0.5, 0.9), 0.5 * 0.9**E),
        (lambda: lr.MultiStepDecay(0.5, [2, 5, 9], 0.5), 0.5 * 0.5 ** np.searchsorted([2, 5, 9], E, side="right")),
        (lambda: lr.StepDecay(0.5, 4, 0.3), 0.5 * 0.3 ** (E // 4)),
        (lambda: lr.LambdaDecay(0.5, lambda e: 0.9**e + 0.1), 0.5 * (0.9**E + 0.1)),
        (lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.95), 0.5 * 0.95**E),
        (lambda: lr.CosineAnnealingDecay(0.5, 6, 0.05), 0.05 + 0.45 * (1 + np.cos(np.pi * E / 6)) / 2),
        (lambda: lr.LinearWarmup(0.5, 4, 0.0, 0.5), np.where(E < 4, 0.5 * E / 4, 0.5)),
        (
            lambda: lr.LinearWarmup(lr.ExponentialDecay(0.5, 0.9), 4, 0.1, 0.5),
            np.where(E < 4, 0.1 + 0.4 * E / 4, 0.5 * 0.9 ** np.maximum(E - 4, 0)),
        ),
        (lambda: lr.LinearLR(0.5, 6, 0.25, 1.0), 0.5 * (0.25 + 0.75 * np.minimum(E, 6) / 6)),
        (lambda: lr.CyclicLR(0.1, 0.5, 3, 2), 0.1 + 0.4 * np.interp(E % 5, [0, 3, 5], [0, 1, 0])),
        (
            lambda: lr.CyclicLR(0.1, 0.5, 2, mode="triangular2"),
            0.1 + 0.4 * np.interp(E % 4, [0, 2, 4], [0, 1, 0]) / 2.0 ** (E // 4),
        ),
        (
            lambda: lr.CyclicLR(0.1, 0.5, 2, mode="exp_range", exp_gamma=0.9),
            0.1 + 0.4 * np.interp(E % 4, [0, 2, 4], [0, 1, 0]) * 0.9**E,
        ),
        (
            lambda: lr.CosineAnnealingWarmRestarts(0.5, 3, 2, 0.01),
            0.01
            + 0.49
            * (
                1
                + np.cos(
                    np.pi * np.array([0, 1, 2, 0, 1, 2, 3, 4, 5, 0, 1, 2]) / np.array([3] * 3 + [6] * 6 + [12] * 3)
                )
            )
            / 2,
        ),
    ],
)
def test_sequence_equals_paddles_formula(make, reference):
    np.testing.assert_allclose(seq(make(), len(E)), reference, rtol=1e-10, atol=1e-12)


def test_cosine_annealing_goes_back_up_after_t_max_as_paddles_recursion():
    values = seq(lr.CosineAnnealingDecay(1.0, 3), 9)
    closed = (1 + np.cos(np.pi * np.arange(9) / 3)) / 2  # period 2 * T_max
    np.testing.assert_allclose(values, closed, atol=1e-12)
    s = lr.CosineAnnealingDecay(1.0, 3)
    s.step(2)  # an explicit epoch takes the closed form
    assert s() == pytest.approx((1 + math.cos(2 * math.pi / 3)) / 2)


def test_one_cycle():
    s = lr.OneCycleLR(1.0, 10, divide_factor=25.0, end_learning_rate=0.001, phase_pct=0.3)
    up, down = 0.3 * 10 - 1, 10 - 1 - (0.3 * 10 - 1)

    def ref(e):
        if e <= up:
            p, a, b = e / up, 0.04, 1.0
        else:
            p, a, b = (e - up) / down, 1.0, 0.001
        return b + (a - b) / 2 * (math.cos(math.pi * p) + 1)

    np.testing.assert_allclose(seq(s, 10), [ref(e) for e in range(10)], rtol=1e-12)
    lin = lr.OneCycleLR(1.0, 10, anneal_strategy="linear", three_phase=True, phase_pct=0.2)
    # phases end at steps 1 (up), 2 (down to the start), 9 (down to the end), linearly
    assert seq(lin, 10)[[0, 1, 2, 3, 9]] == pytest.approx([0.04, 1.0, 0.04, 0.04 + (0.0001 - 0.04) / 7, 0.0001])


def test_reduce_on_plateau():
    s = lr.ReduceOnPlateau(1.0, patience=1, factor=0.5, cooldown=1)
    got = []
    for loss in [5, 4, 4, 4, 4, 4, 4, 3]:
        s.step(np.array([loss], "float32"))
        got.append(s())
    assert got == [1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.25, 0.25]
    m = lr.ReduceOnPlateau(1.0, mode="max", patience=0, threshold=0.1, threshold_mode="abs", min_lr=0.3)
    for acc in [0.5, 0.55, 0.7, 0.7, 0.7]:
        m.step(acc)
    assert m() == pytest.approx(0.3)
    with pytest.raises(
        TypeError, match=r"metrics must be 'int', 'float', 'np\.float64', 'numpy\.ndarray', but receive <class 'str'>"
    ):
        m.step("x")


def test_state_dict_round_trip():
    a = lr.StepDecay(0.5, 2)
    for _ in range(5):
        a.step()
    b = lr.StepDecay(0.5, 2)
    b.set_state_dict(a.state_dict())
    assert (b.last_epoch, b()) == (5, a())
    w = lr.LinearWarmup(lr.ExponentialDecay(0.5, 0.9), 2, 0.0, 0.5)
    for _ in range(4):
        w.step()
    state = w.state_dict()
    assert state["LinearWarmup_LR"] == {"last_epoch": 2, "last_lr": pytest.approx(0.5 * 0.9**2)}
    v = lr.LinearWarmup(lr.ExponentialDecay(0.5, 0.9), 2, 0.0, 0.5)
    v.set_state_dict(state)
    assert (v.last_epoch, v(), v.learning_rate.last_epoch) == (4, w(), 2) and "LinearWarmup_LR" in state


def test_bad_arguments_are_paddles_errors():
    with pytest.raises(TypeError, match="The type of learning rate must be float, but received <class 'str'>"):
        lr.LRScheduler("0.1")
    with pytest.raises(ValueError, match=r"Invalid learning rate: -1\.0"):
        lr.LRScheduler(-1.0)
    with pytest.raises(NotImplementedError):
        lr.LRScheduler(0.1)
    with pytest.raises(ValueError, match=r"gamma should be < 1\.0\."):
        lr.StepDecay(0.1, 2, gamma=1.5)
    with pytest.raises(ValueError, match=r"When three_phase is True, 'phase_pct' must be less than 0\.5"):
        lr.OneCycleLR(1.0, 10, three_phase=True, phase_pct=0.6)
    with pytest.raises(ValueError, match="mode: sideways is unknown!"):
        lr.ReduceOnPlateau(0.1, mode="sideways")
