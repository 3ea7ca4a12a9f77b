"""Fluid 1.8 names pe added for issue 52 and the parameters they take, each checked for what a
script relies on (in-process, tiny programs)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid


def _program(build, seed=1):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.program_guard(main, startup):
        out = build()
    return main, startup, out


def _run(main, startup, feed, fetch, weights=None):
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for name, value in (weights or {}).items():
            scope.find_var(name).get_tensor().set(value, fluid.CPUPlace())
        return [np.array(v) for v in exe.run(main, feed=feed, fetch_list=fetch)], scope


def _mlp(optimizer, x_dim=4):
    def build():
        x = fluid.data("x", [-1, x_dim])
        h = fluid.layers.fc(x, 3, act="tanh", param_attr=fluid.ParamAttr(name="w1"), bias_attr="b1")
        loss = fluid.layers.mean(fluid.layers.fc(h, 1, param_attr=fluid.ParamAttr(name="w2"), bias_attr="b2"))
        optimizer().minimize(loss)
        return h, loss

    return build


FEED = {"x": np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)}
WEIGHTS = {
    "w1": np.linspace(-0.5, 0.5, 12, dtype="float32").reshape(4, 3),
    "b1": np.zeros(3, "float32"),
    "w2": np.array([[0.3], [-0.2], [0.1]], "float32"),
    "b2": np.zeros(1, "float32"),
}


def _trained(optimizer, steps=3):
    main, startup, (h, loss) = _program(_mlp(optimizer))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for name, value in WEIGHTS.items():
            scope.find_var(name).get_tensor().set(value, fluid.CPUPlace())
        losses = [float(exe.run(main, feed=FEED, fetch_list=[loss])[0][0]) for _ in range(steps)]
        return losses, {n: np.array(scope.find_var(n).get_tensor()) for n in WEIGHTS}, main


def test_parameters_take_fluids_order():
    block = fluid.Program().global_block()
    v = fluid.framework.Variable(block, None, "v", [2, 3], "float32", 0, None, True)
    assert (v.name, v.shape, v.persistable, v.error_clip) == ("v", (2, 3), True, None)
    assert fluid.framework.Variable(block, shape=[1]).name.startswith("_generated_var")
    attr = fluid.ParamAttr("p", None, 0.5, None, False, False)
    assert (attr.learning_rate, attr.trainable, attr.do_model_average) == (0.5, False, False)
    with pytest.raises(
        TypeError, match=r"ParamAttr\.__init__\(\) takes from 1 to 7 positional arguments but 8 were given"
    ):
        fluid.ParamAttr("p", None, 1.0, None, True, True, None)  # gradient_clip is keyword-only
    wn = fluid.WeightNormParamAttr(1, "wn", None, 0.1)
    assert (wn.dim, wn.name, wn.learning_rate, wn.do_model_average) == (1, "wn", 0.1, False)


def test_unique_name_switch_returns_the_pair_and_guard_restores():
    generator = fluid.unique_name.UniqueNameGenerator()
    old = fluid.unique_name.switch(generator, "checker")
    assert fluid.unique_name.generate("t") == "t_0"
    assert fluid.unique_name.switch(*old) == (generator, "checker")
    with fluid.unique_name.guard():
        assert fluid.unique_name.generate("zz_fresh") == "zz_fresh_0"


def test_uniform_diagonal_initializer():
    def build():
        return fluid.layers.create_parameter(
            [4, 4],
            "float32",
            default_initializer=fluid.initializer.Uniform(-0.1, 0.1, 0, diag_num=4, diag_step=4, diag_val=1.0),
        )

    main, startup, w = _program(build)
    (value,), _ = _run(main, startup, {}, [w])
    np.testing.assert_array_equal(np.diag(value), np.ones(4))
    assert np.abs(value - np.diag(np.diag(value))).max() <= 0.1


def test_bilinear_initializer_is_the_upsampling_kernel():
    main, startup, w = _program(
        lambda: fluid.layers.create_parameter([2, 1, 4, 4], "float32", default_initializer=fluid.initializer.Bilinear())
    )
    (value,), _ = _run(main, startup, {}, [w])
    axis = np.array([0.25, 0.75, 0.75, 0.25])  # 1 - |x / 2 - 0.75| for K = 4
    np.testing.assert_allclose(value[1, 0], np.outer(axis, axis))
    with pytest.raises(ValueError, match="shape must be 4"):
        _program(
            lambda: fluid.layers.create_parameter([4, 4], "float32", default_initializer=fluid.initializer.Bilinear())
        )


def test_need_clip_and_error_clip():
    def build():
        x = fluid.data("x", [-1, 4])
        h = fluid.layers.fc(x, 3, param_attr=fluid.ParamAttr(name="w1"), bias_attr="b1")
        h.error_clip = fluid.clip.ErrorClipByValue(0.01)
        loss = fluid.layers.mean(fluid.layers.fc(h, 1, param_attr=fluid.ParamAttr(name="w2"), bias_attr="b2"))
        clip = fluid.clip.GradientClipByValue(0.05, need_clip=lambda p: p.name == "w2")
        fluid.optimizer.SGD(1.0, grad_clip=clip).minimize(loss)
        return h, loss

    main, startup, (h, loss) = _program(build)
    (dh, w1, w2), _ = _run(main, startup, FEED, [h.name + "@GRAD", "w1", "w2"], WEIGHTS)
    np.testing.assert_allclose(dh, np.clip(np.tile(WEIGHTS["w2"].T / 2, (2, 1)), -0.01, 0.01))
    assert np.abs(WEIGHTS["w2"] - w2).max() <= 0.05 + 1e-7  # clipped
    np.testing.assert_allclose(WEIGHTS["w1"] - w1, FEED["x"].T @ dh, rtol=1e-5)  # not clipped
    with pytest.raises(TypeError, match="need_clip"):
        fluid.clip.GradientClipByNorm(1.0, need_clip=3)


def test_recompute_and_pipeline_give_the_wrapped_optimizers_updates():
    plain = _trained(lambda: fluid.optimizer.SGD(0.1))

    def recompute():
        opt = fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))
        opt._set_checkpoints(
            [fluid.default_main_program().global_block().var("fc_0.tmp_1")]
            if fluid.default_main_program().global_block().has_var("fc_0.tmp_1")
            else []
        )
        return opt

    again = _trained(recompute)
    piped = _trained(lambda: fluid.optimizer.PipelineOptimizer(fluid.optimizer.SGD(0.1)))
    for other in (again, piped):
        assert other[0] == pytest.approx(plain[0], rel=1e-6)
    assert piped[2]._pipeline_opt["trainer"] == "PipelineTrainer"
    with pytest.raises(AssertionError, match="_set_checkpoints"):
        _program(_mlp(lambda: fluid.optimizer.RecomputeOptimizer(fluid.optimizer.SGD(0.1))))


def test_dpsgd_without_noise_is_clipped_sgd_and_dgc_is_momentum():
    plain = _trained(lambda: fluid.optimizer.SGD(0.1), steps=1)
    dp = _trained(lambda: fluid.optimizer.Dpsgd(0.1, clip=1e6, batch_size=2.0, sigma=0.0), steps=1)
    for name in WEIGHTS:
        np.testing.assert_allclose(dp[1][name], plain[1][name], rtol=1e-6, atol=1e-7)
    noisy = _trained(lambda: fluid.optimizer.DpsgdOptimizer(0.1, clip=1e6, batch_size=2.0, sigma=1.0), steps=1)
    assert np.abs(noisy[1]["w2"] - plain[1]["w2"]).max() > 1e-4
    momentum = _trained(lambda: fluid.optimizer.Momentum(0.1, 0.9))
    dgc = _trained(lambda: fluid.optimizer.DGCMomentumOptimizer(0.1, 0.9, rampup_begin_step=0))
    assert dgc[0] == pytest.approx(momentum[0], rel=1e-6)
    with pytest.raises(TypeError, match="GradientClipByNorm"):
        fluid.optimizer.DGCMomentumOptimizer(0.1, 0.9, 0, grad_clip=fluid.clip.GradientClipByValue(1.0))


def test_one_hot_keeps_the_ids_shape_and_device_guard_checks():
    def build():
        with fluid.device_guard("cpu"):
            return fluid.one_hot(fluid.data("ids", [-1, 2], dtype="int64"), depth=4)

    main, startup, out = _program(build)
    assert out.shape == (-1, 2, 4)
    (value,), _ = _run(main, startup, {"ids": np.array([[0, 3], [2, 2]], "int64")}, [out])
    np.testing.assert_array_equal(value, np.eye(4, dtype="float32")[[[0, 3], [2, 2]]])
    guard = fluid.device_guard("tpu")  # Fluid's context manager checks the device when entered
    with pytest.raises(ValueError, match="'cpu' or 'gpu'"):
        with guard:
            pass


def _profile_message(data):
    """Fluid's platform/profiler.proto Profile (field numbers read from paddlepaddle 1.8.5's
    profiler_pb2), parsed with protobuf itself."""
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

    schema = """name: "t_profiler.proto" package: "t" syntax: "proto2"
    message_type { name: "Event"
      field { name: "name" number: 1 label: LABEL_OPTIONAL type: TYPE_STRING }
      field { name: "start_ns" number: 2 label: LABEL_OPTIONAL type: TYPE_UINT64 }
      field { name: "end_ns" number: 3 label: LABEL_OPTIONAL type: TYPE_UINT64 }
      field { name: "device_id" number: 5 label: LABEL_OPTIONAL type: TYPE_INT64 }
      field { name: "sub_device_id" number: 6 label: LABEL_OPTIONAL type: TYPE_INT64 }
      field { name: "type" number: 8 label: LABEL_OPTIONAL type: TYPE_INT32 } }
    message_type { name: "Profile"
      field { name: "events" number: 1 label: LABEL_REPEATED type: TYPE_MESSAGE type_name: ".t.Event" }
      field { name: "start_ns" number: 2 label: LABEL_OPTIONAL type: TYPE_UINT64 }
      field { name: "end_ns" number: 3 label: LABEL_OPTIONAL type: TYPE_UINT64 } }"""
    pool = descriptor_pool.DescriptorPool()
    pool.Add(text_format.Parse(schema, descriptor_pb2.FileDescriptorProto()))
    message = message_factory.GetMessageClass(pool.FindMessageTypeByName("t.Profile"))()
    message.ParseFromString(data)
    return message


def test_profiler_prints_fluids_report(tmp_path, capsys):
    main, startup, (h, loss) = _program(_mlp(lambda: fluid.optimizer.SGD(0.1)))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    path = tmp_path / "profile"
    with fluid.profiler.profiler("CPU", "calls", str(path)):
        for _ in range(2):
            exe.run(main, feed=FEED, fetch_list=[loss], scope=scope)
    printed = capsys.readouterr().out
    assert "Profiling Report" in printed and "Sorted by number of calls" in printed
    rows = [line.split() for line in printed.splitlines() if line.startswith("thread0::")]
    calls = [int(r[1]) for r in rows]
    assert calls == sorted(calls, reverse=True) and ["thread0::mul", "4"] in [r[:2] for r in rows]
    profile = _profile_message(path.read_bytes())
    timeline = [e.name for e in profile.events]
    assert timeline.count("mul") == 4 and profile.start_ns < profile.events[0].start_ns <= profile.end_ns
    assert all(e.start_ns <= e.end_ns and e.type == 0 for e in profile.events)
    with pytest.raises(ValueError, match="state"):
        fluid.profiler.start_profiler("TPU")
    with pytest.raises(ValueError, match="output mode"):
        with fluid.profiler.cuda_profiler(str(tmp_path / "nv"), "xml"):
            pass


def test_evaluators_average_and_dataset_names():
    def build():
        hyp = fluid.data("hyp", [-1, 1], dtype="int64", lod_level=1)
        ref = fluid.data("ref", [-1, 1], dtype="int64", lod_level=1)
        return fluid.evaluator.EditDistance(hyp, ref)

    main, startup, evaluator = _program(build)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    place = fluid.CPUPlace()
    with fluid.scope_guard(scope):
        exe.run(startup)
        evaluator.reset(exe)
        for hyp, ref in (([1, 2, 3], [1, 2, 4]), ([5, 6], [5, 6])):
            feed = {
                k: fluid.create_lod_tensor(np.array(v, "int64").reshape(-1, 1), [[len(v)]], place)
                for k, v in (("hyp", hyp), ("ref", ref))
            }
            exe.run(main, feed=feed)
        distance, error_rate = evaluator.eval(exe)
    assert distance[0] == pytest.approx((1 / 3) / 2) and error_rate[0] == pytest.approx(0.5)
    avg = fluid.average.WeightedAverage()
    avg.add(1.0, 1)
    avg.add(np.array([3.0]), 3)
    assert avg.eval()[0] == pytest.approx(2.5)
    with pytest.raises(ValueError, match=r"The 'value' must be a number\(int, float\) or a numpy ndarray\."):
        avg.add("a", 1)
    assert fluid.dataset.InMemoryDataset is fluid.InMemoryDataset
    with pytest.raises(
        ValueError,
        match=r"DatasetFactory\.create_dataset: 'NoSuchDataset' is not one of QueueDataset, InMemoryDataset, FileInstantDataset",
    ):
        fluid.dataset.DatasetFactory().create_dataset("NoSuchDataset")
    desc = fluid.MultiTrainer()
    desc._set_thread(3)
    assert "thread_num: 3" in desc._desc() and fluid.Tensor is fluid.LoDTensor
