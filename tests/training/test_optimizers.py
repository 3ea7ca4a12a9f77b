"""Each optimizer trains a tiny linear regression (the loss goes down) and matches, step by step,
the same updates written in plain numpy from Fluid 1.x's formulas. Learning rates are powers of
two so the float32 learning-rate variable holds them exactly in the float64 programs."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.framework import OpRole

RNG = np.random.default_rng(5)
X = RNG.normal(size=(16, 4))
W_TRUE = np.array([[1.0], [-2.0], [0.5], [3.0]])
Y = X @ W_TRUE + 0.7 + 0.01 * RNG.normal(size=(16, 1))
W0 = 0.1 * RNG.normal(size=(4, 1))
B0 = np.array([0.2])


def build(make_optimizer, dtype="float64", w_attr=None, b_attr=None):
    """Linear regression y = x W + b with mean squared error; returns (main, startup, loss, params)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [4], dtype=dtype)
        y = fluid.layers.data("y", [1], dtype=dtype)
        w_attr = w_attr or fluid.ParamAttr(name="w")
        b_attr = b_attr or fluid.ParamAttr(name="b")
        w_attr.initializer = fluid.initializer.NumpyArrayInitializer(W0)
        b_attr.initializer = fluid.initializer.NumpyArrayInitializer(B0)
        pred = fluid.layers.fc(x, 1, param_attr=w_attr, bias_attr=b_attr)
        diff = pred - y
        loss = fluid.layers.mean(diff * diff)
        opt = make_optimizer()
        opt.minimize(loss)
    return main, startup, loss, opt


def train(main, startup, loss, steps, fetch=("w", "b")):
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    losses, params = [], []
    for _ in range(steps):
        dtype = main.global_block().var("x").dtype
        out = exe.run(
            main, feed={"x": X.astype(dtype), "y": Y.astype(dtype)}, fetch_list=[loss.name, *fetch], scope=scope
        )
        losses.append(float(out[0][0]))
        params.append(out[1:])
    return losses, params, scope


def numpy_grads(w, b):
    pred = X @ w + b
    dpred = 2.0 * (pred - Y) / len(X)
    return X.T @ dpred, dpred.sum(axis=0)


class NumpySGD:
    def __init__(self, lr):
        self.lr = lr

    def step(self, name, p, g):
        return p - self.lr * g


class NumpyMomentum:
    def __init__(self, lr, mu, nesterov=False):
        self.lr, self.mu, self.nesterov, self.v = lr, mu, nesterov, {}

    def step(self, name, p, g):
        v = self.mu * self.v.get(name, 0.0) + g
        self.v[name] = v
        return p - self.lr * (g + self.mu * v if self.nesterov else v)


class NumpyAdam:
    def __init__(self, lr, b1=0.9, b2=0.999, eps=1e-8):
        self.lr, self.b1, self.b2, self.eps, self.m, self.v, self.t = lr, b1, b2, eps, {}, {}, {}

    def step(self, name, p, g):
        t = self.t[name] = self.t.get(name, 0) + 1
        m = self.m[name] = self.b1 * self.m.get(name, 0.0) + (1 - self.b1) * g
        v = self.v[name] = self.b2 * self.v.get(name, 0.0) + (1 - self.b2) * g * g
        lr_t = self.lr * np.sqrt(1 - self.b2**t) / (1 - self.b1**t)
        return p - lr_t * m / (np.sqrt(v) + self.eps)  # Fluid 1.8's epsilon (fluid.optimizer.Adam)


class NumpyAdagrad:
    def __init__(self, lr, eps=1e-6, init=0.0):
        self.lr, self.eps, self.init, self.acc = lr, eps, init, {}

    def step(self, name, p, g):
        acc = self.acc[name] = self.acc.get(name, self.init) + g * g
        return p - self.lr * g / (np.sqrt(acc) + self.eps)


