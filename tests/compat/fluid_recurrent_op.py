# after: PaddlePaddle/Paddle python/paddle/fluid/tests/unittests/test_recurrent_op.py @ 033f7e266a95fc19a6694d95998a9bb8243190e5
# Re-written for pe (same API calls, same facts asserted), run with `pe fluid`.
import numpy as np
import paddle.fluid as fluid
import paddle.fluid.core as core
import paddle.fluid.layers as layers
from paddle.fluid import ParamAttr
from paddle.fluid.backward import append_backward
from paddle.fluid.executor import Executor
from paddle.fluid.framework import Program, grad_var_name

np.random.seed(123)
PLACE = core.CPUPlace()


def create_tensor(np_data, place):
    tensor = core.LoDTensor()
    tensor.set(np_data, place)
    return tensor


def seq_input(shape):
    x = layers.data(shape=list(shape), dtype="float32", name="x", append_batch_size=False)
    x.stop_gradient = False
    return x


def rnn1(shape, values):
    """h_t = (x_t + h_{t-1}) * scale"""
    x = seq_input(shape)
    h_boot = layers.data(shape=[shape[2]], dtype="float32", name="h_boot")
    h_boot.stop_gradient = False
    rnn = layers.StaticRNN()
    with rnn.step():
        h_pre = rnn.memory(init=h_boot)
        x_t = rnn.step_input(x)
        h = layers.scale(x=layers.elementwise_add(x=h_pre, y=x_t), scale=0.5)
        rnn.update_memory(h_pre, h)
        rnn.output(h)
    return rnn()


def rnn2(shape, values):
    """h_t = sigmoid(W x_t + U h_{t-1})"""
    x = seq_input(shape)
    h_boot = layers.data(shape=[shape[2]], dtype="float32", name="h_boot")
    h_boot.stop_gradient = False
    rnn = layers.StaticRNN()
    with rnn.step():
        h_pre = rnn.memory(init=h_boot)
        x_t = rnn.step_input(x)
        temp_l = layers.fc(
            input=x_t,
            size=shape[2],
            bias_attr=False,
            param_attr=ParamAttr(name="W", initializer=fluid.initializer.ConstantInitializer(1.0)),
        )
        temp_r = layers.fc(
            input=h_pre,
            size=shape[2],
            bias_attr=False,
            param_attr=ParamAttr(name="U", initializer=fluid.initializer.ConstantInitializer(0.0)),
        )
        h = layers.sigmoid(x=layers.elementwise_add(x=temp_l, y=temp_r))
        rnn.update_memory(h_pre, h)
        rnn.output(h)
    return rnn()


def rnn3(shape, values):
    """two memories: y = h_1 + h_2 + x, each memory kept"""
    x = seq_input(shape)
    boots = []
    for name in ("h_boot1", "h_boot2"):
        b = layers.data(shape=list(shape[1:]), dtype="float32", name=name, append_batch_size=False)
        b.stop_gradient = False
        boots.append(b)
    rnn = layers.StaticRNN()
    with rnn.step():
        h_pre1, h_pre2 = rnn.memory(init=boots[0]), rnn.memory(init=boots[1])
        x_t = rnn.step_input(x)
        mem1, mem2 = layers.scale(x=h_pre1, scale=1.0), layers.scale(x=h_pre2, scale=1.0)
        out = layers.sums(input=[mem1, x_t, mem2])
        rnn.update_memory(h_pre1, mem1)
        rnn.update_memory(h_pre2, mem2)
        rnn.output(out)
    return rnn()


def rnn4(shape, values):
    """no boot: mem = x + mem_pre, the memory sized by the outer input's batch"""
    x = seq_input(shape)
    rnn = layers.StaticRNN()
    with rnn.step():
        mem_pre = rnn.memory(shape=[-1, shape[2]], batch_ref=x)
        x_t = rnn.step_input(x)
        mem = layers.elementwise_add(x=mem_pre, y=x_t)
        rnn.update_memory(mem_pre, mem)
        rnn.output(mem)
    return rnn()


def py_forward(kind, v):
    x, ys = v["x"], []
    if kind == "rnn1":
        h = v["h_boot"]
        for t in range(len(x)):
            h = (h + x[t]) * 0.5
            ys.append(h)
    elif kind == "rnn2":
        h = v["h_boot"]
        for t in range(len(x)):
            h = 1.0 / (1.0 + np.exp(-(x[t] @ v["W"] + h @ v["U"])))
            ys.append(h)
    elif kind == "rnn3":
        ys = [v["h_boot1"] + v["h_boot2"] + x[t] for t in range(len(x))]
    else:
        ys = list(np.cumsum(x, axis=0))
    return np.array([np.mean(np.stack(ys))])


CASES = {  # kind: (builder, (sent_len, batch, input_dim), fed values)
    "rnn1": (rnn1, (1, 1, 2), ["x", "h_boot"]),
    "rnn2": (rnn2, (2, 10, 2), ["x", "h_boot", "W", "U"]),
    "rnn3": (rnn3, (2, 1, 1), ["x", "h_boot1", "h_boot2"]),
    "rnn4": (rnn4, (2, 1, 1), ["x"]),
}

for kind, (build, shape, fields) in CASES.items():
    seq_len, batch, dim = shape
    values = {
        "x": np.ones(shape, "float32"),
        "h_boot": np.random.normal(size=(batch, dim)).astype("float32"),
        "h_boot1": np.random.normal(size=(batch, dim)).astype("float32"),
        "h_boot2": np.random.normal(size=(batch, dim)).astype("float32"),
        "W": np.ones((dim, dim), "float32"),
        "U": np.zeros((dim, dim), "float32"),
    }
    if kind == "rnn2":
        values["h_boot"] = np.ones((batch, dim), "float32")
    main, startup = Program(), Program()
    with fluid.program_guard(main, startup):
        output = layers.mean(build(shape, values))
    exe = Executor(PLACE)
    exe.run(startup)

    def forward():
        feed = {f: create_tensor(values[f], PLACE) for f in fields}
        return exe.run(main, feed=feed, fetch_list=[output])[0]

    out = forward()  # check_forward
    want = py_forward(kind, values)
    assert out.shape == want.shape, (kind, out.shape, want.shape)
    np.testing.assert_allclose(out, want, rtol=0.01)
    with fluid.program_guard(main, startup):  # test_backward
        append_backward(output)
    feed = {f: create_tensor(values[f], PLACE) for f in fields}
    ana = [
        np.array(g)
        for g in exe.run(
            main, feed=feed, return_numpy=False, fetch_list=[main.global_block().var(grad_var_name(f)) for f in fields]
        )
    ]
    for name, grad in zip(fields, ana):
        num = np.zeros_like(values[name])
        for idx in np.ndindex(*num.shape):
            keep = values[name][idx]
            values[name][idx] = keep + 0.005
            y_pos = forward()
            values[name][idx] = keep - 0.005
            y_neg = forward()
            values[name][idx] = keep
            num[idx] = ((y_pos - y_neg) / 0.01)[0]
        assert num.shape == grad.shape, (kind, name)
        np.testing.assert_allclose(num, grad, rtol=0.01, atol=1e-8, err_msg=f"{kind}: {name}")
print("ok")
