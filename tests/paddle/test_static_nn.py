"""paddle.static.nn's builders with Paddle 2.6's signatures (the ones 2.x changed: fc, embedding,
prelu, cond, deform_conv2d, sparse_embedding, static_pylayer) and the rest of paddle.static (Print,
ctr_metric_bundle, device_guard, normalize_program, the XPU/IPU refusals), run in-process against
numpy."""

import numpy as np
import pytest

from pe_cli import paddle
from pe_cli.base.errors import FluidUnsupported, PeError
from pe_cli.executor.scope import Scope

S, NN = paddle.static, paddle.static.nn
RNG = np.random.RandomState(3)


def _run(build, feed, fetch_names=None):
    """Builds ``build()`` (returns the variables to fetch) in fresh programs, runs startup and one
    main step; returns (fetched arrays, main program, scope)."""
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        fetch = build()
    scope = Scope()
    exe = S.Executor(paddle.CPUPlace())
    with S.scope_guard(scope):
        exe.run(startup)
        out = exe.run(main, feed=feed, fetch_list=fetch)
    return out, main, scope


def _const(v):
    return paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(v))


def test_fc_takes_2x_names_and_flattens_all_but_the_last_dim_with_minus_one():
    x = RNG.randn(2, 3, 4).astype("float32")

    def build():
        xv = S.data("x", [None, 3, 4], "float32")
        return [
            NN.fc(x=xv, size=5, num_flatten_dims=-1, weight_attr=_const(0.5), bias_attr=_const(1.0), activation="relu")
        ]

    (out,), _, _ = _run(build, {"x": x})
    assert out.shape == (2, 3, 5)
    np.testing.assert_allclose(out, np.maximum(x.sum(-1, keepdims=True) * 0.5 + 1.0, 0).repeat(5, -1), rtol=1e-5)


def test_embedding_looks_up_ids_of_any_shape_and_sparse_embedding_needs_the_trailing_one():
    ids = np.array([[1, 0, 3], [2, 2, 0]], "int64")

    def build():
        iv = S.data("ids", [None, 3], "int64")
        col = S.data("col", [None, 1], "int64")
        emb = NN.embedding(iv, size=[4, 2], padding_idx=0, param_attr=paddle.ParamAttr(name="table"))
        sparse = NN.sparse_embedding(col, size=[4, 2], param_attr=paddle.ParamAttr(name="table2"))
        return [emb, sparse, "table", "table2"]

    (emb, sparse, table, table2), _, _ = _run(build, {"ids": ids, "col": ids[:, :1]})
    assert emb.shape == (2, 3, 2)
    want = table[ids]
    want[ids == 0] = 0  # padding_idx rows are zeros
    np.testing.assert_allclose(emb, want)
    np.testing.assert_allclose(sparse, table2[ids[:, 0]])
    with S.program_guard(S.Program(), S.Program()):
        with pytest.raises(ValueError, match="table_class"):
            NN.sparse_embedding(S.data("c", [None, 1], "int64"), [4, 2], table_class="Nope")


@pytest.mark.parametrize(
    "mode,fmt,alpha_shape",
    [
        ("all", "NCHW", (1,)),
        ("channel", "NCHW", (1, 3, 1, 1)),
        ("channel", "NHWC", (1, 1, 1, 3)),
        ("element", "NCHW", (1, 2, 2, 3)),
    ],
)
def test_prelu_modes_and_data_format_with_the_alpha_gradient(mode, fmt, alpha_shape):
    x = (
        RNG.randn(2, 2, 2, 3).astype("float32")
        if fmt == "NHWC" or mode == "element"
        else RNG.randn(2, 3, 2, 2).astype("float32")
    )
    alpha_init = np.arange(1, int(np.prod(alpha_shape)) + 1, dtype="float32").reshape(alpha_shape) / 10

    def build():
        xv = S.data("x", [None] + list(x.shape[1:]), "float32")
        attr = paddle.ParamAttr(name="alpha", initializer=paddle.nn.initializer.Assign(alpha_init))
        out = NN.prelu(xv, mode, param_attr=attr, data_format=fmt)
        S.append_backward(paddle.sum(out))
        return [out, "alpha", "alpha@GRAD"]

    (out, alpha, grad), _, _ = _run(build, {"x": x})
    assert alpha.shape == alpha_shape  # Paddle 2.6's parameter shape
    np.testing.assert_allclose(out, np.where(x > 0, x, alpha_init * x), rtol=1e-6)
    dalpha = np.where(x > 0, 0, x)
    axes = (
        tuple(i for i in range(4) if alpha_shape[i] == 1 and len(alpha_shape) == 4)
        if len(alpha_shape) == 4
        else tuple(range(4))
    )
    np.testing.assert_allclose(grad.reshape(alpha_shape), dalpha.sum(axis=axes).reshape(alpha_shape), rtol=1e-5)


