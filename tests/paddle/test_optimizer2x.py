"""paddle.optimizer (Paddle 2.x, static mode): AdamW's decoupled decay (lr_ratio,
apply_decay_param_fun) and SGD's steps equal numpy references while a paddle.optimizer.lr
scheduler, stepped by the user between runs, feeds the program's learning rate through the
Executor; every 2.x optimizer trains; dygraph-only calls refuse in one line; and a static program
trained by AdamW + CosineAnnealingDecay from a paddle.io.DataLoader lowers its loss."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import PeError
from pe_cli.executor.scope import Scope

RNG = np.random.RandomState(3)
X = RNG.randn(16, 4).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5], [3.0]], "float32") + 0.3).astype("float32")


def build(make_optimizer):
    main, start = paddle.static.Program(), paddle.static.Program()
    start.random_seed = 11  # the same initial weights whatever ran before
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 4])
        y = paddle.static.data("y", [None, 1])
        diff = paddle.static.nn.fc(x, 1) - y
        loss = paddle.mean(diff * diff)
        opt = make_optimizer()
        opt.minimize(loss)
    scope = paddle.static.global_scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(start)
    w, b = sorted(main.global_block().all_parameters(), key=lambda p: len(p.shape), reverse=True)
    return main, exe, loss, opt, scope, w.name, b.name, x, y


def grads(w, b):
    d = 2 * (X @ w + b - Y) / len(X)
    return X.T @ d, d.sum(0)


def test_adamw_equals_numpy_with_a_fed_schedule():
    sched = paddle.optimizer.lr.ExponentialDecay(0.1, 0.5)
    names = {}
    main, exe, loss, opt, scope, wn, bn, _, _ = build(
        lambda: paddle.optimizer.AdamW(
            learning_rate=sched,
            weight_decay=0.2,
            lr_ratio=lambda p: 0.5 if len(p.shape) == 1 else 1.0,
            apply_decay_param_fun=lambda n: names.setdefault(n, len(names) == 0),
        )
    )  # the first asked decays
    decayed = [n for n, yes in names.items() if yes]
    w, b = scope.get_array(wn).astype("float64"), scope.get_array(bn).astype("float64")
    state = {k: [np.zeros_like(v), np.zeros_like(v)] for k, v in (("w", w), ("b", b))}
    for t in range(1, 4):
        exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])
        np.testing.assert_allclose(scope.get_array(main.lr_var.name), [0.1 * 0.5 ** (t - 1)], rtol=1e-6)
        gw, gb = grads(w, b)
        new = {}
        for key, p, g, name in (("w", w, gw, wn), ("b", b, gb, bn)):
            lr_p = 0.1 * 0.5 ** (t - 1) * (0.5 if key == "b" else 1.0)
            if name in decayed:
                p = p * (1 - lr_p * 0.2)
            m, v = state[key]
            m[:] = 0.9 * m + 0.1 * g
            v[:] = 0.999 * v + 0.001 * g * g
            lr_t = lr_p * np.sqrt(1 - 0.999**t) / (1 - 0.9**t)
            new[key] = p - lr_t * m / (np.sqrt(v) + 1e-8 * np.sqrt(1 - 0.999**t))
        w, b = new["w"], new["b"]
        np.testing.assert_allclose(scope.get_array(wn), w, rtol=2e-5, atol=1e-6)
        np.testing.assert_allclose(scope.get_array(bn), b, rtol=2e-5, atol=1e-6)
        sched.step()
    assert decayed and set(names) == {wn, bn}


def test_sgd_with_l2_weight_decay_follows_the_stepped_scheduler():
    sched = paddle.optimizer.lr.PiecewiseDecay([1, 2], [0.1, 0.01, 0.001])
    main, exe, loss, opt, scope, wn, bn, _, _ = build(
        lambda: paddle.optimizer.SGD(learning_rate=sched, weight_decay=0.5)
    )
    w, b = scope.get_array(wn).astype("float64"), scope.get_array(bn).astype("float64")
    for rate in (0.1, 0.01, 0.001):
        assert opt.get_lr() == rate
        exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])
        gw, gb = grads(w, b)
        w, b = w - rate * (gw + 0.5 * w), b - rate * (gb + 0.5 * b)
        np.testing.assert_allclose(scope.get_array(wn), w, rtol=1e-5, atol=1e-7)
        sched.step()


def test_adadelta_scales_its_update_by_the_learning_rate():
    main, exe, loss, opt, scope, wn, bn, _, _ = build(lambda: paddle.optimizer.Adadelta(0.5, epsilon=1e-2, rho=0.9))
    w, b = scope.get_array(wn).astype("float64"), scope.get_array(bn).astype("float64")
    acc = {k: [np.zeros_like(v), np.zeros_like(v)] for k, v in (("w", w), ("b", b))}
    for _ in range(2):
        exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])
        new = {}
        for key, p, g in zip(("w", "b"), (w, b), grads(w, b)):
            sg, su = acc[key]
            sg[:] = 0.9 * sg + 0.1 * g * g
            update = -np.sqrt((su + 1e-2) / (sg + 1e-2)) * g
            su[:] = 0.9 * su + 0.1 * update * update
            new[key] = p + 0.5 * update
        w, b = new["w"], new["b"]
        np.testing.assert_allclose(scope.get_array(wn), w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(scope.get_array(bn), b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda: paddle.optimizer.SGD(0.05),
        lambda: paddle.optimizer.Momentum(paddle.optimizer.lr.StepDecay(0.02, 5), 0.9, use_nesterov=True),
        lambda: paddle.optimizer.Adam(0.1, weight_decay=paddle.regularizer.L2Decay(1e-4)),
        lambda: paddle.optimizer.Adagrad(0.5),
        lambda: paddle.optimizer.RMSProp(0.05, centered=True),
        lambda: paddle.optimizer.Adadelta(1.0, epsilon=1e-2, rho=0.9, weight_decay=paddle.regularizer.L1Decay(1e-4)),
        lambda: paddle.optimizer.Adamax(0.1),
        lambda: paddle.optimizer.Lamb(0.1),
    ],
)
def test_every_optimizer_trains(make):
    main, exe, loss, opt, *_ = build(make)
    losses = [float(exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])[0]) for _ in range(15)]
    assert losses[-1] < 0.8 * losses[0]


def test_dygraph_calls_refuse_in_one_line():
    opt = paddle.optimizer.Adam(0.1)
    for call in (opt.step, opt.clear_grad):
        with pytest.raises(PeError, match="is for dygraph; .*static") as e:
            call()
        assert "\n" not in str(e.value)
    with pytest.raises(PeError, match="LBFGS is dygraph-only"):
        paddle.optimizer.LBFGS()
    with pytest.raises(TypeError, match="parameter groups are for dygraph"):
        paddle.optimizer.SGD(0.1, parameters=[{"params": [], "learning_rate": 0.5}])
    with pytest.raises(TypeError, match=r"weight_decay should be float or Tensor\."):
        paddle.optimizer.AdamW(0.1, weight_decay="0.1")
    with pytest.raises(
        RuntimeError,
        match=r"optimizer's learning rate can't be LRScheduler when invoke this API, because this will lead to conflict\.",
    ):
        paddle.optimizer.SGD(paddle.optimizer.lr.StepDecay(0.1, 2)).set_lr(0.5)
    for unset in ({"learning_rate": None}, {"rho": None}, {"epsilon": None}, {"momentum": None}):
        with pytest.raises(ValueError, match=f"{next(iter(unset))} is not set"):  # Paddle 2.x's checks
            paddle.optimizer.RMSProp(**dict({"learning_rate": 0.1}, **unset))


class Regression(paddle.io.Dataset):
    def __len__(self):
        return len(X)

    def __getitem__(self, i):
        return X[i], Y[i]


def test_adamw_cosine_schedule_and_dataloader_train_a_static_program():
    sched = paddle.optimizer.lr.CosineAnnealingDecay(0.2, T_max=20)
    main, exe, loss, opt, scope, *_, x, y = build(
        lambda: paddle.optimizer.AdamW(learning_rate=sched, weight_decay=0.01)
    )
    loader = paddle.io.DataLoader(
        Regression(), feed_list=[x, y], batch_size=4, shuffle=True, drop_last=True, return_list=False
    )
    epochs = []
    for _ in range(5):
        losses = [float(exe.run(main, feed=data, fetch_list=[loss])[0]) for data in loader()]
        assert len(losses) == 4
        epochs.append(np.mean(losses))
        sched.step()
    assert epochs[-1] < 0.5 * epochs[0], epochs
    # the last runs (epoch 4) read the rate of epoch 4: 0.2 * (1 + cos(pi * 4 / 20)) / 2
    assert scope.get_array(main.lr_var.name)[0] == pytest.approx(0.1 * (1 + np.cos(np.pi * 4 / 20)), rel=1e-5)


def test_the_schedule_reaches_data_parallel_runs(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")
    sched = paddle.optimizer.lr.ExponentialDecay(0.1, 0.5)
    main, exe, loss, *_ = build(lambda: paddle.optimizer.SGD(sched))
    compiled = paddle.static.CompiledProgram(main).with_data_parallel(loss_name=loss.name)
    parallel = paddle.static.ParallelExecutor(use_cuda=False, main_program=main, loss_name=loss.name)
    for k in range(4):
        if k < 2:
            _, rate = exe.run(compiled, feed={"x": X, "y": Y}, fetch_list=[loss, main.lr_var])
        else:
            _, rate = parallel.run(feed={"x": X, "y": Y}, fetch_list=[loss.name, main.lr_var.name])
        np.testing.assert_allclose(np.ravel(rate), [0.1 * 0.5**k] * 2, rtol=1e-6)
        sched.step()


def test_a_clone_reads_the_same_schedule():
    sched = paddle.optimizer.lr.ExponentialDecay(0.1, 0.5)
    main, exe, loss, *_ = build(lambda: paddle.optimizer.SGD(sched))
    clone = main.clone()
    sched.step()
    _, rate = exe.run(clone, feed={"x": X, "y": Y}, fetch_list=[loss, main.lr_var.name])
    assert float(rate[0]) == pytest.approx(0.05)


def test_parameters_given_to_the_optimizer_are_the_ones_minimize_updates():
    """As Paddle 2.6.2's static mode (checked on the wheel): AdamW(parameters=a.parameters()) updates
    a's weight and bias, not b's."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3])
        a, b = paddle.nn.Linear(3, 3), paddle.nn.Linear(3, 1)
        loss = paddle.mean(b(a(x)))
        paddle.optimizer.AdamW(0.1, parameters=a.parameters()).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(Scope()):
        exe.run(startup)
        names = [p.name for p in a.parameters() + b.parameters()]
        before = [np.array(paddle.static.global_scope().find_var(n).get_tensor()) for n in names]
        exe.run(main, feed={"x": np.ones((2, 3), "float32")})
        after = [np.array(paddle.static.global_scope().find_var(n).get_tensor()) for n in names]
    assert [bool(np.any(p != q)) for p, q in zip(before, after)] == [True, True, False, False]


