"""Gradient clipping (by value, by norm, by global norm; through the optimizer, set_gradient_clip or
ParamAttr) and weight decay (L1, L2; the parameter's own regularizer wins), each checked against the
same SGD step done in numpy: param - lr * (clip(grad) + decay)."""

import warnings

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError

RNG = np.random.default_rng(9)
X = RNG.normal(size=(8, 3))
Y = RNG.normal(size=(8, 2)) * 4.0
W0 = RNG.normal(size=(3, 2))
B0 = np.array([0.5, -1.5])
LR = 0.125


def build(opt=None, w_attr=None, b_attr=None, before_minimize=None, minimize_clip=None):
    """y = x W + b, loss = mean((y - t)^2), float64, trained by SGD(LR) unless ``opt`` is given."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [3], dtype="float64")
        t = fluid.layers.data("t", [2], dtype="float64")
        w_attr = w_attr or fluid.ParamAttr(name="w")
        b_attr = b_attr or fluid.ParamAttr(name="b")
        w_attr.initializer = fluid.initializer.NumpyArrayInitializer(W0)
        b_attr.initializer = fluid.initializer.NumpyArrayInitializer(B0)
        diff = fluid.layers.fc(x, 2, param_attr=w_attr, bias_attr=b_attr) - t
        loss = fluid.layers.mean(diff * diff)
        if before_minimize:
            before_minimize(main)
        (opt or fluid.optimizer.SGD(LR)).minimize(loss, grad_clip=minimize_clip)
    return main, startup


def one_step(main, startup):
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed={"x": X, "t": Y}, fetch_list=["w", "b"], scope=scope)


def grads():
    d = 2.0 * (X @ W0 + B0 - Y) / Y.size
    return X.T @ d, d.sum(axis=0)


def check(main, startup, gw, gb):
    w, b = one_step(main, startup)
    np.testing.assert_allclose(w, W0 - LR * gw, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(b, B0 - LR * gb, rtol=1e-12, atol=1e-14)


def by_norm(g, c):
    n = np.sqrt((g**2).sum())
    return g * c / n if n > c else g


# -- clipping -------------------------------------------------------------------------------------


def test_unclipped_baseline():
    check(*build(), *grads())


def test_clip_by_value_through_the_optimizer():
    gw, gb = grads()
    assert (np.abs(gw) > 0.5).any()  # the clip bites
    main, startup = build(fluid.optimizer.SGD(LR, grad_clip=fluid.clip.GradientClipByValue(0.5)))
    check(main, startup, np.clip(gw, -0.5, 0.5), np.clip(gb, -0.5, 0.5))


def test_clip_by_value_with_min():
    gw, gb = grads()
    main, startup = build(fluid.optimizer.SGD(LR, grad_clip=fluid.clip.GradientClipByValue(max=1.0, min=-0.25)))
    check(main, startup, np.clip(gw, -0.25, 1.0), np.clip(gb, -0.25, 1.0))


def test_clip_by_norm_each_gradient():
    gw, gb = grads()
    c = 0.8 * np.sqrt((gw**2).sum())  # w is clipped; b maybe not
    main, startup = build(fluid.optimizer.SGD(LR, grad_clip=fluid.clip.GradientClipByNorm(c)))
    check(main, startup, by_norm(gw, c), by_norm(gb, c))


def test_clip_by_global_norm():
    gw, gb = grads()
    global_norm = np.sqrt((gw**2).sum() + (gb**2).sum())
    c = 0.5 * global_norm
    main, startup = build(fluid.optimizer.SGD(LR, grad_clip=fluid.clip.GradientClipByGlobalNorm(c)))
    check(main, startup, gw * c / global_norm, gb * c / global_norm)


def test_clip_by_global_norm_below_the_limit_changes_nothing():
    gw, gb = grads()
    main, startup = build(fluid.optimizer.SGD(LR, grad_clip=fluid.clip.GradientClipByGlobalNorm(1e6)))
    check(main, startup, gw, gb)


def test_minimize_grad_clip():
    gw, gb = grads()
    check(*build(minimize_clip=fluid.clip.GradientClipByValue(0.5)), np.clip(gw, -0.5, 0.5), np.clip(gb, -0.5, 0.5))


def test_set_gradient_clip_on_some_parameters():
    gw, gb = grads()
    main, startup = build(
        before_minimize=lambda prog: fluid.clip.set_gradient_clip(
            fluid.clip.GradientClipByValue(0.5), param_list=["w"], program=prog
        )
    )
    check(main, startup, np.clip(gw, -0.5, 0.5), gb)
    assert isinstance(main.global_block().var("w").gradient_clip_attr, fluid.clip.GradientClipByValue)
    assert main.global_block().var("b").gradient_clip_attr is None


def test_set_gradient_clip_default_program_and_all_parameters():
    gw, gb = grads()
    c = 0.5 * np.sqrt((gw**2).sum() + (gb**2).sum())
    main, startup = build(
        before_minimize=lambda prog: fluid.clip.set_gradient_clip(fluid.clip.GradientClipByGlobalNorm(c))
    )
    s = c / np.sqrt((gw**2).sum() + (gb**2).sum())
    check(main, startup, gw * s, gb * s)


def test_global_norm_groups_are_separate():
    gw, gb = grads()
    cw, cb = 0.5 * np.sqrt((gw**2).sum()), 0.5 * np.sqrt((gb**2).sum())
    w_attr = fluid.ParamAttr(name="w", gradient_clip=fluid.clip.GradientClipByGlobalNorm(cw, group_name="a"))
    b_attr = fluid.ParamAttr(name="b", gradient_clip=fluid.clip.GradientClipByGlobalNorm(cb, group_name="b"))
    check(*build(w_attr=w_attr, b_attr=b_attr), by_norm(gw, cw), by_norm(gb, cb))


def test_one_group_with_two_clip_norms_is_an_error():
    w_attr = fluid.ParamAttr(name="w", gradient_clip=fluid.clip.GradientClipByGlobalNorm(1.0))
    b_attr = fluid.ParamAttr(name="b", gradient_clip=fluid.clip.GradientClipByGlobalNorm(2.0))
    with pytest.raises(PeError, match="group 'default_group' is given two clip_norm values"):
        build(w_attr=w_attr, b_attr=b_attr)


def test_param_attr_gradient_clip_by_norm():
    gw, gb = grads()
    c = 0.5 * np.sqrt((gw**2).sum())
    w_attr = fluid.ParamAttr(name="w", gradient_clip=fluid.clip.GradientClipByNorm(c))
    check(*build(w_attr=w_attr), by_norm(gw, c), gb)


def test_optimizer_clip_wins_over_set_gradient_clip():
    gw, gb = grads()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        main, startup = build(
            fluid.optimizer.SGD(LR, grad_clip=fluid.clip.GradientClipByValue(0.5)),
            before_minimize=lambda prog: fluid.clip.set_gradient_clip(
                fluid.clip.GradientClipByValue(0.01), program=prog
            ),
        )
    assert any("grad_clip is used" in str(w.message) for w in caught)
    check(main, startup, np.clip(gw, -0.5, 0.5), np.clip(gb, -0.5, 0.5))


def test_set_gradient_clip_after_minimize_warns():
    main, _ = build()
    with pytest.warns(UserWarning, match="call it before minimize"):
        fluid.clip.set_gradient_clip(fluid.clip.GradientClipByValue(1.0), program=main)


@pytest.mark.parametrize(
    "make, error, message",
    [
        (lambda: fluid.clip.GradientClipByValue(-1.0), PeError, "max=-1.0 must be > 0"),
        (lambda: fluid.clip.GradientClipByValue(1.0, min=2.0), PeError, "min=2.0 is greater than max=1.0"),
        (lambda: fluid.clip.GradientClipByNorm(0.0), PeError, "clip_norm=0.0 must be > 0"),
        (lambda: fluid.clip.GradientClipByGlobalNorm(-2.0), PeError, "clip_norm=-2.0 must be > 0"),
        (lambda: fluid.clip.set_gradient_clip(5.0), TypeError, "clip must be GradientClipByValue"),
    ],
)
def test_bad_clip_arguments(make, error, message):
    with pytest.raises(error, match=message):
        make()


def test_set_gradient_clip_unknown_parameter():
    main = fluid.Program()
    with pytest.raises(PeError, match="'nope' is not a parameter"):
        fluid.clip.set_gradient_clip(fluid.clip.GradientClipByValue(1.0), param_list=["nope"], program=main)


# -- regularization -------------------------------------------------------------------------------


def test_l2_decay_through_the_optimizer():
    gw, gb = grads()
    main, startup = build(fluid.optimizer.SGD(LR, regularization=fluid.regularizer.L2Decay(0.1)))
    check(main, startup, gw + 0.1 * W0, gb + 0.1 * B0)


def test_l1_decay_through_the_optimizer():
    gw, gb = grads()
    main, startup = build(fluid.optimizer.SGD(LR, regularization=fluid.regularizer.L1DecayRegularizer(0.25)))
    check(main, startup, gw + 0.25 * np.sign(W0), gb + 0.25 * np.sign(B0))


def test_param_attr_regularizer_wins_over_the_optimizer():
    gw, gb = grads()
    w_attr = fluid.ParamAttr(name="w", regularizer=fluid.regularizer.L1Decay(0.25))
    main, startup = build(fluid.optimizer.SGD(LR, regularization=fluid.regularizer.L2Decay(0.1)), w_attr=w_attr)
    check(main, startup, gw + 0.25 * np.sign(W0), gb + 0.1 * B0)


def test_param_attr_regularizer_alone():
    gw, gb = grads()
    b_attr = fluid.ParamAttr(name="b", regularizer=fluid.regularizer.L2DecayRegularizer(regularization_coeff=0.5))
    check(*build(b_attr=b_attr), gw, gb + 0.5 * B0)


def test_clip_comes_before_decay():
    gw, gb = grads()
    main, startup = build(
        fluid.optimizer.SGD(
            LR, regularization=fluid.regularizer.L2Decay(0.1), grad_clip=fluid.clip.GradientClipByValue(0.5)
        )
    )
    check(main, startup, np.clip(gw, -0.5, 0.5) + 0.1 * W0, np.clip(gb, -0.5, 0.5) + 0.1 * B0)


def test_decay_feeds_the_momentum_update():
    gw, gb = grads()
    opt = fluid.optimizer.Momentum(LR, momentum=0.9, regularization=fluid.regularizer.L2Decay(0.1))
    # first step: velocity = grad + decay, param -= lr * velocity (same as SGD on the decayed grad)
    check(*build(opt), gw + 0.1 * W0, gb + 0.1 * B0)