def test_prelu_refuses_an_unknown_mode():
    with S.program_guard(S.Program(), S.Program()):
        with pytest.raises(ValueError, match="mode"):
            NN.prelu(S.data("x", [None, 3], "float32"), "row")


def test_deform_conv2d_with_zero_offsets_and_no_mask_is_a_plain_convolution():
    x = RNG.randn(1, 2, 5, 5).astype("float32")

    def build():
        xv = S.data("x", [None, 2, 5, 5], "float32")
        off = S.data("off", [None, 18, 3, 3], "float32")
        w = paddle.ParamAttr(name="w")
        deform = NN.deform_conv2d(xv, off, None, num_filters=4, filter_size=3, weight_attr=w, bias_attr=False)
        plain = NN.conv2d(xv, 4, 3, param_attr=w, bias_attr=False)
        return [deform, plain]

    (deform, plain), _, _ = _run(build, {"x": x, "off": np.zeros((1, 18, 3, 3), "float32")})
    np.testing.assert_allclose(deform, plain, rtol=1e-5, atol=1e-6)
    with S.program_guard(S.Program(), S.Program()), pytest.raises(ValueError, match="4D"):
        NN.deform_conv2d(S.data("x1", [0]), S.data("o1", [0]), None, 1, 1)


def test_cond_takes_return_names_and_static_pylayer_runs_forward_without_a_gradient():
    x = np.array([[1.0, -2.0]], "float32")

    def build():
        xv = S.data("x", [None, 2], "float32")
        xv.stop_gradient = False
        pred = paddle.full([1], True, "bool")
        picked = NN.cond(pred, lambda: xv * 2.0, lambda: xv * 3.0, return_names=["out"])
        layered = NN.static_pylayer(lambda a: paddle.exp(a), [xv])
        loss = paddle.sum(picked) + paddle.sum(layered)
        grads = S.gradients([loss], [xv])
        return [picked, layered, grads[0]]

    (picked, layered, grad), _, _ = _run(build, {"x": x})
    np.testing.assert_allclose(picked, x * 2)
    np.testing.assert_allclose(layered, np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(grad, np.full_like(x, 2.0))  # none through the pylayer (no backward_fn)


def test_normalize_program_prunes_to_the_fetched_variables():
    x = RNG.randn(3, 4).astype("float32")
    built = {}

    def build():
        built["x"] = S.data("x", [None, 4], "float32")
        built["pred"] = NN.fc(
            built["x"], 2, weight_attr=paddle.ParamAttr(name="fw"), bias_attr=paddle.ParamAttr(name="fb")
        )
        paddle.optimizer.SGD(0.1).minimize(paddle.mean(built["pred"]))
        return ["fw", "fb"]

    (fw, fb), main, scope = _run(build, {"x": x})  # the parameters after one SGD step
    with pytest.raises(TypeError, match="program type"):
        S.normalize_program("main", [], [])
    infer = S.normalize_program(main, [built["x"]], [built["pred"]])
    assert not {op.type for op in infer.global_block().ops} & {"sgd", "mean", "mean_grad"}
    with S.scope_guard(scope):
        (out,) = S.Executor(paddle.CPUPlace()).run(infer, feed={"x": x}, fetch_list=[built["pred"].name])
    np.testing.assert_allclose(out, x @ fw + fb, rtol=1e-5)


def test_print_device_guard_and_the_refused_names(capsys):
    x = np.array([[1.5, 2.5]], "float32")

    def build():
        xv = S.data("x", [None, 2], "float32")
        with S.device_guard("cpu"):
            y = xv * 2.0
        return [S.Print(y, message="twice", print_tensor_layout=False)]

    (out,), _, _ = _run(build, {"x": x})
    np.testing.assert_allclose(out, x * 2)
    assert "twice" in capsys.readouterr().out
    with pytest.raises(ValueError, match="device"):
        with S.device_guard("cpu:0"):
            pass
    with S.program_guard(S.Program(), S.Program()):
        p = S.data("p", [None, 1], "float32")
        with pytest.raises(PeError, match="ins_tag_weight"):
            S.ctr_metric_bundle(p, p, ins_tag_weight=p)
        assert len(S.ctr_metric_bundle(p, p)) == 6
    for refused in (S.xpu_places, S.IpuStrategy, S.ipu_shard_guard, S.set_ipu_shard):
        with pytest.raises(FluidUnsupported, match="XPU|IPU"):
            refused()


def test_2x_parameters_of_save_append_backward_and_input_spec(tmp_path):
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        loss = paddle.mean(NN.fc(S.data("x", [None, 2], "float32"), 1))
        with pytest.raises(PeError, match="distop_context"):
            S.append_backward(loss, distop_context=object())
        assert len(S.append_backward(loss, checkpoints=[loss])) == 2  # weight and bias
    with S.scope_guard(Scope()):
        S.Executor(paddle.CPUPlace()).run(startup)
        with pytest.raises(ValueError, match="protocol"):
            S.save(main, str(tmp_path / "m"), protocol=5)
        S.save(main, str(tmp_path / "m"), protocol=2)
    assert (tmp_path / "m.pdparams").is_file()
    assert S.InputSpec([None, 2], stop_gradient=True).stop_gradient is True


def test_weight_norm_param_attr_starts_as_its_initializer_and_trains_g_and_v():
    x = RNG.rand(2, 3).astype("float32")
    main, startup = S.Program(), S.Program()
    with S.program_guard(main, startup):
        out = NN.fc(
            S.data("x", [None, 3], "float32"), 4, weight_attr=S.WeightNormParamAttr(dim=1, name="w"), bias_attr=False
        )
        test = main.clone(for_test=True)
        paddle.optimizer.SGD(0.5).minimize(paddle.mean(out))
    exe = S.Executor(paddle.CPUPlace())
    with S.scope_guard(Scope()):
        exe.run(startup)
        o, v, g = exe.run(test, feed={"x": x}, fetch_list=[out.name, "w_v", "w_g"])
        exe.run(main, feed={"x": x})
        v1, g1 = exe.run(test, feed={"x": x}, fetch_list=["w_v", "w_g"])
    n = np.sqrt((v.astype("float64") ** 2).sum(0, keepdims=True))
    assert g.shape == (1, 4)
    np.testing.assert_allclose(g, n, rtol=1e-5)  # g = ||v||: w = v at the start
    np.testing.assert_allclose(o, x @ v, rtol=1e-5)
    dw = np.repeat(x.sum(0)[:, None] / 8.0, 4, axis=1)  # d mean(x @ w) / dw
    dg = (dw * v / n).sum(0, keepdims=True)
    dv = g / n * dw - g * v * (dw * v).sum(0, keepdims=True) / n**3
    np.testing.assert_allclose(g1, g - 0.5 * dg, rtol=1e-4)
    np.testing.assert_allclose(v1, v - 0.5 * dv, rtol=1e-4, atol=1e-6)


def test_gradient_reaches_a_filled_tensor_marked_differentiable_through_case():
    """Paddle 2.6's test_case (0-D tensors): x = full([], -2), x.stop_gradient = False; out = case(
    false -> x, default -x); d out/dx is -1, a 0-D gradient of a 0-D loss."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.full(shape=[], dtype="float32", fill_value=-2.0)
        x.stop_gradient = False
        pred = paddle.full(shape=[], dtype="bool", fill_value=0)
        out = paddle.static.nn.case(pred_fn_pairs=[(pred, lambda: x)], default=lambda: -x)
        paddle.static.append_backward(out)
    value, grad = paddle.static.Executor(paddle.CPUPlace()).run(main, fetch_list=[out, x.name + "@GRAD"])
    assert value.shape == () and float(value) == 2.0
    assert grad.shape == () and float(grad) == -1.0
