"""Whole-step CUDA graphs (kernels/cuda/step_graph.py, executor/graphed.py): a step recorded once
per feed signature and replayed gives bitwise the losses and parameters of op-by-op steps; steps
that cannot be recorded run op by op; a new signature records again; replays allocate nothing.
Under the simulator the replay runs the recorded launches; with PE_REAL_GPU=1 on a GPU the last
test compares graphs on and off on the driver."""

import fnmatch
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.places import CUDAPlace
from pe_cli.executor import Executor, Scope, graphed
from pe_cli.framework import Program, program_guard
from pe_cli.kernels.cuda import runtime, step_graph

from test_cuda_training import _batches, _mlp


@pytest.fixture
def graphs(monkeypatch):
    """Step graphs on for executors made in the test (off again after it)."""
    monkeypatch.setattr(step_graph, "_enabled", True)
    return step_graph


def _lenet():
    main, startup = Program(), Program()
    main.random_seed = startup.random_seed = 3
    with program_guard(main, startup):
        img = fluid.layers.data("img", [1, 6, 6])
        label = fluid.layers.data("label", [1], dtype="int64")
        conv = fluid.layers.conv2d(img, num_filters=2, filter_size=3, act="relu")
        pool = fluid.layers.pool2d(conv, pool_size=2, pool_stride=2)
        logits = fluid.layers.fc(pool, 3)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        fluid.optimizer.Momentum(0.1, 0.9).minimize(loss)
    return main, startup, loss


def _lenet_batches(n, batch=2):
    rng = np.random.default_rng(1)
    return [
        {
            "img": rng.normal(size=(batch, 1, 6, 6)).astype("float32"),
            "label": rng.integers(0, 3, size=(batch, 1)).astype("int64"),
        }
        for _ in range(n)
    ]


def _gathered():
    """gather checks its indices on the host: it cannot be captured."""
    main, startup = Program(), Program()
    main.random_seed = startup.random_seed = 4
    with program_guard(main, startup):
        x = fluid.layers.data("x", [12])
        index = fluid.layers.data("index", [1], dtype="int64", append_batch_size=False)
        h = fluid.layers.fc(x, 5)
        loss = fluid.layers.mean(fluid.layers.gather(h, index))
        fluid.optimizer.SGD(0.2).minimize(loss)
    return main, startup, loss


def _gathered_batches(n):
    return [dict(b, index=np.array([i % 8, 3], dtype="int64")) for i, b in enumerate(_batches(n))]


def _selected():
    """where's output shape follows the data (how many of m are > 0.5)."""
    main, startup = Program(), Program()
    main.random_seed = startup.random_seed = 4
    with program_guard(main, startup):
        x = fluid.layers.data("x", [12])
        m = fluid.layers.data("m", [4])
        h = fluid.layers.fc(x, 4)
        index = fluid.layers.where(fluid.layers.greater_than(m, fluid.layers.fill_constant([1], "float32", 0.5)))
        loss = fluid.layers.reduce_sum(fluid.layers.gather_nd(h, index))
        fluid.optimizer.SGD(0.2).minimize(loss)
    return main, startup, loss


def _selected_batches(kept):
    """One step per entry of ``kept``: that many values of m above 0.5."""
    batches = []
    for i, (k, b) in enumerate(zip(kept, _batches(len(kept)))):
        m = np.zeros((8, 4), "float32")
        m.reshape(-1)[(np.arange(k) * 5 + i) % 32] = 1
        batches.append({"x": b["x"], "m": m})
    return batches


def _train(model, batches, on):
    was = step_graph.enabled()
    step_graph.enable(on)
    try:
        main, startup, loss = model()
        scope, exe = Scope(), Executor(CUDAPlace(0))
        exe.run(startup, scope=scope)
        losses = [exe.run(main, feed=b, fetch_list=[loss], scope=scope)[0] for b in batches]
        params = [np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()]
        return losses, params, exe._plans[id(main)]
    finally:
        step_graph.enable(was)


def _assert_bitwise(off, on):
    """Bitwise under the simulator; within float32 rounding on a GPU (kernels summing with atomics
    may add in another order on each run, graphs or not)."""
    for a, b in zip(off[0] + off[1], on[0] + on[1]):
        assert a.dtype == b.dtype
        if runtime.simulated():
            assert np.array_equal(a, b), (a, b)
        else:
            np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def _recordings(plan):
    return [e for e in plan.graphs.values() if hasattr(e, "parts")]


