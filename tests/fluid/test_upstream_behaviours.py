"""What Paddle's own unit tests and book programs rely on, run unchanged under pe fluid (issue 52,
docs/COMPAT.md "Upstream files, run unchanged"): each test here asserts the behaviour of Fluid 1.8.5
that an upstream file checks, written for pe."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.fluid import core
from pe_cli.fluid.executor import as_numpy


def _programs():
    return fluid.Program(), fluid.Program()


def test_program_parse_from_string_restores_blocks_vars_and_ops():
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3])
        y = fluid.layers.fc(x, 2)
        fluid.layers.mean(y)
    restored = fluid.Program.parse_from_string(main.desc.serialize_to_string())
    assert [op.type for op in restored.global_block().ops] == [op.type for op in main.global_block().ops]
    assert restored.global_block().var(y.name).shape == y.shape
    assert restored.desc.serialize_to_string() == main.desc.serialize_to_string()
    with pytest.raises(ValueError, match="not a program"):
        fluid.Program.parse_from_string(b"\x0a\x03abc")


def test_as_numpy_converts_fetched_tensors_and_refuses_lod():
    assert as_numpy([fluid.LoDTensor()]) == [None]
    t = fluid.LoDTensor()
    t.set(np.arange(6, dtype="float32").reshape(3, 2), fluid.CPUPlace())
    np.testing.assert_array_equal(as_numpy(t), np.arange(6).reshape(3, 2))
    t.set_recursive_sequence_lengths([[1, 2]])
    with pytest.raises(RuntimeError, match="LoD"):
        as_numpy(t)


def test_core_names_upstream_tests_use():
    assert core.VarDesc.VarType.INT16 == "int16"
    assert fluid.optimizer.append_regularization_ops is fluid.regularizer.append_regularization_ops
    with pytest.raises(core.EnforceNotMet, match="test exception"):
        core.__unittest_throw_exception__()


def test_shape_errors_are_enforce_not_met():
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3])
        with pytest.raises(
            core.EnforceNotMet,
            match=r"op 'matmul' of layer 'matmul_\d+' built at .*: X \[-1, 3\] and Y \[4, 5\] cannot multiply: X's columns \(3\) != Y's rows \(4\)",
        ):
            fluid.layers.matmul(x, fluid.data("y", [4, 5]))


def _two_targets():
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3])
        x.stop_gradient = False
        y = fluid.layers.reduce_sum(x * 2.0)
        z = x * 3.0  # not a scalar: seeded with ones of its shape
        grads = fluid.backward.calc_gradient([y, z], [x])
    return main, grads


def test_calc_gradient_sums_a_list_of_targets():
    main, grads = _two_targets()
    exe = fluid.Executor(fluid.CPUPlace())
    (g,) = exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[grads])  # one input: one variable
    np.testing.assert_allclose(g, np.full((2, 3), 5.0))


def test_gradients_refuses_what_fluid_refuses_with_type_error():
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3])
        x.stop_gradient = False
        y = fluid.layers.relu(x)
        for call, message in (
            (
                lambda: fluid.gradients(y.name, x),
                "gradients: targets must be a Variable or a list of Variables, got str",
            ),
            (
                lambda: fluid.gradients(y, x.name),
                "gradients: inputs must be a Variable or a list of Variables, got str",
            ),
            (
                lambda: fluid.gradients([y], [x], target_gradients=x.name),
                "gradients: target_gradients must be a Variable or a list of Variables, got str",
            ),
            (
                lambda: fluid.gradients([y], x, no_grad_set=y),
                "gradients: no_grad_set must be a list, tuple or set, got Variable",
            ),
        ):
            with pytest.raises(TypeError, match=message):
                call()


def test_paddle_tensor_round_trips_numpy():
    for dtype, code in (
        ("int32", core.PaddleDType.INT32),
        ("int64", core.PaddleDType.INT64),
        ("float32", core.PaddleDType.FLOAT32),
    ):
        a = np.arange(6).reshape(3, 2).astype(dtype)
        t = core.PaddleTensor(a)
        assert t.dtype == code and t.shape == [3, 2]
        assert t.data.tolist(dtype) == a.ravel().tolist()
        t.data.reset(a * 2)
        np.testing.assert_array_equal(t.as_ndarray(), a * 2)
    assert core.PaddleBuf([1.5, 2.0]).float_data() == [1.5, 2.0]


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("infer"))
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3])
        y = fluid.layers.fc(x, 2)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        fluid.io.save_inference_model(path, ["x"], [y], exe, main_program=main)
        feed = np.arange(6, dtype="float32").reshape(2, 3)
        (want,) = exe.run(main, feed={"x": feed}, fetch_list=[y])
    return path, feed, want


def test_predictor_runs_a_saved_model_in_its_own_scope(saved_model):
    path, feed, want = saved_model
    for config in (core.AnalysisConfig(path), core.NativeConfig()):
        if isinstance(config, core.NativeConfig):
            config.model_dir = path
        else:
            config.switch_ir_optim(False)
            config.disable_gpu()
        predictor = core.create_paddle_predictor(config)
        assert predictor.get_input_names() == ["x"]
        (out,) = predictor.run([core.PaddleTensor(feed)])
        np.testing.assert_allclose(out.as_ndarray(), want, rtol=1e-6)


def test_compiled_program_with_inference_optimize_runs_paddle_tensors(saved_model):
    path, feed, want = saved_model
    config = core.NativeConfig()
    config.model_dir = path
    compiled = fluid.CompiledProgram(fluid.Program())._with_inference_optimize(config)
    assert compiled._is_inference is True
    (out,) = fluid.Executor(fluid.CPUPlace()).run(compiled, feed=[core.PaddleTensor(feed)])
    np.testing.assert_allclose(np.array(out.data.float_data()).reshape(want.shape), want, rtol=1e-6)


def test_save_inference_model_not_for_deployment_keeps_the_whole_program(tmp_path):
    """export_for_deployment=False (the recognize_digits book test, with no feeds and no targets):
    Fluid writes the unpruned program to <model file>.main_program and every persistable."""
    from pe_cli.io.fluid_model import load_program_desc

    main, startup = _programs()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 3])
        loss = fluid.layers.mean(fluid.layers.fc(x, 2))
        fluid.optimizer.SGD(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        fluid.io.save_inference_model(str(tmp_path), [], [], exe, main_program=main, export_for_deployment=False)
    saved = tmp_path / "__model__.main_program"
    program, _, _ = load_program_desc(str(saved), saved.read_bytes())
    assert [op.type for op in program.global_block().ops] == [op.type for op in main.global_block().ops]
    persistables = [v.name for v in main.list_vars() if v.persistable and v.name not in ("feed", "fetch")]
    assert any(n.startswith("learning_rate_") for n in persistables)  # the optimizer's, not a parameter
    assert {p.name for p in main.all_parameters()} < set(persistables)
    assert sorted(persistables) == sorted(f.name for f in tmp_path.iterdir() if f.name != saved.name)


def test_core_globals_reads_and_sets_the_flags():
    flags = core.globals()
    flags["FLAGS_gpu_memory_limit_mb"] = 10
    assert (
        flags["FLAGS_gpu_memory_limit_mb"]
        == 10
        == fluid.get_flags("FLAGS_gpu_memory_limit_mb")["FLAGS_gpu_memory_limit_mb"]
    )
    core._set_eager_deletion_mode(0.0, 1.0, True)
    assert fluid.get_flags("FLAGS_eager_delete_tensor_gb")["FLAGS_eager_delete_tensor_gb"] == 0.0
    with pytest.raises(
        ValueError, match=r"Flag FLAGS_no_such_flag cannot set its value through this function: pe knows \["
    ):
        flags["FLAGS_no_such_flag"] = 1


def test_pe_fluid_gives_back_numpy_1_and_python_38_names(tmp_path):
    """Fluid 1.x programs (Paddle's gradient_checker among them) call np.product and
    collections.Sequence, and float() arrays of one element; under pe fluid they work as they did on
    numpy 1.x and Python 3.8."""
    import subprocess
    import sys

    script = tmp_path / "legacy.py"
    script.write_text(
        "import collections, numpy as np\n"
        "assert np.product([2, 3]) == 6 and np.array([1], dtype=np.float).dtype == np.float64\n"
        "assert np.asscalar(np.ones(1)) == 1.0 and np.alltrue([True])\n"
        "from PIL import Image\n"  # Pillow 10 removed the name the book's programs resize with
        "assert Image.ANTIALIAS == Image.LANCZOS and Image.CUBIC == Image.BICUBIC\n"
        "assert collections.Sequence is collections.abc.Sequence\n"
        "import random\nassert sorted(random.sample({3, 1, 2}, 3)) == [1, 2, 3]\n"
        "import paddle.fluid.backward as b\n"
        "assert b._append_grad_suffix_('x') == 'x@GRAD' and b._as_list(None) == []\n"
        # numpy 1.x: an array of one element, of any rank, is a number (float(loss), "%f" % row)
        "import math\n"
        "assert float(np.array([[2.5]])) == 2.5 and int(np.array([7])) == 7 and '%.1f' % np.ones(1) == '1.0'\n"
        "assert float(np.matrix([[1.5]])) == 1.5 and not math.isnan(np.zeros((1, 1, 1)))\n"
        "for bad in (np.ones(2), np.ones(0), np.ones((2, 2))):\n"
        "    try:\n        float(bad)\n        raise SystemExit('converted ' + repr(bad))\n"
        "    except TypeError:\n        pass\n"
    )
    import os

    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": repo},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    untouched = subprocess.run(
        [
            sys.executable,
            "-c",
            "import collections, numpy, pe_cli.fluid\n"
            "assert not hasattr(numpy, 'product') and not hasattr(collections, 'Sequence')\n"
            "from PIL import Image\nassert not hasattr(Image, 'ANTIALIAS')\n"
            "import random\ntry:\n    random.sample({1, 2}, 1)\n    raise SystemExit('random')\n"
            "except TypeError:\n    pass\n"
            "try:\n    float(numpy.ones(1))\n    raise SystemExit('numpy changed')\n"
            "except TypeError:\n    pass\n",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": repo},
        timeout=120,
    )
    assert untouched.returncode == 0, untouched.stderr  # importing pe as a library changes neither


def test_lod_tensor_elements_are_set_in_place():
    t = fluid.LoDTensor()
    t.set(np.zeros((2, 2), "float64"), fluid.CPUPlace())
    t._set_double_element(3, 1.5)
    assert t._get_double_element(3) == 1.5 and np.array(t)[1, 1] == 1.5


def test_calc_gradient_of_an_intermediate_and_of_a_parameter_in_turn():
    """Paddle's test_calc_gradient: one input's gradient comes back alone, twice on one program."""
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        x = fluid.layers.create_parameter(dtype="float32", shape=[5, 10])
        y = fluid.layers.create_parameter(dtype="float32", shape=[10, 8])
        mul_out = fluid.layers.mul(x=x, y=y)
        mean_out = fluid.layers.mean(mul_out)
        a = fluid.backward.calc_gradient(mean_out, mul_out)
        b = fluid.backward.calc_gradient(mean_out, x)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        ga, gb = exe.run(main, fetch_list=[a, b])
    np.testing.assert_allclose(ga, np.full((5, 8), 1 / 40), rtol=1e-6)
    assert gb.shape == (5, 10)


def test_framework_constants_layer_helper_and_variable_operators():
    from pe_cli.fluid import framework, layer_helper

    assert (framework.GRAD_VAR_SUFFIX, framework.TEMP_VAR_NAME, framework.ZERO_VAR_SUFFIX) == (
        "@GRAD",
        "@TEMP@",
        "@ZERO",
    )
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [3], dtype="int64")
        helper = layer_helper.LayerHelper("mine")
        out = helper.create_variable_for_type_inference("int64")
        helper.append_op(type="scale", inputs={"X": [x]}, outputs={"Out": [out]}, attrs={"scale": 2.0})
        mod, floordiv = x % 3, x // 3
        with pytest.raises(
            TypeError, match=r"create_global_var: shape must be a list or tuple of ints, got \[1\.0, 2\.0\]"
        ):
            fluid.layers.create_global_var([1.0, 2.0], 2.0, "float32")
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": np.array([4, 7, 9])}, fetch_list=[out, mod, floordiv])
    assert [g.tolist() for g in got] == [[8, 14, 18], [1, 1, 0], [1, 2, 3]]
    # test_prelu_op.py builds its own layer with the helper's param_attr (Fluid's LayerHelper property)
    named = fluid.layer_helper.LayerHelper("prelu", param_attr=fluid.ParamAttr(name="alpha"), bias_attr=False)
    assert named.param_attr.name == "alpha" and named.bias_attr is False
    assert isinstance(layer_helper.LayerHelper("prelu").param_attr, fluid.ParamAttr)


def test_variable_compared_with_a_number_is_a_bool_variable_and_other_fluid_errors():
    """Paddle's test_cond builds ``pred = (i % 2) == 0``; a Variable against a Variable is an equal op
    too (test_case's ``x == y``), while hashing stays identity."""
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        i = fluid.data("i", [1], dtype="int32")
        even, odd = (i % 2) == 0, (i % 2) != 0
        assert even.dtype == "bool" and i.grad_name == i.name + "@GRAD"
        assert (i == i).dtype == "bool" and i in {i} and len({i, i}) == 1
        with pytest.raises(
            TypeError, match=r"case: pred_fn_pairs must be a non-empty list of \(bool variable, callable\) pairs"
        ):
            fluid.layers.case([])
        with pytest.raises(
            ValueError,
            match=r"create_global_var: dtype complex128: Fluid 1\.8 has no complex dtypes \(a Paddle 2\.x program has:",
        ):
            fluid.layers.create_global_var([1, 2], 2.0, np.complex128)
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={"i": np.array([3], "int32")}, fetch_list=[even, odd])
    assert [bool(g[0]) for g in got] == [False, True]


def test_paddle_compat_helpers():
    from pe_cli.paddle import compat as cpt

    assert cpt.to_text([b"a", "b"]) == ["a", "b"] and cpt.to_text({b"k": b"v"}) == {"k": "v"}
    items = [b"x"]
    assert cpt.to_text(items, inplace=True) is items and items == ["x"]
    assert cpt.to_bytes({"a"}) == {b"a"} and cpt.to_bytes(None) is None
    assert (cpt.round(2.5), cpt.round(-2.5), cpt.round(1.25, 1)) == (3.0, -3.0, 1.3)
    assert cpt.floor_division(7, 2) == 3 and cpt.get_exception_message(ValueError("m")) == "m"


def test_a_python_number_feeds_a_shape_1_variable():
    """Paddle's test_executor_feed_scalar: feed={'lr': 0.01} for a [1] variable."""
    main, startup = _programs()
    with fluid.program_guard(main, startup):
        lr = fluid.data("lr", [1], dtype="float32")
        out = lr * 2.0
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"lr": 0.25}, fetch_list=[out])
    assert got.shape == (1,) and got[0] == 0.5


