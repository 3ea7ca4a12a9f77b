"""ParallelExecutor and CompiledProgram.with_data_parallel as the seed documents state them: feeds,
fetches, errors, scopes, parameter sharing, strategies."""

import gc
import threading
import warnings

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base import places as places_module
from pe_cli.base.errors import FeedError, PeError

from parallel_nets import batch, build, params


@pytest.fixture
def cpu2(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")


def started(model="mlp", **kwargs):
    out = build(model, **kwargs)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(out[1], scope=scope)
    return out, scope


def echo_program():
    """y = mean over each device's rows of x (no parameters): shows how a feed was split."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[2])
        m = fluid.layers.mean(x)
    return main, x, m


def test_device_count_from_cpu_num(monkeypatch):
    main, _, loss = build()
    monkeypatch.setenv("CPU_NUM", "3")
    assert fluid.ParallelExecutor(False, loss.name, main_program=main).device_count == 3
    monkeypatch.delenv("CPU_NUM")
    monkeypatch.setattr(places_module, "_warned_cpu_num", False)
    assert fluid.ParallelExecutor(False, loss.name, main_program=main).device_count == 1


def test_cpu_num_unset_prints_one_line_note(monkeypatch, capsys):
    monkeypatch.delenv("CPU_NUM", raising=False)
    monkeypatch.setattr(places_module, "_warned_cpu_num", False)
    assert len(fluid.cpu_places()) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "CPU_NUM" in err


def test_dict_feed_is_split_with_the_remainder_on_the_last_devices(cpu2):
    main, x, m = echo_program()
    pe = fluid.ParallelExecutor(False, main_program=main, scope=fluid.Scope())
    data = np.arange(6, dtype="float32").reshape(3, 2)
    means, xs = pe.run([m.name, x.name], feed={"x": data})
    np.testing.assert_allclose(means, [data[:1].mean(), data[1:].mean()])  # [0] and [1, 2]
    np.testing.assert_array_equal(xs, data)


def test_list_feed_gives_one_dict_per_device(cpu2):
    main, x, m = echo_program()
    pe = fluid.ParallelExecutor(False, main_program=main, scope=fluid.Scope())
    a, b = np.ones((5, 2), "float32"), np.full((3, 2), 3, "float32")
    means, xs = pe.run([m, x], feed=[{"x": a}, {x: b}])
    np.testing.assert_allclose(means, [1.0, 3.0])
    assert xs.shape == (8, 2)


def test_feed_errors(cpu2):
    main, x, m = echo_program()
    pe = fluid.ParallelExecutor(False, main_program=main, scope=fluid.Scope())
    two = np.ones((2, 2), "float32")
    with pytest.raises(TypeError, match=r"feed\[1\] must be a dict"):
        pe.run([m], feed=[{"x": two}, two])
    with pytest.raises(ValueError, match="feed must be a dict"):
        pe.run([m], feed=two)
    (train, _, loss), scope = started()  # a training program takes no partial feed (Fluid's rule)
    trainer = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=train, scope=scope)
    one = {name: value[:1] for name, value in batch().items()}
    with pytest.raises(ValueError, match="list of 1 dict.*2 devices"):
        trainer.run([loss.name], feed=[one])
    with pytest.raises(
        FeedError,
        match=r"feed 'x' has 1 sample\(s\) but the program runs on 2 devices, and each device needs at least one: feed at least",
    ) as info:
        trainer.run([loss.name], feed=one)
    message = str(info.value)
    assert "1 sample" in message and "2 devices" in message and "drop_last" in message
    with pytest.raises(FeedError, match="missing feed 'x'"):
        pe.run([m], feed={})
    with pytest.raises(PeError, match="did you mean 'x'"):
        pe.run([m], feed={"xx": two})


def test_an_inference_program_takes_a_partial_feed_and_returns_unmerged_values(cpu2):
    """Fewer samples (or dicts) than devices: the first devices run, as Fluid 1.8's partial feed;
    return_merged=False gives each fetch as the list of the devices' values."""
    main, x, m = echo_program()
    exe = fluid.Executor(fluid.CPUPlace())
    compiled = fluid.CompiledProgram(main).with_data_parallel(places=fluid.cpu_places(2))
    one = np.full((1, 2), 3.0, "float32")
    means, xs = exe.run(compiled, feed={"x": one}, fetch_list=[m, x])
    np.testing.assert_array_equal(means, [3.0])
    np.testing.assert_array_equal(xs, one)
    (means,) = exe.run(compiled, feed=[{"x": one}], fetch_list=[m])
    np.testing.assert_array_equal(means, [3.0])
    data = np.arange(6, dtype="float32").reshape(3, 2)
    (parts,) = exe.run(compiled, feed={"x": data}, fetch_list=[x], return_merged=False)
    assert isinstance(parts, list) and len(parts) == 2
    np.testing.assert_array_equal(np.concatenate(parts), data)


def test_fetch_is_concatenated_over_devices_and_return_numpy_false(cpu2):
    (main, _, loss), scope = started()
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope)
    (out,) = pe.run([loss.name], feed=batch())
    assert out.shape == (2,)  # a [1] loss from 2 devices, as Fluid
    (tensor,) = pe.run([loss], feed=batch(), return_numpy=False)
    assert isinstance(tensor, fluid.LoDTensor) and np.array(tensor).shape == (2,)
    with pytest.raises(PeError, match="cannot fetch 'fc_0.tmp_9'.*did you mean"):
        pe.run(["fc_0.tmp_9"], feed=batch())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (out,) = pe.run([loss], feed_dict=batch())
    assert out.shape == (2,) and any(issubclass(w.category, DeprecationWarning) for w in caught)


