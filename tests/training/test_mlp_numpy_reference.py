"""Acceptance: five SGD steps of a 784-256-256-10 MLP (relu, softmax_with_cross_entropy, mean) from
given weights match the same five steps written out in plain float64 numpy (forward and backward
by hand) to 1e-5 relative: losses, gradients and the weights after every step."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

SIZES = [784, 256, 256, 10]
BATCH, STEPS, LR = 32, 5, 0.1


def given_weights():
    rng = np.random.default_rng(2024)
    weights = {}
    for i, (fan_in, fan_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        weights[f"w{i}"] = (rng.normal(size=(fan_in, fan_out)) * np.sqrt(2.0 / fan_in)).astype("float32")
        weights[f"b{i}"] = rng.uniform(-0.1, 0.1, size=fan_out).astype("float32")
    return weights


def batches():
    rng = np.random.default_rng(7)
    return [
        (rng.uniform(0, 1, size=(BATCH, 784)).astype("float32"), rng.integers(0, 10, size=(BATCH, 1)).astype("int64"))
        for _ in range(STEPS)
    ]


def numpy_sgd(weights, data):
    """Plain float64 numpy: forward, hand-written backward, SGD; returns per step (loss, grads, weights)."""
    p = {k: v.astype(np.float64) for k, v in weights.items()}
    history = []
    for x, label in data:
        x = x.astype(np.float64)
        n = len(x)
        z0 = x @ p["w0"] + p["b0"]
        h0 = np.maximum(z0, 0)
        z1 = h0 @ p["w1"] + p["b1"]
        h1 = np.maximum(z1, 0)
        logits = h1 @ p["w2"] + p["b2"]
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        rows = np.arange(n)
        loss = -log_p[rows, label[:, 0]].mean()

        dlogits = np.exp(log_p)
        dlogits[rows, label[:, 0]] -= 1.0
        dlogits /= n
        g = {"w2": h1.T @ dlogits, "b2": dlogits.sum(axis=0)}
        dz1 = (dlogits @ p["w2"].T) * (z1 > 0)
        g.update({"w1": h0.T @ dz1, "b1": dz1.sum(axis=0)})
        dz0 = (dz1 @ p["w1"].T) * (z0 > 0)
        g.update({"w0": x.T @ dz0, "b0": dz0.sum(axis=0)})

        p = {k: p[k] - LR * g[k] for k in p}
        history.append((loss, g, p))
    return history


def build(weights, use_initializer):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [784])
        label = fluid.layers.data("label", [1], dtype="int64")
        h = x
        for i in range(3):
            w_init = fluid.initializer.NumpyArrayInitializer(weights[f"w{i}"]) if use_initializer else None
            b_init = fluid.initializer.NumpyArrayInitializer(weights[f"b{i}"]) if use_initializer else None
            h = fluid.layers.fc(
                h,
                SIZES[i + 1],
                act="relu" if i < 2 else None,
                param_attr=fluid.ParamAttr(name=f"w{i}", initializer=w_init),
                bias_attr=fluid.ParamAttr(name=f"b{i}", initializer=b_init),
            )
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(h, label))
        fluid.optimizer.SGD(learning_rate=LR).minimize(loss)
    return main, startup, loss


def assert_close(got, want, what):
    got = np.asarray(got, dtype=np.float64)
    rel = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert rel < 1e-5, f"{what}: relative error {rel:.2e}"
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max(), err_msg=what)


@pytest.mark.parametrize("use_initializer", [True, False], ids=["NumpyArrayInitializer", "scope_set"])
def test_five_sgd_steps_match_float64_numpy(use_initializer):
    weights, data = given_weights(), batches()
    main, startup, loss = build(weights, use_initializer)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    if not use_initializer:
        for name, value in weights.items():
            scope.var(name).get_tensor().set(value, fluid.CPUPlace())
    for name, value in weights.items():
        np.testing.assert_array_equal(np.array(scope.find_var(name).get_tensor()), value)

    names = sorted(weights)
    fetch = [loss.name] + [n + "@GRAD" for n in names] + names
    for step, ((x, label), (ref_loss, ref_grads, ref_params)) in enumerate(zip(data, numpy_sgd(weights, data)), 1):
        out = exe.run(main, feed={"x": x, "label": label}, fetch_list=fetch, scope=scope)
        assert_close(out[0][0], ref_loss, f"loss at step {step}")
        for name, got in zip(names, out[1 : 1 + len(names)]):
            assert_close(got, ref_grads[name], f"gradient of {name} at step {step}")
        for name, got in zip(names, out[1 + len(names) :]):
            assert got.dtype == np.float32
            assert_close(got, ref_params[name], f"{name} after step {step}")
