"""Fluid 1.8's ``fluid.dygraph.nn`` layer classes in a static program (as Fluid's work there): their
parameters are made in the current programs, their call appends the ops, and a bad input is Fluid's
TypeError; inside ``fluid.dygraph.guard()`` (user-level dygraph, which pe lacks) they say so."""

import numpy as np
import pytest

import pe_cli.fluid as fluid


def _run(build, feed):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        layer, fetch = build()
        exe = fluid.Executor(fluid.CPUPlace())
        scope = fluid.core.Scope()
        with fluid.scope_guard(scope):
            exe.run(startup)
            params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in layer.parameters()}
            out = exe.run(main, feed=feed, fetch_list=fetch)
    return params, out


def test_linear_and_embedding_compute_with_their_parameters():
    x = np.random.RandomState(0).rand(2, 3, 4).astype("float32")
    ids = np.array([[1], [3]], dtype="int64")

    def build():
        lin = fluid.dygraph.Linear(4, 5, act="relu")
        emb = fluid.dygraph.nn.Embedding(size=[6, 5], padding_idx=3)
        holder = fluid.dygraph.Layer()
        holder.lin, holder.emb = lin, emb
        return holder, [lin(fluid.data("x", [2, 3, 4], "float32")), emb(fluid.data("ids", [2, 1], "int64"))]

    params, (y, e) = _run(build, {"x": x, "ids": ids})
    w = next(v for k, v in params.items() if k.startswith("linear") and k.endswith("w_0"))
    b = next(v for k, v in params.items() if k.startswith("linear") and k.endswith("b_0"))
    np.testing.assert_allclose(y, np.maximum(x @ w + b, 0), rtol=1e-5)
    table = next(v for k, v in params.items() if k.startswith("embedding"))
    np.testing.assert_allclose(e[0, 0], table[1])
    np.testing.assert_array_equal(e[1, 0], 0)  # padding_idx 3: zeros


def test_batch_norm_is_test_with_trainable_statistics_normalizes_by_the_batch():
    x = np.random.RandomState(1).randn(4, 3, 2, 2).astype("float32") * 3 + 1
    outs = []
    for is_test, trainable in ((False, False), (True, True), (True, False)):

        def build():
            bn = fluid.dygraph.BatchNorm(3, is_test=is_test, trainable_statistics=trainable)
            return bn, [bn(fluid.data("x", [4, 3, 2, 2], "float32"))]

        outs.append(_run(build, {"x": x})[1][0])
    m, v = x.mean(axis=(0, 2, 3), keepdims=True), x.var(axis=(0, 2, 3), keepdims=True)
    np.testing.assert_allclose(outs[0], (x - m) / np.sqrt(v + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outs[2], x / np.sqrt(1 + 1e-5), rtol=1e-5)  # the running mean 0, variance 1


def test_gru_unit_conv_and_pool_build_with_fluid_shapes():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        gru = fluid.dygraph.GRUUnit(size=15)
        hidden, reset, gate = gru(fluid.data("x", [-1, 15], "float32"), fluid.data("h", [-1, 5], "float32"))
        assert [list(p.shape) for p in gru.parameters()] == [[5, 15], [1, 15]]
        assert list(hidden.shape) == [-1, 5] and list(gate.shape) == [-1, 15]
        conv = fluid.dygraph.Conv2D(3, 4, 3, padding=1, act="relu")
        pooled = fluid.dygraph.Pool2D(pool_size=2, pool_stride=2)(conv(fluid.data("img", [-1, 3, 8, 8], "float32")))
        assert list(pooled.shape) == [-1, 4, 4, 4]
        assert [op.type for op in fluid.default_main_program().global_block().ops][-4:] == [
            "conv2d",
            "elementwise_add",
            "relu",
            "pool2d",
        ]


@pytest.mark.parametrize(
    "make, bad",
    [
        (lambda: fluid.dygraph.BatchNorm(10), ("x2", [3, 4, 5, 6], "int32")),
        (lambda: fluid.dygraph.Pool2D(pool_size=2), ("x1", [3, 32, 32, 5], "int32")),
        (lambda: fluid.dygraph.nn.Embedding(size=[20, 32]), ("w", [1], "int32")),
        (lambda: fluid.dygraph.Linear(4, 2), ("i", [2, 4], "int64")),
    ],
)
def test_a_bad_input_is_fluids_type_error(make, bad):
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        layer = make()
        with pytest.raises(TypeError, match="must be"):
            layer(np.ones((3, 4), "float32"))
        with pytest.raises(TypeError, match="must be one of"):
            layer(fluid.data(*bad))


def test_inside_guard_they_run_at_once_with_their_initial_parameters():
    """test_batch_norm_op.py's test_dygraph: a layer made inside fluid.dygraph.guard() has its parameters'
    initial values at once (the startup program runs eagerly too) and its call runs its ops; the values
    are Fluid 1.8.5's on the same input; fluid.NCE (fluid's name of the dygraph class) trains nce there."""
    x = np.arange(24, dtype="float32").reshape(2, 3, 2, 2) / 10
    with fluid.dygraph.guard():
        y = fluid.dygraph.BatchNorm(3)(fluid.dygraph.to_variable(x))
        lin = fluid.dygraph.Linear(
            4,
            2,
            param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5)),
            bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.25)),
        )
        z = lin(fluid.dygraph.to_variable(x.reshape(6, 4)))
        nce = fluid.NCE(20, 4)
        cost = nce(fluid.dygraph.to_variable(x.reshape(6, 4)), fluid.dygraph.to_variable(np.arange(6).reshape(6, 1)))
    np.testing.assert_allclose(
        y.numpy().reshape(-1)[:6], [-1.22883, -1.06499, -0.90114, -0.73730, -1.22883, -1.06499], atol=1e-5
    )
    np.testing.assert_allclose(z.numpy()[:2], [[0.55, 0.55], [1.35, 1.35]], rtol=1e-6)
    assert cost.numpy().shape == (6, 1) and np.all(cost.numpy() > 0)


def test_a_numpy_initializer_of_as_many_values_fills_the_parameter_row_major():
    """test_tdm_sampler_op gives tdm_sampler's [n, 1] layer table a flat list (Fluid writes it as given);
    a value of another size is the parameter's value in its own shape, as Fluid 1.8.5's (checked there:
    a [4, 1] parameter given 6 values holds [6])."""
    values = np.arange(6, dtype="float32")

    def build():
        holder = fluid.dygraph.Layer()
        holder.w = holder.create_parameter(
            [6, 1], fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(values))
        )
        return holder, []

    params, _ = _run(build, {})
    np.testing.assert_array_equal(next(iter(params.values())), values.reshape(6, 1))

    def build_other_size():
        holder = fluid.dygraph.Layer()
        holder.w = holder.create_parameter(
            [4, 1], fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(values))
        )
        return holder, []

    params, _ = _run(build_other_size, {})
    np.testing.assert_array_equal(next(iter(params.values())), values)