def test_as_lodtensor_takes_a_number_with_its_dtype_only():
    from pe_cli.fluid.executor import _as_lodtensor

    t = _as_lodtensor(1, fluid.CPUPlace(), core.VarDesc.VarType.FP64)
    assert np.array(t).tolist() == [1.0] and np.array(t).dtype == np.float64
    with pytest.raises(
        AssertionError, match="_as_lodtensor: dtype should be given when casting a Python scalar to a tensor"
    ):
        _as_lodtensor(1, fluid.CPUPlace())
    with pytest.raises(
        RuntimeError,
        match=r"_as_lodtensor: a list may hold LoD information; make a LoDTensor of it \(fluid\.create_lod_tensor\) and feed that",
    ):
        _as_lodtensor([[1, 2], [3]], fluid.CPUPlace())


def test_a_parameters_own_learning_rate_is_an_optimize_op_a_fetch_list_may_name():
    """Fluid's _create_param_lr builds the scale of a parameter's learning rate with the LRSched and
    Optimize roles: minimize's ops, that scale among them, go in a fetch list with use_prune."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [2])
        y = fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(name="w", learning_rate=0.5))
        loss = fluid.layers.mean(y)
        ops, _ = fluid.optimizer.SGD(learning_rate=0.5).minimize(loss)
    assert "scale" in [op.type for op in ops] and all(op._is_optimize_op() for op in ops)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        before = np.array(scope.find_var("w").get_tensor())
        exe.run(main, feed={"x": np.ones((3, 2), np.float32)}, fetch_list=[loss.name, (ops, [])], use_prune=True)
        np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()), before - 0.25, rtol=1e-6)