class NumpyRMSProp:
    def __init__(self, lr, rho=0.95, eps=1e-6, momentum=0.0, centered=False):
        self.lr, self.rho, self.eps, self.mu, self.centered = lr, rho, eps, momentum, centered
        self.ms, self.mg, self.mom = {}, {}, {}

    def step(self, name, p, g):
        ms = self.ms[name] = self.rho * self.ms.get(name, 0.0) + (1 - self.rho) * g * g
        denom = ms + self.eps
        if self.centered:
            mg = self.mg[name] = self.rho * self.mg.get(name, 0.0) + (1 - self.rho) * g
            denom = denom - mg * mg
        mom = self.mom[name] = self.mu * self.mom.get(name, 0.0) + self.lr * g / np.sqrt(denom)
        return p - mom


class NumpyAdamax:
    def __init__(self, lr, b1=0.9, b2=0.999, eps=1e-8):
        self.lr, self.b1, self.b2, self.eps, self.m, self.u, self.t = lr, b1, b2, eps, {}, {}, {}

    def step(self, name, p, g):
        t = self.t[name] = self.t.get(name, 0) + 1
        m = self.m[name] = self.b1 * self.m.get(name, 0.0) + (1 - self.b1) * g
        u = self.u[name] = np.maximum(self.b2 * self.u.get(name, 0.0) + self.eps, np.abs(g))
        return p - self.lr / (1 - self.b1**t) * m / u


class NumpyAdadelta:
    def __init__(self, rho=0.95, eps=1e-6):
        self.rho, self.eps, self.sg, self.su = rho, eps, {}, {}

    def step(self, name, p, g):
        sg = self.sg[name] = self.rho * self.sg.get(name, 0.0) + (1 - self.rho) * g * g
        su = self.su.get(name, 0.0)
        update = -np.sqrt((su + self.eps) / (sg + self.eps)) * g
        self.su[name] = self.rho * su + (1 - self.rho) * update * update
        return p + update


class NumpyDecayedAdagrad:
    def __init__(self, lr, decay=0.95, eps=1e-6):
        self.lr, self.decay, self.eps, self.m = lr, decay, eps, {}

    def step(self, name, p, g):
        m = self.m[name] = self.decay * self.m.get(name, 0.0) + (1 - self.decay) * g * g
        return p - self.lr * g / (np.sqrt(m) + self.eps)


class NumpyFtrl:
    def __init__(self, lr, l1=0.0, l2=0.0, lr_power=-0.5):
        self.lr, self.l1, self.l2, self.c, self.sq, self.lin = lr, l1 + 1e-10, l2 + 1e-10, -lr_power, {}, {}

    def step(self, name, p, g):
        sq = self.sq.get(name, 0.0)
        n = self.sq[name] = sq + g * g
        lin = self.lin[name] = self.lin.get(name, 0.0) + g - (n**self.c - sq**self.c) / self.lr * p
        shrunk = (self.l1 * np.sign(lin) - lin) / (n**self.c / self.lr + 2 * self.l2)
        return np.where(np.abs(lin) > self.l1, shrunk, 0.0)


class NumpyLamb(NumpyAdam):
    """Fluid 1.8's lamb (the moments as they are), or with ``corrected`` Paddle 2.x's (m_hat, v_hat)."""

    def __init__(self, lr, decay, b1=0.9, b2=0.999, eps=1e-6, corrected=False):
        super().__init__(lr, b1, b2, eps)
        self.decay, self.corrected = decay, corrected

    def step(self, name, p, g):
        t = self.t[name] = self.t.get(name, 0) + 1
        m = self.m[name] = self.b1 * self.m.get(name, 0.0) + (1 - self.b1) * g
        v = self.v[name] = self.b2 * self.v.get(name, 0.0) + (1 - self.b2) * g * g
        c1, c2 = (1 - self.b1**t, 1 - self.b2**t) if self.corrected else (1, 1)
        r = (m / c1) / (np.sqrt(v / c2) + self.eps) + self.decay * p
        return p - self.lr * (np.linalg.norm(p) / np.linalg.norm(r)) * r


