"""paddle.nn's Layer in static mode: the issue's Sequential LeNet trains (its loss falls), parameters
live in the programs they are built in, state_dict/set_state_dict round-trip through the scope,
train()/eval() switch dropout and batch norm, hooks, containers, initializers and ParamAttr."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import PeError
from pe_cli.executor.scope import Scope

nn, F = paddle.nn, paddle.nn.functional


def _programs():
    return paddle.static.Program(), paddle.static.Program()


def _run(main, startup, feed, fetch, scope):
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        return exe.run(main, feed=feed, fetch_list=fetch) if fetch else None


def test_the_issues_lenet_trains_and_its_loss_falls():
    paddle.seed(0)  # its initial weights, whatever earlier tests drew from the default generator
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 1, 28, 28])
        y = paddle.static.data("y", [None, 1], "int64")
        net = nn.Sequential(nn.Conv2D(1, 6, 5), nn.ReLU(), nn.MaxPool2D(2), nn.Flatten(), nn.Linear(864, 10))
        loss = F.cross_entropy(net(x), y)
        paddle.optimizer.Adam(learning_rate=1e-3, grad_clip=nn.ClipGradByGlobalNorm(5.0)).minimize(loss)
    rng = np.random.RandomState(0)
    feed = {"x": rng.rand(16, 1, 28, 28).astype("float32"), "y": rng.randint(0, 10, (16, 1)).astype("int64")}
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        losses = [float(exe.run(main, feed=feed, fetch_list=[loss])[0]) for _ in range(8)]
        assert [k for k, _ in net.named_parameters()] == ["0.weight", "0.bias", "4.weight", "4.bias"]
        assert net[0].weight.shape == (6, 1, 5, 5) and net[4].weight.shape == (864, 10)
        assert net[0].weight.name.startswith("conv2d_") and net[4].bias.name.startswith("linear_")  # Paddle's names
        state = net.state_dict()
    assert losses[-1] < losses[0] * 0.8, losses
    assert {k: v.shape for k, v in state.items()} == {
        "0.weight": (6, 1, 5, 5),
        "0.bias": (6,),
        "4.weight": (864, 10),
        "4.bias": (10,),
    }


def test_state_dict_round_trip_sets_the_values_the_program_computes_with():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 3])
        lin = nn.Linear(3, 2)
        out = lin(x)
    with paddle.static.scope_guard(Scope()), pytest.raises(PeError, match="run the startup program first"):
        lin.state_dict()
    scope = Scope()
    _run(main, startup, {"x": np.ones((1, 3), "float32")}, [out], scope)
    w = np.arange(6, dtype="float32").reshape(3, 2)
    b = np.array([10, 20], "float32")
    with paddle.static.scope_guard(scope):
        missing, unexpected = lin.set_state_dict({"weight": w, "bias": b, "extra": w})
        assert (missing, unexpected) == ([], ["extra"])
        got = lin.state_dict()
        (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
            main, feed={"x": np.ones((1, 3), "float32")}, fetch_list=[out]
        )
        with pytest.warns(UserWarning, match=r"weight receives a shape \[2, 3\], but the expected shape is \[3, 2\]"):
            assert lin.set_state_dict({"weight": np.zeros((2, 3), "float32"), "bias": b}) == (["weight"], ["weight"])
    np.testing.assert_array_equal(got["weight"], w)
    np.testing.assert_allclose(res, np.ones((1, 3)) @ w + b)


def test_train_and_eval_switch_dropout_and_batch_norm():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4, 8])
        drop, bn = nn.Dropout(0.5), nn.BatchNorm1D(4)
        train_out = drop(bn(x))
        net = nn.Sequential(drop, bn)
        net.eval()
        assert not drop.training and not bn.training
        eval_out = drop(bn(x))
        net.train()
    xs = np.random.RandomState(1).rand(2, 4, 8).astype("float32") + 1.0
    scope = Scope()
    t, e = _run(main, startup, {"x": xs}, [train_out, eval_out], scope)
    with paddle.static.scope_guard(scope):
        state = bn.state_dict()
    zeros = (t == 0).mean()
    assert 0.3 < zeros < 0.7  # about half dropped, the rest scaled by 2
    np.testing.assert_allclose(state["_mean"], 0.1 * xs.mean(axis=(0, 2)), rtol=1e-5)  # momentum 0.9 from 0
    mean, var = state["_mean"][None, :, None], state["_variance"][None, :, None]
    np.testing.assert_allclose(e, (xs - mean) / np.sqrt(var + 1e-5), rtol=1e-4)  # running stats, no dropout


def test_a_layer_made_outside_the_guard_builds_its_parameters_in_the_program_it_is_called_in():
    net = nn.Sequential(("fc", nn.Linear(2, 2)), ("act", nn.Tanh()))
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        out = net(paddle.static.data("x", [None, 2]))
    assert net.fc.weight.name in main.global_block().vars
    assert any(net.fc.weight.name in op.output_arg_names for op in startup.global_block().ops)
    (res,) = _run(main, startup, {"x": np.zeros((1, 2), "float32")}, [out], Scope())
    np.testing.assert_allclose(res, np.zeros((1, 2)))


class _Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = nn.LayerList([nn.Linear(2, 2) for _ in range(2)])
        self.heads = nn.LayerDict({"a": nn.Linear(2, 1)})
        self.extra = nn.ParameterList([self.create_parameter([2], default_initializer=nn.initializer.Constant(3.0))])
        self.register_buffer("steps", paddle.static.create_global_var([1], 0.0, "float32", persistable=True))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.heads["a"](x * self.extra[0])


def test_walking_a_layer_tree_hooks_and_apply():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        net = _Net()
        seen = []
        handle = net.register_forward_pre_hook(lambda layer, inputs: seen.append("pre"))
        net.register_forward_post_hook(lambda layer, inputs, out: out * 2.0)
        out = net(paddle.static.data("x", [None, 2]))
        handle.remove()
        net(paddle.static.data("x2", [None, 2]))
    assert seen == ["pre"]
    names = [k for k, _ in net.named_parameters()]
    assert names == [
        "blocks.0.weight",
        "blocks.0.bias",
        "blocks.1.weight",
        "blocks.1.bias",
        "heads.a.weight",
        "heads.a.bias",
        "extra.0",
    ]
    assert [k for k, _ in net.named_sublayers()] == ["blocks", "blocks.0", "blocks.1", "heads", "heads.a", "extra"]
    assert len(list(net.children())) == 3 and net.full_name().startswith("__net_")
    visited = []
    net.apply(lambda layer: visited.append(type(layer).__name__))
    assert visited[-1] == "_Net" and visited.count("Linear") == 3
    scope = Scope()
    _run(main, startup, {"x": np.ones((1, 2), "float32"), "x2": np.ones((1, 2), "float32")}, [out], scope)
    with paddle.static.scope_guard(scope):
        state = net.state_dict()
    assert "steps" in state and np.all(state["extra.0"] == 3.0)


def test_initializers_and_param_attr():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        a = nn.Linear(4, 3, weight_attr=paddle.ParamAttr(initializer=nn.initializer.Constant(0.5), need_clip=False))
        b = nn.Conv2D(2, 4, 3, weight_attr=nn.initializer.Dirac())
        c = nn.Linear(6, 4, weight_attr=nn.initializer.Orthogonal())
        nn.initializer.set_global_initializer(nn.initializer.Constant(2.0), nn.initializer.Constant(-1.0))
        try:
            d = nn.Linear(2, 2)
        finally:
            nn.initializer.set_global_initializer(None)
        a(paddle.static.data("x", [None, 4]))
    assert a.weight.need_clip is False and nn.initializer.calculate_gain("relu") == pytest.approx(2**0.5)
    scope = Scope()
    _run(main, startup, {}, [], scope)
    with paddle.static.scope_guard(scope):
        wa, wb, wc = a.state_dict()["weight"], b.state_dict()["weight"], c.state_dict()["weight"]
        wd = d.state_dict()
    assert np.all(wa == 0.5) and np.all(wd["weight"] == 2.0) and np.all(wd["bias"] == -1.0)
    assert wb[0, 0, 1, 1] == 1 and wb[1, 1, 1, 1] == 1 and wb.sum() == 2
    np.testing.assert_allclose(wc.T @ wc, np.eye(4), atol=1e-5)