def test_lod_feed_is_split_by_sequences(cpu2):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        words = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
    pe = fluid.ParallelExecutor(False, main_program=main, scope=fluid.Scope())
    tensor = fluid.create_lod_tensor(np.arange(10).reshape(10, 1).astype("int64"), [[2, 3, 1, 4]], fluid.CPUPlace())
    (out,) = pe.run([words.name], feed={"words": tensor}, return_numpy=False)
    np.testing.assert_array_equal(np.array(out), np.arange(10).reshape(10, 1))
    assert out.recursive_sequence_lengths() == [[2, 3, 1, 4]]
    dev1 = pe._engine.exec_scopes[1].find_var("words").get_tensor()
    assert dev1.recursive_sequence_lengths() == [[1, 4]] and np.array(dev1).ravel().tolist() == [5, 6, 7, 8, 9]


def test_executor_after_parallel_executor_sees_the_trained_parameters(cpu2):
    (main, _, loss), scope = started()
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope)
    before = params(main, scope)
    for _ in range(3):
        pe.run([loss], feed=batch())
    after = params(main, scope)
    assert all(not np.array_equal(before[k], after[k]) for k in before)
    for name, value in after.items():  # device 1's copy is the same
        np.testing.assert_array_equal(pe._engine.param_scopes[1].get_array(name), value)
    # the sequential Executor continues from there
    exe = fluid.Executor(fluid.CPUPlace())
    (loss_seq,) = exe.run(main, feed=batch(), fetch_list=[loss], scope=scope)
    assert np.isfinite(loss_seq).all()


def test_parameters_replaced_in_the_global_scope_are_copied_to_the_devices_again(cpu2):
    (main, startup, loss), scope = started()
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope)
    pe.run([loss], feed=batch())
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)  # re-initialize (as a checkpoint load would)
    fresh = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=fresh)
    pe_fresh = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=fresh)
    (a,) = pe.run([loss], feed=batch(seed=1))
    (b,) = pe_fresh.run([loss], feed=batch(seed=1))
    np.testing.assert_array_equal(a, b)