class NumpyLars(NumpyMomentum):
    def __init__(self, lr, mu, coeff, decay):
        super().__init__(lr, mu)
        self.coeff, self.decay = coeff, decay

    def step(self, name, p, g):
        p_norm, g_norm = np.linalg.norm(p), np.linalg.norm(g)
        rate = self.lr * self.coeff * p_norm / (g_norm + self.decay * p_norm) if p_norm > 0 and g_norm > 0 else self.lr
        v = self.v[name] = self.mu * self.v.get(name, 0.0) + rate * (g + self.decay * p)
        return p - v


def numpy_train(opt, steps):
    w, b = W0.copy(), B0.copy()
    out = []
    for _ in range(steps):
        gw, gb = numpy_grads(w, b)
        w, b = opt.step("w", w, gw), opt.step("b", b, gb)
        out.append((w, b))
    return out


OPTIMIZERS = {
    "sgd": (lambda: fluid.optimizer.SGD(learning_rate=0.125), lambda: NumpySGD(0.125)),
    "momentum": (
        lambda: fluid.optimizer.Momentum(learning_rate=0.0625, momentum=0.9),
        lambda: NumpyMomentum(0.0625, 0.9),
    ),
    "momentum_nesterov": (
        lambda: fluid.optimizer.MomentumOptimizer(0.0625, 0.9, use_nesterov=True),
        lambda: NumpyMomentum(0.0625, 0.9, nesterov=True),
    ),
    "adam": (lambda: fluid.optimizer.Adam(learning_rate=0.125), lambda: NumpyAdam(0.125)),
    "adam_betas": (
        lambda: fluid.optimizer.AdamOptimizer(0.25, beta1=0.5, beta2=0.75, epsilon=1e-4),
        lambda: NumpyAdam(0.25, 0.5, 0.75, 1e-4),
    ),
    "adagrad": (lambda: fluid.optimizer.Adagrad(learning_rate=0.5), lambda: NumpyAdagrad(0.5)),
    "adagrad_init": (
        lambda: fluid.optimizer.AdagradOptimizer(0.5, epsilon=1e-3, initial_accumulator_value=0.25),
        lambda: NumpyAdagrad(0.5, 1e-3, 0.25),
    ),
    "rmsprop": (lambda: fluid.optimizer.RMSProp(learning_rate=0.03125), lambda: NumpyRMSProp(0.03125)),
    "rmsprop_centered": (
        lambda: fluid.optimizer.RMSPropOptimizer(0.03125, rho=0.9, epsilon=1e-4, momentum=0.5, centered=True),
        lambda: NumpyRMSProp(0.03125, 0.9, 1e-4, 0.5, True),
    ),
    "adamax": (lambda: fluid.optimizer.Adamax(learning_rate=0.125), lambda: NumpyAdamax(0.125)),
    "adamax_betas": (
        lambda: fluid.optimizer.AdamaxOptimizer(0.25, beta1=0.5, beta2=0.75, epsilon=1e-4),
        lambda: NumpyAdamax(0.25, 0.5, 0.75, 1e-4),
    ),
    "adadelta": (
        lambda: fluid.optimizer.Adadelta(learning_rate=1.0, epsilon=1e-2, rho=0.9),
        lambda: NumpyAdadelta(0.9, 1e-2),
    ),
    "decayed_adagrad": (
        lambda: fluid.optimizer.DecayedAdagrad(learning_rate=0.125, decay=0.9),
        lambda: NumpyDecayedAdagrad(0.125, 0.9),
    ),
    "ftrl": (lambda: fluid.optimizer.Ftrl(learning_rate=0.5), lambda: NumpyFtrl(0.5)),
    "ftrl_l1_l2": (
        lambda: fluid.optimizer.FtrlOptimizer(0.5, l1=0.01, l2=0.01, lr_power=-0.25),
        lambda: NumpyFtrl(0.5, 0.01, 0.01, -0.25),
    ),
    "lamb": (lambda: fluid.optimizer.Lamb(learning_rate=0.125, lamb_weight_decay=0.01), lambda: NumpyLamb(0.125, 0.01)),
    "lamb_corrected": (
        lambda: fluid.optimizer.Lamb(learning_rate=0.125, lamb_weight_decay=0.01, bias_correction=True),
        lambda: NumpyLamb(0.125, 0.01, corrected=True),
    ),
    "lamb_excluded": (
        lambda: fluid.optimizer.LambOptimizer(
            0.125, lamb_weight_decay=0.5, beta1=0.5, exclude_from_weight_decay_fn=lambda p: True
        ),
        lambda: NumpyLamb(0.125, 0.0, b1=0.5),
    ),
    "lars_momentum": (
        lambda: fluid.optimizer.LarsMomentum(
            learning_rate=2.0, momentum=0.9, lars_coeff=0.25, lars_weight_decay=0.0005
        ),
        lambda: NumpyLars(2.0, 0.9, 0.25, 0.0005),
    ),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_matches_numpy_for_three_steps(name):
    make, make_ref = OPTIMIZERS[name]
    main, startup, loss, _ = build(make)
    _, params, _ = train(main, startup, loss, 3)
    for step, ((w, b), (rw, rb)) in enumerate(zip(params, numpy_train(make_ref(), 3))):
        np.testing.assert_allclose(w, rw, rtol=1e-10, atol=1e-12, err_msg=f"{name}: w after step {step + 1}")
        np.testing.assert_allclose(b, rb, rtol=1e-10, atol=1e-12, err_msg=f"{name}: b after step {step + 1}")


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_loss_decreases(name):
    make, _ = OPTIMIZERS[name]
    main, startup, loss, _ = build(make, dtype="float32")
    losses, _, _ = train(main, startup, loss, 30, fetch=())
    assert losses[-1] < 0.5 * losses[0], f"{name}: loss {losses[0]:.4f} -> {losses[-1]:.4f}"
    assert all(np.isfinite(losses))


def test_state_is_persistable_and_initialized_by_startup():
    main, startup, loss, opt = build(lambda: fluid.optimizer.Adam(0.125))
    persistable = {v.name for v in main.list_vars() if v.persistable}
    startup_outs = {n for op in startup.global_block().ops for n in op.output_arg_names}
    state = {v.name for per_param in opt._accumulators.values() for v in per_param.values()}  # Fluid's layout
    state |= {opt._global_learning_rate(main).name}
    assert len(state) == 2 * 4 + 1  # moment1, moment2, beta1_pow, beta2_pow for w and b, the LR
    assert state <= persistable and state <= startup_outs
    assert any("w_moment1" in n for n in state) and any("b_beta2_pow_acc" in n for n in state)


def test_beta_pows_advance_in_the_graph():
    main, startup, loss, opt = build(lambda: fluid.optimizer.Adam(0.125, beta1=0.5, beta2=0.75))
    b1 = opt._get_accumulator("beta1_pow_acc", main.global_block().var("w")).name
    b2 = opt._get_accumulator("beta2_pow_acc", main.global_block().var("w")).name
    _, params, scope = train(main, startup, loss, 3, fetch=(b1, b2))
    np.testing.assert_allclose([p[0][0] for p in params], [0.5**2, 0.5**3, 0.5**4])
    np.testing.assert_allclose([p[1][0] for p in params], [0.75**2, 0.75**3, 0.75**4])


def test_update_ops_write_params_and_state_in_place_with_optimize_role():
    main, _, _, _ = build(lambda: fluid.optimizer.Momentum(0.0625, 0.9))
    ops = [op for op in main.global_block().ops if op.type == "momentum"]
    assert len(ops) == 2
    for op in ops:
        assert op.output("ParamOut") == op.input("Param")
        assert op.output("VelocityOut") == op.input("Velocity")
        assert op.role == OpRole.Optimize


def test_param_attr_learning_rate_scales_the_step():
    w_attr = fluid.ParamAttr(name="w", learning_rate=0.5)
    main, startup, loss, _ = build(lambda: fluid.optimizer.SGD(0.125), w_attr=w_attr)
    _, params, _ = train(main, startup, loss, 1)
    gw, gb = numpy_grads(W0, B0)
    np.testing.assert_allclose(params[0][0], W0 - 0.0625 * gw, rtol=1e-12)
    np.testing.assert_allclose(params[0][1], B0 - 0.125 * gb, rtol=1e-12)


def test_non_trainable_parameter_is_not_updated():
    main, startup, loss, _ = build(
        lambda: fluid.optimizer.Adam(0.125), b_attr=fluid.ParamAttr(name="b", trainable=False)
    )
    _, params, _ = train(main, startup, loss, 2)
    np.testing.assert_array_equal(params[-1][1], B0)
    assert not np.allclose(params[-1][0], W0)


def test_learning_rate_variable():
    def make():
        block = fluid.default_main_program().global_block()
        lr = block.create_var(name="my_lr", shape=[1], dtype="float32", persistable=True)
        sblock = fluid.default_startup_program().global_block()
        sblock.create_var(name="my_lr", shape=[1], dtype="float32", persistable=True)
        sblock.append_op("fill_constant", {}, {"Out": ["my_lr"]}, {"shape": [1], "value": 0.125, "dtype": "float32"})
        return fluid.optimizer.SGD(learning_rate=lr)

    main, startup, loss, _ = build(make)
    _, params, _ = train(main, startup, loss, 2)
    ref = numpy_train(NumpySGD(0.125), 2)
    np.testing.assert_allclose(params[-1][0], ref[-1][0], rtol=1e-12)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: fluid.optimizer.SGD(learning_rate=-1.0), "learning_rate=-1.0 is out of range"),
        (lambda: fluid.optimizer.Adam(beta1=1.0), "beta1=1.0 is out of range"),
        (lambda: fluid.optimizer.Momentum(0.1, momentum=-0.5), "momentum=-0.5 is out of range"),
        (lambda: fluid.optimizer.RMSProp(0.1, rho=1.5), "rho=1.5 is out of range"),
        (lambda: fluid.optimizer.Adagrad(0.1, epsilon=-1.0), "epsilon=-1.0 is out of range"),
    ],
)
def test_bad_hyperparameters_are_named(make, message):
    with pytest.raises(PeError, match=message):
        make()


