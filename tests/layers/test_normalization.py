"""prelu, instance_norm, group_norm and conv2d_transpose as Fluid 1.8 users call them: parameters
(shapes, initial values), output shapes, mistakes at build time, and a training step that moves the
parameters (numerics: their op cases)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError

layers = fluid.layers


@pytest.fixture
def progs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main, startup


def _params(main):
    return {p.name: p for p in main.global_block().all_parameters()}


def _run(progs, feed, fetch):
    main, startup = progs
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope), scope


def test_prelu_modes_parameters_and_values(progs):
    main, _ = progs
    x = layers.data("x", [3, 2, 2], dtype="float32")
    outs = [layers.prelu(x, mode) for mode in ("all", "channel", "element")]
    shapes = sorted(tuple(p.shape) for p in _params(main).values())
    assert shapes == [(1,), (1, 3, 1, 1), (1, 3, 2, 2)]
    assert all(o.shape == x.shape for o in outs)
    xv = np.random.default_rng(0).normal(size=(2, 3, 2, 2)).astype(np.float32)
    got, _ = _run(progs, {"x": xv}, outs)
    want = np.where(xv > 0, xv, 0.25 * xv)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-6)


def test_prelu_mistakes(progs):
    x = layers.data("x", [3, 2, 2], dtype="float32")
    with pytest.raises(PeError, match="mode='chanel' must be"):
        layers.prelu(x, "chanel")


def test_instance_norm_and_group_norm_parameters_and_values(progs):
    main, _ = progs
    x = layers.data("x", [4, 3, 2], dtype="float32")
    inorm = layers.instance_norm(x)
    gnorm = layers.group_norm(x, groups=2, act="relu")
    params = _params(main)
    assert sorted(tuple(p.shape) for p in params.values()) == [(4,)] * 2  # group_norm: none without param_attr
    assert inorm.shape == x.shape and gnorm.shape == x.shape
    xv = np.random.default_rng(1).normal(size=(2, 4, 3, 2)).astype(np.float32)
    (got_i, got_g), _ = _run(progs, {"x": xv}, [inorm, gnorm])
    m, v = xv.mean(axis=(2, 3), keepdims=True), xv.var(axis=(2, 3), keepdims=True)
    np.testing.assert_allclose(got_i, (xv - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)
    xg = xv.reshape(2, 2, -1)
    want = (xg - xg.mean(axis=2, keepdims=True)) / np.sqrt(xg.var(axis=2, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got_g, np.maximum(want.reshape(xv.shape), 0), rtol=1e-4, atol=1e-5)


def test_norms_train_their_parameters(progs):
    main, _ = progs
    x = layers.data("x", [4, 3, 2], dtype="float32")
    y = layers.group_norm(
        layers.instance_norm(x, param_attr=fluid.ParamAttr(name="in_scale")),
        groups=4,
        bias_attr=fluid.ParamAttr(name="gn_bias"),
    )
    loss = layers.mean(layers.square(y - 1.0))
    fluid.optimizer.SGD(0.1).minimize(loss)
    xv = np.random.default_rng(2).normal(size=(2, 4, 3, 2)).astype(np.float32)
    _, scope = _run(progs, {"x": xv}, [loss])
    bias = np.array(scope.find_var("gn_bias").get_tensor())
    assert np.all(bias > 0), bias  # pulled towards the target 1


def test_norm_mistakes(progs):
    x = layers.data("x", [6, 3, 2], dtype="float32")
    with pytest.raises(PeError, match="groups=4 must be an int >= 1 dividing the 6 channels"):
        layers.group_norm(x, groups=4)
    with pytest.raises(ValueError, match="data_layout='NDHW' must be 'NCHW' or 'NHWC'"):
        layers.group_norm(x, groups=2, data_layout="NDHW")
    assert layers.group_norm(x, groups=2, data_layout="NHWC").shape == (-1, 6, 3, 2)  # 2 channels last


def test_conv2d_transpose_shapes_and_values(progs):
    main, _ = progs
    x = layers.data("x", [4, 3, 3], dtype="float32")
    up = layers.conv2d_transpose(
        x,
        num_filters=6,
        filter_size=3,
        stride=2,
        padding=1,
        groups=2,
        param_attr=fluid.ParamAttr(name="w_up"),
        bias_attr=False,
    )
    sized = layers.conv2d_transpose(x, num_filters=2, output_size=[8, 7], stride=2, act="relu")
    assert up.shape == (-1, 6, 5, 5) and sized.shape == (-1, 2, 8, 7)
    assert tuple(main.global_block().var("w_up").shape) == (4, 3, 3, 3)
    filt = [tuple(p.shape) for p in _params(main).values() if len(p.shape) == 4]
    assert (4, 2, 4, 3) in filt  # Fluid's filter size for output_size [8, 7], stride 2
    xv = np.random.default_rng(3).normal(size=(2, 4, 3, 3)).astype(np.float32)
    (got,), scope = _run(progs, {"x": xv}, [up])
    w = np.array(scope.find_var("w_up").get_tensor())
    full = np.zeros((2, 6, 7, 7), dtype=np.float64)
    for c in range(4):
        g = c // 2
        for i in range(3):
            for j in range(3):
                full[:, g * 3 : (g + 1) * 3, 2 * i : 2 * i + 3, 2 * j : 2 * j + 3] += (
                    xv[:, c, i, j][:, None, None, None] * w[c][None]
                )
    np.testing.assert_allclose(got, full[:, :, 1:6, 1:6], rtol=1e-4, atol=1e-5)


def test_conv2d_transpose_mistakes(progs):
    x = layers.data("x", [4, 3, 3], dtype="float32")
    with pytest.raises(PeError, match="give filter_size or output_size"):
        layers.conv2d_transpose(x, num_filters=2)
    with pytest.raises(PeError, match="groups=3 must divide"):
        layers.conv2d_transpose(x, num_filters=6, filter_size=3, groups=3)
    # (Fluid 1.8.5 builds it: conv2d_transpose checks output_size's range when it runs)
    assert layers.conv2d_transpose(x, num_filters=2, filter_size=3, output_size=[9, 9]).shape == (-1, 2, 9, 9)


def _fluid_op(block, op_type, inputs, outputs, **attrs):
    op = block.ops.add(type=op_type)
    for slot, args in inputs.items():
        op.inputs.add(parameter=slot, arguments=args)
    for slot, args in outputs.items():
        op.outputs.add(parameter=slot, arguments=args)
    for name, value in dict(attrs, op_role=0, op_namescope="/", op_callstack=["x.py"], op_device="").items():
        if isinstance(value, list) and (not value or isinstance(value[0], int)):
            attr = op.attrs.add(name=name, type=3)  # INTS
            attr.ints.extend(value)
        elif isinstance(value, list):
            attr = op.attrs.add(name=name, type=5)
            attr.strings.extend(value)
        else:
            kind, field = {bool: (6, "b"), int: (0, "i"), float: (1, "f"), str: (2, "s")}[type(value)]
            attr = op.attrs.add(name=name, type=kind)
            setattr(attr, field, value)


def test_a_fluid_model_with_these_ops_loads(tmp_path):
    """A ProgramDesc as Fluid 1.8 saves it (its op types, slots and attributes, defaults included)
    loads and computes what the ops' numpy references say."""
    from pe_cli.base.fluid_proto import messages
    from tests.ops.cases_convolution_transpose import _conv_transpose_ref
    from tests.ops.cases_activation import _prelu_ref
    from tests.ops.cases_normalization import _group_norm_ref, _instance_norm_ref
    from tests.io.test_fluid_model_files import FEED, FETCH, _var, tensor_file

    rng = np.random.default_rng(5)
    params = {
        "w": rng.normal(size=(2, 2, 3, 3)),
        "gs": rng.normal(size=2),
        "gb": rng.normal(size=2),
        "is": rng.normal(size=2),
        "ib": rng.normal(size=2),
        "alpha": rng.normal(size=(1, 2, 1, 1)),
    }
    params = {k: v.astype(np.float32) for k, v in params.items()}
    desc = messages()["ProgramDesc"]()
    block = desc.blocks.add(idx=0, parent_idx=-1)
    for name, value in params.items():
        _var(block, name, list(value.shape), True)
    for name in ("x", "t", "g", "gm", "gv", "i", "im", "iv", "out"):
        _var(block, name, [-1, 2, 3, 3] if name == "x" else [-1])
    _var(block, "feed", [], True, FEED)
    _var(block, "fetch", [], True, FETCH)
    _fluid_op(block, "feed", {"X": ["feed"]}, {"Out": ["x"]}, col=0)
    conv_attrs = dict(
        output_size=[],
        groups=1,
        dilations=[1, 1],
        strides=[2, 2],
        paddings=[1, 1],
        data_format="NCHW",
        padding_algorithm="EXPLICIT",
    )
    _fluid_op(
        block,
        "conv2d_transpose",
        {"Input": ["x"], "Filter": ["w"]},
        {"Output": ["t"]},
        use_cudnn=True,
        use_mkldnn=False,
        force_fp32_output=False,
        fuse_relu=False,
        fuse_activation="",
        fuse_alpha=0.0,
        fuse_beta=0.0,
        workspace_size_MB=4096,
        **conv_attrs,
    )
    _fluid_op(
        block,
        "group_norm",
        {"X": ["t"], "Scale": ["gs"], "Bias": ["gb"]},
        {"Y": ["g"], "Mean": ["gm"], "Variance": ["gv"]},
        epsilon=1e-5,
        groups=2,
        data_layout="NCHW",
    )
    _fluid_op(
        block,
        "instance_norm",
        {"X": ["g"], "Scale": ["is"], "Bias": ["ib"]},
        {"Y": ["i"], "SavedMean": ["im"], "SavedVariance": ["iv"]},
        epsilon=1e-5,
    )
    _fluid_op(block, "prelu", {"X": ["i"], "Alpha": ["alpha"]}, {"Out": ["out"]}, mode="channel")
    _fluid_op(block, "fetch", {"X": ["out"]}, {"Out": ["fetch"]}, col=0)
    desc.version.version = 1008005
    (tmp_path / "__model__").write_bytes(desc.SerializeToString())
    for name, value in params.items():
        (tmp_path / name).write_bytes(tensor_file(value))
    exe = fluid.Executor(fluid.CPUPlace())
    x = rng.normal(size=(2, 2, 3, 3)).astype(np.float32)
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path), exe)
        (got,) = exe.run(program, feed={"x": x}, fetch_list=fetches)
    p = {k: v.astype(np.float64) for k, v in params.items()}
    t = _conv_transpose_ref({"Input": x.astype(np.float64), "Filter": p["w"]}, conv_attrs)["Output"]
    g = _group_norm_ref({"X": t, "Scale": p["gs"], "Bias": p["gb"]}, {"epsilon": 1e-5, "groups": 2})["Y"]
    i = _instance_norm_ref({"X": g, "Scale": p["is"], "Bias": p["ib"]}, {"epsilon": 1e-5})["Y"]
    want = _prelu_ref("channel")({"X": i, "Alpha": p["alpha"]}, {})["Out"]
    assert got.shape == (2, 2, 5, 5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_conv2d_transpose_and_prelu_train(progs):
    x = layers.data("x", [2, 3, 3], dtype="float32")
    y = layers.prelu(
        layers.conv2d_transpose(x, num_filters=2, filter_size=2, stride=2, param_attr=fluid.ParamAttr(name="w_t")),
        "channel",
        param_attr=fluid.ParamAttr(name="alpha"),
    )
    loss = layers.mean(layers.square(y - 1.0))
    fluid.optimizer.SGD(0.5).minimize(loss)
    main_prog, startup = progs
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    w0 = np.array(scope.find_var("w_t").get_tensor()).copy()
    xv = np.random.default_rng(4).normal(size=(4, 2, 3, 3)).astype(np.float32)
    losses = [exe.run(main_prog, feed={"x": xv}, fetch_list=[loss], scope=scope)[0] for _ in range(5)]
    assert float(losses[-1]) < float(losses[0])
    assert not np.allclose(np.array(scope.find_var("w_t").get_tensor()), w0)
    assert not np.allclose(np.array(scope.find_var("alpha").get_tensor()), 0.25)