def test_share_vars_from_test_executor_uses_the_trained_parameters(cpu2):
    (main, startup, loss, test), scope = started(with_test=True)
    with pytest.raises(TypeError, match="share_vars_from must be a ParallelExecutor"):
        fluid.ParallelExecutor(False, main_program=test, share_vars_from=fluid.Executor(), scope=scope)
    train_exe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope)
    test_exe = fluid.ParallelExecutor(False, main_program=test, share_vars_from=train_exe)
    with pytest.raises(PeError, match="has not run yet"):
        test_exe.run([loss.name], feed=batch())
    for _ in range(3):
        train_exe.run([loss.name], feed=batch())
    (got,) = test_exe.run([loss.name], feed=batch(seed=5))
    # the same parameters through the sequential Executor, per device half of the batch
    data = batch(seed=5)
    exe = fluid.Executor(fluid.CPUPlace())
    halves = [
        exe.run(test, feed={k: v[s] for k, v in data.items()}, fetch_list=[loss.name], scope=scope)[0]
        for s in (slice(0, 6), slice(6, 12))
    ]
    np.testing.assert_allclose(got, np.concatenate(halves), rtol=1e-6)


def test_use_cuda_without_a_usable_backend_is_one_clear_line(monkeypatch):
    from pe_cli.kernels.cuda import runtime

    monkeypatch.setattr(runtime, "unavailable_reason", lambda: "no CUDA GPU was found")
    main, _, loss = build()
    with pytest.raises(PeError, match=r"CUDA is not available here .*: use place: cpu / CPUPlace\(\)") as info:
        fluid.ParallelExecutor(True, loss_name=loss.name, main_program=main)
    assert "\n" not in str(info.value) and "CUDA is not available" in str(info.value)


def test_no_loss_name_on_a_training_program_warns(cpu2):
    main, _, _ = build()
    with pytest.warns(UserWarning, match="no loss_name"):
        fluid.ParallelExecutor(False, main_program=main, scope=fluid.Scope())


def test_customized_loss_gradient_is_fed(cpu2):
    (main, _, loss), scope = started()
    bs = fluid.BuildStrategy()
    bs.gradient_scale_strategy = fluid.BuildStrategy.GradientScaleStrategy.Customized
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, build_strategy=bs, scope=scope)
    with pytest.raises(FeedError, match="Customized: feed 'mean_0.tmp_0@GRAD'"):
        pe.run([loss], feed=batch())
    grad = np.array([0.5], "float32")
    data = batch()
    pe.run([loss], feed=dict(data, **{loss.name + "@GRAD": grad}))  # a dict feed: given to every device
    pe.run(
        [loss],
        feed=[
            {"x": data["x"][:6], "label": data["label"][:6], loss.name + "@GRAD": grad},
            {"x": data["x"][6:], "label": data["label"][6:], loss.name + "@GRAD": grad},
        ],
    )


def test_local_scopes_keep_temporaries_until_dropped(cpu2):
    (main, _, loss), scope = started()
    es = fluid.ExecutionStrategy()
    es.num_iteration_per_drop_scope = 2
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, exec_strategy=es, scope=scope)
    tmp = main.global_block().ops[0].output_arg_names[0]  # fc_0's product, a temporary
    assert pe._need_create_local_exe_scopes()  # Fluid's private check: no run yet
    pe.run([loss], feed=batch())
    assert not pe._need_create_local_exe_scopes()
    assert all(s.find_var(tmp) is not None for s in pe._engine.exec_scopes)
    assert scope.find_var(tmp) is None  # not in the global scope
    pe.run([loss], feed=batch())  # 2nd run: dropped after it
    assert pe._need_create_local_exe_scopes()
    assert all(s.find_var(tmp) is None for s in pe._engine.exec_scopes)
    pe.run([loss], feed=batch())
    assert pe._engine.exec_scopes[0].find_var(tmp) is not None
    pe.drop_local_exe_scopes()
    assert pe._need_create_local_exe_scopes()
    assert all(s.find_var(tmp) is None for s in pe._engine.exec_scopes)
    assert scope.find_var(main.all_parameters()[0].name) is not None  # parameters stay


