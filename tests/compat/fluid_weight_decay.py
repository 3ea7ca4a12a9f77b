# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_weight_decay.py @ 7e801102ff29938bd0db6abab4b5e7a734f57f68
# Re-written for pe: L2Decay through the optimizer equals the decay done by hand (scale + elementwise_sub
# after the update), on a small dense net instead of the sequence model; run with `pe fluid`.
import numpy as np
import paddle.fluid as fluid


def train(by_hand):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data(name="x", shape=[None, 4], dtype="float32")
        y = fluid.data(name="y", shape=[None, 1], dtype="float32")
        pred = fluid.layers.fc(x, size=1)
        avg_cost = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        lr, coeff = 0.1, 0.01
        if by_hand:
            optimizer = fluid.optimizer.SGD(learning_rate=lr)
            params_grads = optimizer.backward(avg_cost)
            for p, g in params_grads:
                decayed = fluid.layers.scale(p, scale=coeff)
                fluid.layers.assign(fluid.layers.elementwise_add(g, decayed), g)
            optimizer.apply_gradients(params_grads)
        else:
            fluid.optimizer.SGD(learning_rate=lr, regularization=fluid.regularizer.L2Decay(coeff)).minimize(avg_cost)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.core.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        rng = np.random.RandomState(0)
        for _ in range(5):
            exe.run(main, feed={"x": rng.rand(8, 4).astype("float32"), "y": rng.rand(8, 1).astype("float32")})
        return [np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()]


for a, b in zip(train(False), train(True)):
    assert np.allclose(a, b, rtol=1e-5), (a, b)
print("ok")