class _HalfStepSGD(paddle.optimizer.SGD):
    """A script's subclass in Fluid's protocol: _append_optimize_op(block, param_and_grad)."""

    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        lr = self._create_param_lr(param_and_grad)
        paddle.assign(param - paddle.scale(lr, 0.5) * grad, param)


def test_a_subclass_overriding_the_update_in_fluids_protocol_is_called_so():
    main, start = paddle.static.Program(), paddle.static.Program()
    start.random_seed = 11
    with paddle.static.program_guard(main, start):
        x = paddle.static.data("x", [None, 4])
        w = paddle.create_parameter([4, 1], "float32", name="w_half")
        loss = paddle.mean(paddle.matmul(x, w))
        _HalfStepSGD(learning_rate=0.2).minimize(loss)
    scope = Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        exe.run(start)
        before = np.array(scope.find_var("w_half").get_tensor())
        exe.run(main, feed={"x": X})
        after = np.array(scope.find_var("w_half").get_tensor())
    np.testing.assert_allclose(after, before - 0.1 * X.mean(0).reshape(4, 1), rtol=1e-5, atol=1e-6)
    lamb = paddle.optimizer.Lamb(lamb_weight_decay=0.03, exclude_from_weight_decay_fn=lambda p: False)
    assert lamb._lamb_weight_decay == 0.03 and lamb._exclude_from_weight_decay_fn(None) is False