def test_a_temporary_read_before_it_is_written_comes_from_the_last_run(cpu2):
    """Each device's local scope keeps its temporaries between runs: a non-persistable variable the
    program reads and then overwrites sees the value of the previous run (Fluid's local scopes)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        counter = fluid.layers.create_global_var([1], 0.0, "float32", persistable=False, name="counter")
        fluid.layers.assign(counter + 1.0, output=counter)
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    pe = fluid.ParallelExecutor(False, main_program=main, scope=scope)
    for want in (1.0, 2.0, 3.0):
        (out,) = pe.run([counter])
        np.testing.assert_array_equal(out, [want, want])
    assert np.array(pe._engine.exec_scopes[1].find_var("counter").get_tensor()).tolist() == [3.0]
    pe.drop_local_exe_scopes()  # back to the value in the global scope
    (out,) = pe.run([counter])
    np.testing.assert_array_equal(out, [1.0, 1.0])


def test_num_iteration_per_run(cpu2):
    (main, _, loss), scope = started()
    es = fluid.ExecutionStrategy()
    es.num_iteration_per_run = 3
    fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, exec_strategy=es, scope=scope).run(
        [loss], feed=batch()
    )
    (main2, _, loss2), scope2 = started()
    pe = fluid.ParallelExecutor(False, loss_name=loss2.name, main_program=main2, scope=scope2)
    for _ in range(3):
        pe.run([loss2], feed=batch())
    for name, value in params(main, scope).items():
        np.testing.assert_array_equal(value, scope2.get_array(name))


def test_debug_graphviz_path_is_a_prefix_as_fluids(cpu2, tmp_path, monkeypatch):
    """Fluid 1.8.5 writes <path>_multi_devices_graph (and its single-device graphs), so "./" is a
    path it takes: chenwhql/PaddleScripts' fuse_test_diff.py sets it."""
    (main, _, loss), scope = started()
    bs = fluid.BuildStrategy()
    bs.debug_graphviz_path = str(tmp_path / "ssa")
    fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, build_strategy=bs, scope=scope)
    text = (tmp_path / "ssa_multi_devices_graph").read_text()
    assert text.startswith("digraph") and "reduce" in text and "broadcast" in text
    monkeypatch.chdir(tmp_path)
    bs = fluid.BuildStrategy()
    bs.debug_graphviz_path = "./"
    fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, build_strategy=bs, scope=scope)
    assert (tmp_path / "_multi_devices_graph").read_text().startswith("digraph")


def test_cpu_devices_update_each_parameter_once_with_the_numbers_of_all_reduce(cpu2):
    """CPU devices share one memory: AllReduce builds Reduce's graph (each update on one device, its
    result shared), where every device would repeat the same update; the fused all-reduce graph, which
    does repeat it, gives the same bits."""
    (main, startup, loss), scope = started()
    runs = {}
    for fused in (False, True):
        bs = fluid.BuildStrategy()
        bs.fuse_all_reduce_ops = fused
        run_scope = fluid.Scope()
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=run_scope)
        pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, build_strategy=bs, scope=run_scope)
        updates = [n for n in pe._engine.graph.ops if n.op is not None and n.op.type == "sgd"]
        assert len(updates) == len(main.all_parameters()) * (2 if fused else 1)
        for step in range(3):
            pe.run([loss], feed=batch(seed=step))
        runs[fused] = params(main, run_scope)
    for name, value in runs[False].items():
        np.testing.assert_array_equal(value, runs[True][name])


