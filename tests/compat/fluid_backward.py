# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_backward.py @ 5e39399fc23be6f4e62ca78a8e9150d4c7ad28e4
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy as np
import paddle.fluid as fluid
from paddle.fluid.backward import append_backward, gradients, calc_gradient
from paddle.fluid.framework import grad_var_name

main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data(name="x", shape=[None, 4], dtype="float32")
    label = fluid.data(name="label", shape=[None, 1], dtype="float32")
    pred = fluid.layers.fc(
        x, size=1, bias_attr=False, param_attr=fluid.ParamAttr(name="w", initializer=fluid.initializer.Constant(0.5))
    )
    loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, label))
    params_grads = append_backward(loss)
assert [p.name for p, _ in params_grads] == ["w"]
assert params_grads[0][1].name == grad_var_name("w")

exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
xv = np.arange(8, dtype="float32").reshape(2, 4)
lv = np.array([[1.0], [2.0]], "float32")
(g,) = exe.run(main, feed={"x": xv, "label": lv}, fetch_list=[params_grads[0][1]])
expected = 2 * xv.T @ (xv @ np.full((4, 1), 0.5, "float32") - lv) / 2
assert np.allclose(g, expected, rtol=1e-5), (g, expected)

# gradients / calc_gradient of a target with respect to an input
main2, startup2 = fluid.Program(), fluid.Program()
with fluid.program_guard(main2, startup2):
    a = fluid.data(name="a", shape=[None, 3], dtype="float32")
    a.stop_gradient = False
    y = fluid.layers.reduce_sum(fluid.layers.square(a))
    (da,) = gradients([y], [a])
    db = calc_gradient(y, a)  # Fluid 1.8: the same gradient; calc_gradient gives one target's alone
av = np.array([[1, 2, 3]], "float32")
out, out2 = exe.run(main2, feed={"a": av}, fetch_list=[da, db])
assert np.allclose(out, 2 * av) and np.allclose(out2, 2 * av)
print("ok")