@pytest.mark.parametrize(
    "model, batches",
    [
        (lambda: _mlp(fluid.optimizer.SGD(0.5)), lambda: _batches(5)),
        (lambda: _mlp(fluid.optimizer.Adam(0.05)), lambda: _batches(5)),
        (_lenet, lambda: _lenet_batches(4)),
    ],
    ids=["mlp-sgd", "mlp-adam", "lenet-momentum"],
)
def test_replayed_steps_are_bitwise_op_by_op_steps(model, batches):
    off = _train(model, batches(), False)
    on = _train(model, batches(), True)
    _assert_bitwise(off, on)
    (recording,) = _recordings(on[2])
    # the first step of the signature ran op by op, the second was captured (and ran)
    assert recording.replays == len(batches()) - 2
    assert [type(part).__name__ for part in recording.parts] == ["Segment"]


def _between_segments(recording):
    return [part.step.op.type for part in recording.parts if type(part).__name__ == "_Eager"]


def test_ops_that_read_on_the_host_run_between_captured_segments():
    """Each step that finds another such op ends op by op; then the step is recorded around them."""
    off = _train(_gathered, _gathered_batches(6), False)
    on = _train(_gathered, _gathered_batches(6), True)
    _assert_bitwise(off, on)
    (recording,) = _recordings(on[2])
    assert _between_segments(recording) == ["gather", "gather_grad"]
    assert recording.replays == 2


def test_random_ops_run_between_segments():
    def model():
        main, startup = Program(), Program()
        main.random_seed = startup.random_seed = 6
        with program_guard(main, startup):
            x = fluid.layers.data("x", [12])
            loss = fluid.layers.mean(fluid.layers.dropout(fluid.layers.fc(x, 4), 0.5))
            fluid.optimizer.SGD(0.1).minimize(loss)
        return main, startup, loss

    batches = [{"x": b["x"]} for b in _batches(4)]
    off = _train(model, batches, False)
    on = _train(model, batches, True)
    _assert_bitwise(off, on)
    (recording,) = _recordings(on[2])
    assert _between_segments(recording) == ["dropout"] and recording.replays == 2


def test_outputs_changing_shape_between_steps_run_the_signature_op_by_op():
    kept = [2, 2, 2, 2, 2, 2, 3, 2]
    off = _train(_selected, _selected_batches(kept), False)
    on = _train(_selected, _selected_batches(kept), True)
    _assert_bitwise(off, on)
    assert graphed.refusals(on[2]) == ["the outputs of where_index change between steps"]


def _sparse_embedding():
    main, startup = Program(), Program()
    main.random_seed = startup.random_seed = 2
    with program_guard(main, startup):
        ids = fluid.layers.data("ids", [1], dtype="int64")
        loss = fluid.layers.mean(fluid.layers.fc(fluid.layers.embedding(ids, [10, 4], is_sparse=True), 2))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup, loss


def _fed_rate():
    """A learning rate that is a persistable variable, fed each step."""
    main, startup = Program(), Program()
    main.random_seed = startup.random_seed = 2
    with program_guard(main, startup):
        x = fluid.layers.data("x", [12])
        rate = fluid.layers.create_global_var([1], 0.5, "float32", persistable=True, name="rate")
        loss = fluid.layers.mean(fluid.layers.fc(x, 3))
        fluid.optimizer.SGD(rate).minimize(loss)
    return main, startup, loss


@pytest.mark.parametrize("case", ["sparse", "fed-persistable", "nan-checks"])
def test_refused_signatures_run_op_by_op(case, monkeypatch):
    if case == "sparse":
        model, batches = _sparse_embedding, [{"ids": np.array([[i % 10], [3]], "int64")} for i in range(5)]
        why = "lookup_table_grad makes 'embedding_*.w_0@GRAD', not a dense device array"
    elif case == "fed-persistable":
        model = _fed_rate
        batches = [{"x": b["x"], "rate": np.array([0.5 / (i + 1)], "float32")} for i, b in enumerate(_batches(4))]
        why = "the feed 'rate' is a persistable variable"
    else:
        monkeypatch.setattr(graphed.nan_check, "ENABLED", True)
        model, batches = lambda: _mlp(fluid.optimizer.SGD(0.5)), _batches(4)
        why = "NaN checks read every output on the host"
    off = _train(model, batches, False)
    on = _train(model, batches, True)
    _assert_bitwise(off, on)
    (refusal,) = graphed.refusals(on[2])
    assert fnmatch.fnmatchcase(refusal, why) and _recordings(on[2]) == []