def test_compiled_program_with_data_parallel_places(monkeypatch):
    monkeypatch.delenv("CPU_NUM", raising=False)
    (main, startup, loss, test), scope = started(with_test=True)
    exe = fluid.Executor(fluid.CPUPlace())
    train = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[fluid.CPUPlace()] * 2)
    with pytest.raises(TypeError, match="share_vars_from must be a CompiledProgram"):
        fluid.CompiledProgram(test).with_data_parallel(share_vars_from=object())
    test_cp = fluid.CompiledProgram(test).with_data_parallel(share_vars_from=train, places=[fluid.CPUPlace()] * 2)
    with pytest.raises(PeError, match="has not run yet"):
        exe.run(test_cp, feed=batch(), fetch_list=[loss.name], scope=scope)
    (out,) = exe.run(train, feed=batch(), fetch_list=[loss.name], scope=scope)
    assert out.shape == (2,) and train.device_count == 2
    (out,) = exe.run(test_cp, feed=batch(), fetch_list=[loss.name], scope=scope)
    assert out.shape == (2,)
    with pytest.raises(ValueError, match="scope of its first run"):
        exe.run(train, feed=batch(), fetch_list=[loss.name], scope=fluid.Scope())
    with pytest.raises(PeError, match="already"):
        train.with_data_parallel(loss_name=loss.name)
    # without with_data_parallel a CompiledProgram runs like its program
    (plain,) = exe.run(fluid.CompiledProgram(test), feed=batch(), fetch_list=[loss.name], scope=scope)
    assert plain.shape == (1,)


def test_compile_pins_scope_and_place_and_checks_share_vars_from():
    """Fluid's CompiledProgram._compile (the Executor calls it before every run): the first call pins
    the scope and place, another scope or place is a ValueError; share_vars_from must name a
    data-parallel program that has run (a ValueError, before anything is pinned)."""
    (main, startup, loss, test), scope = started(with_test=True)
    exe = fluid.Executor(fluid.CPUPlace())
    plain = fluid.CompiledProgram(test)
    assert plain._compile(scope, fluid.CPUPlace()) is plain
    assert plain._compile(scope, fluid.CPUPlace()) is plain
    with pytest.raises(ValueError, match="different scope"):
        plain._compile(fluid.Scope(), fluid.CPUPlace())
    with pytest.raises(ValueError, match="different place"):
        plain._compile(scope, fluid.CUDAPlace(0))
    with pytest.raises(ValueError, match="different scope"):  # a plain one too, as in Fluid
        exe.run(plain, feed=batch(), fetch_list=[loss.name], scope=fluid.Scope())
    exe.run(plain, feed=batch(), fetch_list=[loss.name], scope=scope)
    not_parallel = fluid.CompiledProgram(test).with_data_parallel(share_vars_from=fluid.CompiledProgram(main))
    with pytest.raises(ValueError, match="only a data-parallel"):
        not_parallel._compile(scope, fluid.CPUPlace())
    train = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[fluid.CPUPlace()])
    test_cp = fluid.CompiledProgram(test).with_data_parallel(share_vars_from=train, places=[fluid.CPUPlace()])
    with pytest.raises(ValueError, match="no variable to share"):
        test_cp._compile(scope, fluid.CPUPlace())
    (train_loss,) = exe.run(train, feed=batch(), fetch_list=[loss.name], scope=scope)
    assert not test_cp._compiled
    (test_loss,) = exe.run(test_cp, feed=batch(), fetch_list=[loss.name], scope=scope)
    assert test_loss.shape == (1,) and np.isfinite(test_loss).all()


def test_threads_are_released(cpu2):
    (main, _, loss), scope = started()
    base = threading.active_count()
    for _ in range(3):
        pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope)
        pe.run([loss], feed=batch())
        del pe
        gc.collect()
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, scope=scope)
    pe.close()
    for t in threading.enumerate():
        if t.name.startswith("pe-parallel"):
            t.join(timeout=5)
    assert threading.active_count() <= base
    with pytest.raises(PeError, match="closed"):
        pe.run([loss], feed=batch())