def test_bad_argument_types():
    with pytest.raises(TypeError, match="learning_rate must be a float or a Variable"):
        fluid.optimizer.SGD(learning_rate="0.1")
    with pytest.raises(TypeError, match="regularization must be a regularizer"):
        fluid.optimizer.SGD(0.1, regularization=0.01)
    with pytest.raises(TypeError, match="grad_clip must be a gradient clip"):
        fluid.optimizer.SGD(0.1, grad_clip=5.0)


def test_names_and_positional_signatures():
    opt = fluid.optimizer.Momentum(0.1, 0.9)
    assert isinstance(opt, fluid.optimizer.MomentumOptimizer) and opt._momentum == 0.9
    assert fluid.optimizer.SGD is fluid.optimizer.SGDOptimizer
    assert fluid.optimizer.Adam is fluid.optimizer.AdamOptimizer
    assert fluid.optimizer.Adagrad is fluid.optimizer.AdagradOptimizer
    assert fluid.optimizer.RMSProp is fluid.optimizer.RMSPropOptimizer
    adam = fluid.optimizer.Adam()
    assert (adam._learning_rate, adam._beta1, adam._beta2, adam._epsilon) == (0.001, 0.9, 0.999, 1e-8)
    rms = fluid.optimizer.RMSProp(0.1)
    assert (rms._rho, rms._epsilon, rms._momentum, rms._centered) == (0.95, 1e-6, 0.0, False)