def test_a_sequence_model_fetches_its_lod():
    """A LoD feed (part of the signature): the sequence ops, which copy its offsets in, run between
    segments; a fetched value keeps its LoD."""

    def model():
        main, startup = Program(), Program()
        main.random_seed = startup.random_seed = 2
        with program_guard(main, startup):
            x = fluid.layers.data("x", [3], lod_level=1)
            h = fluid.layers.fc(x, 4)
            loss = fluid.layers.mean(fluid.layers.sequence_pool(h, "sum"))
            fluid.optimizer.SGD(0.1).minimize(loss)
        return main, startup, loss, h

    def run(on):
        was = step_graph.enabled()
        step_graph.enable(on)
        try:
            main, startup, loss, h = model()
            scope, exe = Scope(), Executor(CUDAPlace(0))
            exe.run(startup, scope=scope)
            rng, out = np.random.default_rng(0), []
            for _ in range(5):
                x = fluid.LoDTensor()
                x.set(rng.normal(size=(5, 3)).astype("float32"), fluid.CPUPlace())
                x.set_recursive_sequence_lengths([[2, 3]])
                out.append(exe.run(main, feed={"x": x}, fetch_list=[loss, h], scope=scope, return_numpy=False))
            return out, _recordings(exe._plans[id(main)])
        finally:
            step_graph.enable(was)

    off, _ = run(False)
    on, (recording,) = run(True)
    for (loss_a, h_a), (loss_b, h_b) in zip(off, on):
        assert np.array_equal(np.array(loss_a), np.array(loss_b)) and np.array_equal(np.array(h_a), np.array(h_b))
        assert h_b.recursive_sequence_lengths() == h_a.recursive_sequence_lengths() == [[2, 3]]
    assert "sequence_pool" in _between_segments(recording) and recording.replays >= 1


def test_a_new_feed_shape_records_again():
    big, small = _batches(3, batch=8), _batches(3, batch=4)
    batches = big + small + big[:2]
    off = _train(lambda: _mlp(fluid.optimizer.SGD(0.5)), batches, False)
    on = _train(lambda: _mlp(fluid.optimizer.SGD(0.5)), batches, True)
    _assert_bitwise(off, on)
    # batch 4's first step ran op by op and gave the scope new parameter arrays: batch 8's recording
    # copies them into its buffers and replays on
    assert sorted(r.replays for r in _recordings(on[2])) == [1, 3]


def _replacing_scope_values(on):
    """Five steps, the learning rate set from the host before each (as Paddle 2.x's LR schedulers
    do), a parameter set to zeros before the fourth: the losses."""
    was = step_graph.enabled()
    step_graph.enable(on)
    try:
        main, startup, loss = _mlp(fluid.optimizer.SGD(0.5))
        scope, exe = Scope(), Executor(CUDAPlace(0))
        exe.run(startup, scope=scope)
        losses = []
        lr = next(v.name for v in main.global_block().vars.values() if v.persistable and "learning_rate" in v.name)
        for i, b in enumerate(_batches(5)):
            scope.set_array(lr, np.array([0.5 / (i + 1)], dtype="float32"))
            if i == 3:
                w = scope.find_var(main.global_block().all_parameters()[0].name).get_tensor()
                w.set(np.zeros_like(np.array(w)), CUDAPlace(0))
            losses += exe.run(main, feed=b, fetch_list=[loss], scope=scope)
        return losses, _recordings(exe._plans[id(main)])
    finally:
        step_graph.enable(was)


def test_values_replaced_in_the_scope_are_copied_in_before_a_replay():
    off, _ = _replacing_scope_values(False)
    on, (recording,) = _replacing_scope_values(True)
    _assert_bitwise((off, []), (on, []))
    assert recording.replays == 3


