"""fluid.layers.data_norm as Fluid 1.8's CTR models call it: its statistics are parameters named
<name>.batch_size/.batch_sum/.batch_square_sum, the output is (x - sum/size) * sqrt(size/square_sum), and
a training step updates the statistics by the summary rule (decay * stat + this batch's), not by the
optimizer."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers


def test_data_norm_normalizes_by_its_statistics_and_a_step_summarizes_the_batch():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [3], dtype="float32")
        y = layers.data_norm(
            x, param_attr={"batch_size": 4.0, "batch_sum": 2.0, "batch_square": 16.0}, summary_decay_rate=0.5
        )
        params_grads = fluid.backward.append_backward(layers.mean(y))
    assert not params_grads  # no gradient of the statistics reaches an optimizer
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    xv = np.array([[1, 2, 3], [3, 6, 5]], np.float32)
    got = exe.run(main, feed={"x": xv}, fetch_list=[y], scope=scope)[0]
    np.testing.assert_allclose(got, (xv - 0.5) * np.sqrt(4 / 16), rtol=1e-6)
    stats = {
        k: np.asarray(scope.find_var(f"dn.{k}").get_tensor()) for k in ("batch_size", "batch_sum", "batch_square_sum")
    }
    np.testing.assert_allclose(stats["batch_size"], 0.5 * 4 + 2)
    np.testing.assert_allclose(stats["batch_sum"], 0.5 * 2 + xv.sum(axis=0))
    np.testing.assert_allclose(
        stats["batch_square_sum"], 0.5 * 16 + ((xv - 0.5) ** 2).sum(axis=0) + 2 * 1e-5, rtol=1e-6
    )


def test_data_norm_refuses_an_unknown_layout():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(ValueError, match="unsupported data layout:NCDHW"):
            layers.data_norm(layers.data("x", [3]), data_layout="NCDHW")