def test_minimize_outside_program_guard_uses_the_given_startup_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [4], dtype="float64")
        y = fluid.layers.data("y", [1], dtype="float64")
        diff = fluid.layers.fc(x, 1) - y
        loss = fluid.layers.mean(diff * diff)
    default_startup_ops = len(fluid.default_startup_program().global_block().ops)
    fluid.optimizer.Adam(0.125).minimize(loss, startup_program=startup)
    assert len(fluid.default_startup_program().global_block().ops) == default_startup_ops
    losses, _, _ = train(main, startup, loss, 3, fetch=())
    assert losses[-1] < losses[0]


@pytest.mark.parametrize("thres", [False, True])
def test_exponential_moving_average_matches_numpy(thres):
    """EMA of w and b over four SGD steps, applied with Fluid's bias correction and restored."""
    main, startup = fluid.Program(), fluid.Program()
    decay = 0.75
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [4], dtype="float64")
        y = fluid.layers.data("y", [1], dtype="float64")
        pred = fluid.layers.fc(
            x,
            1,
            param_attr=fluid.ParamAttr(name="w", initializer=fluid.initializer.NumpyArrayInitializer(W0)),
            bias_attr=fluid.ParamAttr(name="b", initializer=fluid.initializer.NumpyArrayInitializer(B0)),
        )
        loss = fluid.layers.mean((pred - y) * (pred - y))
        fluid.optimizer.SGD(0.125).minimize(loss)
        steps_var = fluid.layers.create_global_var([1], 2.0, "float32", persistable=True) if thres else None
        ema = fluid.optimizer.ExponentialMovingAverage(decay, thres_steps=steps_var)
        ema.update()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(4):
            w, b = exe.run(main, feed={"x": X, "y": Y}, fetch_list=["w", "b"])
        d = min(decay, 3.0 / 12.0) if thres else decay
        ref = {"w": 0.0, "b": 0.0}
        for rw, rb in numpy_train(NumpySGD(0.125), 4):
            ref = {"w": d * ref["w"] + (1 - d) * rw, "b": d * ref["b"] + (1 - d) * rb}
        with ema.apply(exe):
            np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()), ref["w"] / (1 - d**4), rtol=1e-6)
            np.testing.assert_allclose(np.array(scope.find_var("b").get_tensor()), ref["b"] / (1 - d**4), rtol=1e-6)
        np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()), np.asarray(w), rtol=0, atol=0)


def test_lookahead_matches_numpy():
    """Lookahead over SGD, k=3, alpha=0.5: seven steps against the same rule in numpy."""
    k, alpha = 3, 0.5
    main, startup, loss, _ = build(
        lambda: fluid.optimizer.LookaheadOptimizer(fluid.optimizer.SGD(0.125), alpha=alpha, k=k)
    )
    _, params, _ = train(main, startup, loss, 7)
    w, b, sgd, slow = W0.copy(), B0.copy(), NumpySGD(0.125), {}
    for step in range(1, 8):
        gw, gb = numpy_grads(w, b)
        w, b = sgd.step("w", w, gw), sgd.step("b", b, gb)
        if step == 1:
            slow = {"w": w, "b": b}
        if step % k == 0:
            slow = {"w": alpha * w + (1 - alpha) * slow["w"], "b": alpha * b + (1 - alpha) * slow["b"]}
            w, b = slow["w"], slow["b"]
        np.testing.assert_allclose(params[step - 1][0], w, rtol=1e-10, err_msg=f"w after step {step}")
        np.testing.assert_allclose(params[step - 1][1], b, rtol=1e-10, err_msg=f"b after step {step}")