def test_a_compiled_program_with_batch_norm_and_a_decaying_rate():
    """memory_optimize's frees, batch_norm's running statistics and the decay's step counter (state
    the step updates besides the parameters) replay as op by op."""

    def model():
        main, startup = Program(), Program()
        main.random_seed = startup.random_seed = 2
        with program_guard(main, startup):
            img = fluid.layers.data("img", [1, 6, 6])
            label = fluid.layers.data("label", [1], dtype="int64")
            h = fluid.layers.batch_norm(fluid.layers.conv2d(img, 2, 3), act="relu")
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 3), label))
            fluid.optimizer.Adam(fluid.layers.exponential_decay(0.1, 2, 0.5, staircase=True)).minimize(loss)
        strategy = fluid.BuildStrategy()
        strategy.memory_optimize = True
        return fluid.CompiledProgram(main, build_strategy=strategy), startup, loss

    def run(on):
        was = step_graph.enabled()
        step_graph.enable(on)
        try:
            compiled, startup, loss = model()
            scope, exe = Scope(), Executor(CUDAPlace(0))
            exe.run(startup, scope=scope)
            losses = [exe.run(compiled, feed=b, fetch_list=[loss], scope=scope)[0] for b in _lenet_batches(5, 3)]
            held = [scope.find_var(v.name) for v in compiled.program.global_block().vars.values() if v.persistable]
            state = [np.array(h.get_tensor()) for h in held if h is not None and h.tensor._array is not None]
            return losses, state, [e for p in exe._plans.values() for e in p.graphs.values() if hasattr(e, "parts")]
        finally:
            step_graph.enable(was)

    off, on = run(False), run(True)
    _assert_bitwise(off[:2], on[:2])
    assert len(off[1]) > 10 and [r.replays for r in on[2]] == [3]


def test_a_build_strategy_turns_graphs_on_for_its_program():
    main, startup, loss = _mlp(fluid.optimizer.SGD(0.5))
    strategy = fluid.BuildStrategy()
    strategy.allow_cuda_graph_capture = True
    compiled = fluid.CompiledProgram(main, build_strategy=strategy)
    scope, exe = Scope(), Executor(CUDAPlace(0))
    exe.run(startup, scope=scope)
    for b in _batches(4):
        exe.run(compiled, feed=b, fetch_list=[loss], scope=scope)
        exe.run(main, feed=b, fetch_list=[loss], scope=scope)  # the plain program: op by op
    (recording,) = [r for plan in exe._plans.values() for r in _recordings(plan)]
    assert recording.replays == 2


def test_the_run_configs_key_reaches_a_one_device_program():
    """build_strategy.allow_cuda_graph_capture in a run config: pe train runs a CompiledProgram on one
    device (not the data-parallel engine), which the Executor records."""
    from types import SimpleNamespace
    from pe_cli.run.placement import train_program

    main, _, _ = _mlp(fluid.optimizer.SGD(0.5))
    options = dict(fluid.BuildStrategy().to_dict(), allow_cuda_graph_capture=True)
    cfg = SimpleNamespace(
        data={"devices": 1, "build_strategy": options, "exec_strategy": {}, "distributed": {"mode": "collective"}}
    )
    program = train_program(cfg, SimpleNamespace(main=main), CUDAPlace(0))
    assert not program._is_data_parallel and program._build_strategy.allow_cuda_graph_capture


def test_replays_allocate_nothing(graphs):
    main, startup, loss = _mlp(fluid.optimizer.Adam(0.05))
    scope, exe = Scope(), Executor(CUDAPlace(0))
    exe.run(startup, scope=scope)
    pool = runtime.device(0).pool
    counts = []
    for b in _batches(6):
        exe.run(main, feed=b, fetch_list=[loss], scope=scope)
        (recording,) = _recordings(exe._plans[id(main)]) or [None]
        counts.append((pool.allocations, recording and recording.pool.allocations))
    assert counts[2:] == [counts[2]] * 4, counts
    assert counts[2][1] > 0  # the capture allocated its intermediates from its private pool


@pytest.mark.skipif(os.environ.get("PE_REAL_GPU") != "1", reason="stream capture needs a GPU (PE_REAL_GPU=1)")
def test_graphs_on_a_gpu_train_as_op_by_op():
    for model, batches in [(lambda: _mlp(fluid.optimizer.Adam(0.05)), _batches(5)), (_lenet, _lenet_batches(4))]:
        off = _train(model, batches, False)
        on = _train(model, batches, True)
        _assert_bitwise(off, on)
        assert _recordings(on[2])[0].graph is not None
