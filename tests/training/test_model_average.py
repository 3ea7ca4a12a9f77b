"""fluid.optimizer.ModelAverage: with apply(), each parameter is the numpy average of its values
after each of the updates in Fluid's sliding window (the previous window and the current one);
restore() and leaving apply() put the trained values back."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError


def _net(rate, lo, hi, momentum=False):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [3])
        y = fluid.layers.data("y", [1])
        pred = fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(name="w"), bias_attr=fluid.ParamAttr(name="b"))
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        test = main.clone(for_test=True)
        opt = fluid.optimizer.Momentum(0.1, 0.5) if momentum else fluid.optimizer.SGD(0.1)
        opt.minimize(loss)
        average = fluid.optimizer.ModelAverage(rate, min_average_window=lo, max_average_window=hi)
    return main, startup, test, pred, loss, average


def _window(steps, rate, lo, hi):
    """How many of the last values the average covers after each step (Fluid's rule, counted
    here from the values, not from sums)."""
    acc = old = 0
    sizes = []
    for updates in range(1, steps + 1):
        acc += 1
        if acc >= lo and acc >= min(hi, updates * rate):
            old, acc = acc, 0
        sizes.append(old + acc)
    return sizes


@pytest.mark.parametrize("rate,lo,hi", [(0.5, 2, 5), (1.0, 1, 3), (0.15, 3, 20), (0.5, 100, 200)])
def test_applied_parameters_are_the_window_average(rate, lo, hi):
    steps = 12
    main, startup, test, pred, loss, average = _net(rate, lo, hi)
    exe = fluid.Executor(fluid.CPUPlace())
    rng = np.random.RandomState(0)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        history, sizes = [], _window(steps, rate, lo, hi)
        for step in range(steps):
            x = rng.rand(8, 3).astype("float32")
            exe.run(main, feed={"x": x, "y": x.sum(1, keepdims=True)}, fetch_list=[loss])
            history.append({n: np.array(scope.get_array(n)) for n in ("w", "b")})
            trained = history[-1]
            with average.apply(exe):
                for n in ("w", "b"):
                    want = np.mean([h[n] for h in history[-sizes[step] :]], axis=0)
                    np.testing.assert_allclose(
                        scope.get_array(n),
                        want,
                        rtol=1e-5,
                        atol=1e-6,
                        err_msg=f"step {step}, {n}, window {sizes[step]}",
                    )
            for n in ("w", "b"):  # restored on leaving
                np.testing.assert_array_equal(scope.get_array(n), trained[n])


def test_apply_without_restore_then_restore_and_predictions():
    main, startup, test, pred, loss, average = _net(0.5, 1, 4, momentum=True)
    exe = fluid.Executor(fluid.CPUPlace())
    rng = np.random.RandomState(1)
    x_eval = rng.rand(5, 3).astype("float32")
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(6):
            x = rng.rand(8, 3).astype("float32")
            exe.run(main, feed={"x": x, "y": x.sum(1, keepdims=True)}, fetch_list=[loss])
        (trained,) = exe.run(test, feed={"x": x_eval, "y": x_eval[:, :1]}, fetch_list=[pred])
        w, b = np.array(scope.get_array("w")), np.array(scope.get_array("b"))
        with average.apply(exe, need_restore=False):
            (averaged,) = exe.run(test, feed={"x": x_eval, "y": x_eval[:, :1]}, fetch_list=[pred])
            aw, ab = np.array(scope.get_array("w")), np.array(scope.get_array("b"))
        np.testing.assert_allclose(averaged, x_eval @ aw + ab, rtol=1e-5)
        assert not np.allclose(averaged, trained)
        np.testing.assert_array_equal(scope.get_array("w"), aw)  # not restored yet
        average.restore(exe)
        np.testing.assert_array_equal(scope.get_array("w"), w)
        np.testing.assert_array_equal(scope.get_array("b"), b)
    ops = [op.type for op in main.global_block().ops]
    assert ops.count("average_accumulates") == 2 and ops[-1] == "average_accumulates"


def test_do_model_average_false_is_left_out_and_bad_windows_are_refused():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [3])
        h = fluid.layers.fc(
            x,
            2,
            param_attr=fluid.ParamAttr(name="kept"),
            bias_attr=fluid.ParamAttr(name="skipped", do_model_average=False),
        )
        fluid.optimizer.SGD(0.1).minimize(fluid.layers.mean(h))
        fluid.optimizer.ModelAverage(0.15, min_average_window=2, max_average_window=4)
        averaged = [op.input("param")[0] for op in main.global_block().ops if op.type == "average_accumulates"]
        assert averaged == ["kept"]
        with pytest.raises(PeError, match="min_average_window"):
            fluid.optimizer.ModelAverage(0.15, min_average_window=5, max_average_window=4)


def test_save_before_apply_keeps_the_accumulators_not_the_backups(tmp_path):
    main, startup, test, pred, loss, average = _net(0.5, 1, 4)
    with fluid.program_guard(main, startup):
        ema = fluid.optimizer.ExponentialMovingAverage(0.9)
        ema.update()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        x = np.ones((2, 3), "float32")
        exe.run(main, feed={"x": x, "y": x[:, :1]}, fetch_list=[loss])
        fluid.save(main, str(tmp_path / "m"))  # apply() never ran: no backup has a value
        fluid.io.save_persistables(exe, str(tmp_path / "p"), main)
        state = fluid.io.load_program_state(str(tmp_path / "m"))
    assert any(k.startswith("w_sum_1") for k in state) and any(k.startswith("w_num_updates") for k in state)
    assert not any(".tmp" in k or "ema_tmp" in k for k in state), sorted(state)
