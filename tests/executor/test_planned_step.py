"""Planned CPU steps (PE_PLANNED_STEP=1, pe_cli/executor/step_plan.py) compute what op-by-op steps
compute, bit for bit: the bench's MLP (784 -> 256 -> 256 -> 10, softmax cross-entropy, momentum) and
the tiny X -> fc -> mean model, several training steps, on 1 and 2 devices; a new feed signature
is planned anew; an op without launches runs between segments; a bad label is refused as
op by op. The segments' machine code is cached on disk (segment.py): a first run on a machine
compiles for about 10 s."""

import numpy as np
import pytest

from pe_cli import fluid
from pe_cli.base.errors import PeError
from pe_cli.ops import registry

STEPS = 5


@pytest.fixture(autouse=True)
def compiled_segments(monkeypatch):
    """The segments compiled from their first run (PE_SEGMENT_COMPILE_AFTER=0): what these tests check; a
    segment's first runs call its launches one by one (test_interpreted_segments_give_the_compiled_bits)."""
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "0")


def build(model, extra_op=False, optimizer="momentum"):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        if model in ("mlp", "mlp_tanh"):
            x = fluid.layers.data("x", [784])
            label = fluid.layers.data("label", [1], dtype="int64")
            h = x
            for i, size in enumerate([256, 256, 10]):
                h = fluid.layers.fc(h, size, act=("relu" if model == "mlp" else "tanh") if i < 2 else None)
                if extra_op and i == 0:
                    h = fluid.layers.clip(h, -0.5, 0.5)  # clip has no launches: a Python launch
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(h, label))
        elif model == "lenet":
            x = fluid.layers.data("x", [1, 28, 28])
            label = fluid.layers.data("label", [1], dtype="int64")
            h = fluid.layers.conv2d(x, num_filters=6, filter_size=5, padding=2, act="relu")
            h = fluid.layers.pool2d(h, pool_size=2, pool_stride=2)
            h = fluid.layers.conv2d(h, num_filters=16, filter_size=5, act="relu")
            h = fluid.layers.pool2d(h, pool_size=2, pool_stride=2, pool_type="avg")
            h = fluid.layers.fc(fluid.layers.fc(h, 84, act="relu"), 10)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(h, label))
        elif model == "mlp_dropout":  # (dropout after each hidden layer: upscaled; downgraded, its seed fixed)
            main.random_seed = 0  # (the first dropout's Generator then comes from the default generator)
            x = fluid.layers.data("x", [784])
            label = fluid.layers.data("label", [1], dtype="int64")
            h = fluid.layers.fc(x, 64, act="relu")
            h = fluid.layers.dropout(h, 0.25, dropout_implementation="upscale_in_train")
            h = fluid.layers.dropout(fluid.layers.fc(h, 64, act="relu"), 0.5, seed=3)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), label))
        elif model == "cnn_bn":  # (configs/mnist_cnn_bn.yaml's network, smaller)
            x = fluid.layers.data("x", [1, 28, 28])
            label = fluid.layers.data("label", [1], dtype="int64")
            h = x
            for filters in (4, 8):
                h = fluid.layers.conv2d(h, num_filters=filters, filter_size=5, padding=2)
                h = fluid.layers.pool2d(fluid.layers.batch_norm(h, act="relu"), pool_size=2, pool_stride=2)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 10), label))
        elif model == "transformer":  # (bench_transformer.py's, smaller: one layer of 4 heads of 8)
            x = fluid.layers.data("x", [28, 16])
            label = fluid.layers.data("label", [1], dtype="int64")
            h = fluid.layers.add_position_encoding(fluid.layers.fc(x, 32, num_flatten_dims=2), 1.0, 1.0)
            h = fluid.layers.transformer_encoder(h, 1, 32, 4, 64, dropout=0.0, name="enc")
            h = fluid.layers.fc(fluid.layers.reduce_mean(h, dim=1), 10)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(h, label))
        else:
            x = fluid.layers.data("x", [13])
            loss = fluid.layers.mean(fluid.layers.fc(x, 10))
        opt = {
            "sgd": lambda: fluid.optimizer.SGD(0.01),
            "adam": lambda: fluid.optimizer.Adam(0.001),
            "adam_scaled": lambda: fluid.optimizer.Adam(0.001),
            "momentum": lambda: fluid.optimizer.Momentum(0.01, momentum=0.9),
        }[optimizer]()
        opt.minimize(loss)
        for op in main.global_block().ops if optimizer == "adam_scaled" else ():
            if op.type == "adam":  # (Paddle 2.x's epsilon: pe's attribute of its adam ops)
                op._set_attr("epsilon_scaled", True)
    return main, startup, loss


def feed(model, batch, seed):
    rng = np.random.default_rng(seed)
    shape = {
        "mlp": (784,),
        "mlp_tanh": (784,),
        "mlp_dropout": (784,),
        "lenet": (1, 28, 28),
        "cnn_bn": (1, 28, 28),
        "transformer": (28, 16),
    }
    shape = shape.get(model, (13,))
    out = {"x": rng.standard_normal((batch, *shape)).astype(np.float32)}
    if model != "tiny":
        out["label"] = rng.integers(0, 10, (batch, 1)).astype(np.int64)
    return out


def train(monkeypatch, model, planned, devices, batches=(32,) * STEPS, extra_op=False, before=None, **options):
    """(losses, parameters, executor or engine) after one step per batch size (``before(step, scope,
    main)`` called before each); ``options``: optimizer="sgd", fused=True (a build strategy fusing
    each fc's GEMM, bias and relu into fused_gemm_epilogue ops), fuse_bn_act=True (each batch_norm and
    its relu into fused_batch_norm_act)."""
    optimizer = options.get("optimizer", "momentum")
    strategy = fluid.BuildStrategy() if options.get("fused") or options.get("fuse_bn_act") else None
    if strategy is not None:
        strategy.fuse_gemm_epilogue = bool(options.get("fused"))
        strategy.fuse_bn_act_ops = bool(options.get("fuse_bn_act"))
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup, loss = build(model, extra_op, optimizer)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    program = main if strategy is None else fluid.CompiledProgram(main, build_strategy=strategy)
    if devices > 1:
        places = [fluid.CPUPlace()] * devices
        program = fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, places=places, build_strategy=strategy
        )
    losses = []
    for i, b in enumerate(batches):
        if before is not None:
            before(i, scope, main)
        losses.append(exe.run(program, feed=feed(model, b, i), fetch_list=[loss], scope=scope)[0])
    params = {p.name: np.array(scope.get_array(p.name), copy=True) for p in main.all_parameters()}
    return losses, params, (exe if devices == 1 else program._engine)


def planned_runs(owner, devices):
    """The planned steps kept: PlannedStep (1 device) or PlannedRun (the schedule's) objects."""
    if devices == 1:
        caches = [cache for plan in owner._plans.values() for _, cache in plan.planned.values()]
        return [p for cache in caches for p in cache.values() if not isinstance(p, int)]
    caches = [getattr(sched, "planned", {}) for sched in owner._schedules.values()]
    return [p for cache in caches for p in cache.values() if not isinstance(p, int)]


def all_launched_in_bits(planned, unplanned, exe):
    """Asserts that each list of fetched values of ``planned`` runs is ``unplanned``'s to the byte (dtype and shape
    too) and that every op of ``exe``'s one plan was launched; that plan's [(op type, its launches)]."""
    for got, want in zip(planned, unplanned, strict=True):
        assert all(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes() for a, b in zip(got, want))
    (plan,) = (r.plan for r in planned_runs(exe, 1))
    ops = [(step.op.type, launches) for step, launches in zip(plan.steps, plan.launches)]
    assert [t for t, launches in ops if launches is None] == []  # (every op launched)
    return ops


def assert_same(a, b):
    for x, y in zip(a[0], b[0]):
        assert x.dtype == y.dtype and np.array_equal(x, y), (x, y)
    assert a[1].keys() == b[1].keys()
    for name in a[1]:
        assert np.array_equal(a[1][name], b[1][name]), name


@pytest.mark.parametrize("devices", [1, 2])
@pytest.mark.parametrize("model", ["mlp", "tiny"])
def test_planned_equals_op_by_op(monkeypatch, model, devices):
    unplanned = train(monkeypatch, model, False, devices)
    planned = train(monkeypatch, model, True, devices)
    assert_same(planned, unplanned)
    (run,) = planned_runs(planned[2], devices)
    if devices == 1:
        ops = len(build(model)[0].global_block().ops)
    else:  # every op node of the schedule (an update runs on the device that owns its parameter)
        ops = sum(1 for node in run.sched.nodes if node.is_op)
        reduces = [node for node in run.sched.nodes if type(node).__name__ == "ReduceNode"]
        assert reduces and run.planned_reduces == len(reduces)  # every gradient summed inside a segment
    assert run.planned_ops == ops  # every op launched
    assert not planned_runs(unplanned[2], devices)


@pytest.mark.parametrize("devices, optimizer", [(1, "adam"), (2, "adam"), (1, "adam_scaled")])
def test_adam_updates_are_launched_with_op_by_ops_bits(monkeypatch, devices, optimizer):
    """Dense adam in place, its powers' next values and bias-corrected rate (and Paddle 2.x's scaled epsilon)
    computed inside the segment (_adam_loops.adam_step_in_place): every op of the MLP's step launched, op by
    op's bits on 1 and 2 devices."""
    planned = train(monkeypatch, "mlp", True, devices, optimizer=optimizer)
    assert_same(planned, train(monkeypatch, "mlp", False, devices, optimizer=optimizer))
    (run,) = planned_runs(planned[2], devices)
    steps = run.plan.steps if devices == 1 else [n for n in run.sched.nodes if n.is_op]
    assert sum(1 for s in steps if s.op.type == "adam") == 6
    ops = len(build("mlp", optimizer=optimizer)[0].global_block().ops) if devices == 1 else len(steps)
    assert run.planned_ops == ops


def test_reduces_over_three_devices_sum_in_device_order(monkeypatch):
    """The MLP on 3 devices (a batch of 33: 11 rows each): each gradient summed over the devices inside the
    segment of the device owning its parameter, in device order into that device's own (each device owns
    one), gives the bits of the reduce collective op by op."""
    steps = (33,) * STEPS
    planned = train(monkeypatch, "mlp", True, 3, steps)
    assert_same(planned, train(monkeypatch, "mlp", False, 3, steps))
    (run,) = planned_runs(planned[2], 3)
    reduces = [node for node in run.sched.nodes if type(node).__name__ == "ReduceNode"]
    assert {node.attrs["root"] for node in reduces} == {0, 1, 2} and run.planned_reduces == len(reduces)


def test_a_plan_runs_its_parallel_loops_on_the_threads_free_now(monkeypatch):
    """A plan made while the device had 2 threads (parallel twins among its launches) keeps running when
    its share drops to 1 (here PE_DEVICE_THREADS, as when other processes take a core): numba's thread
    count for the step's thread follows the share, not the one the plan was made for (a part would wait
    for a busy core), and the plan's parts stay, so do its bits: those of op by op on 2 threads
    throughout. (Op by op with PE_DEVICE_THREADS=1 rounds differently: a GEMM split over two threads is
    not one BLAS call; the load alone changes no part: threads.work_parts.)"""
    import numba

    from pe_cli.kernels.cpu.runtime import threads

    def share(step, scope, main):
        if step in (0, 4):
            monkeypatch.setenv("PE_DEVICE_THREADS", "2" if step == 0 else "1")
            threads.refresh()

    monkeypatch.setattr(threads, "_planned", {})  # (the rule read again from here, and forgotten after)
    steps = (64,) * 7
    planned = train(monkeypatch, "mlp", True, 1, steps, before=share)
    assert numba.get_num_threads() == 1
    (run,) = planned_runs(planned[2], 1)  # (the plan made under 2 threads, still the one kept)
    names = [launch.fn.py_func.__name__ for launches in run.plan.launches for launch in launches or () if launch.fn]
    assert any(name.endswith("_parallel") for name in names), names
    assert_same(planned, train(monkeypatch, "mlp", False, 1, steps, before=lambda step, *_: share(0, *_)))
    threads.refresh()


def test_a_plan_made_under_load_splits_its_loops_for_the_quiet_machine(monkeypatch):
    """Planned beside two busy processes (the device's share of 2 cores drops to 1), the MLP's step still
    launches its parallel twins, split for the device's 2 threads on a quiet machine: a plan is kept, so it is
    made for the machine, not for the load of its moment (each step runs the parts on the threads free then)."""
    import subprocess
    import sys
    import time

    from pe_cli.kernels.cpu.runtime import threads

    monkeypatch.setenv("PE_NUM_THREADS", "2")  # (2 cores, whatever the machine)
    monkeypatch.delenv("PE_DEVICE_THREADS", raising=False)
    monkeypatch.setattr(threads, "_planned", {})
    threads.refresh()
    shares = []
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        time.sleep(0.5)
        planned = train(
            monkeypatch, "mlp", True, 1, (64,) * 4, before=lambda *_: shares.append(threads.kernel_threads())
        )
    finally:
        for process in busy:
            process.kill()
            process.wait()
        threads.refresh()
    assert shares[2] == 1, shares  # (the share while the step that planned it ran)
    (run,) = planned_runs(planned[2], 1)
    names = [launch.fn.py_func.__name__ for launches in run.plan.launches for launch in launches or () if launch.fn]
    assert any(name.endswith("_parallel") for name in names), names


def _segments(run, devices):
    entries = (
        run.entries
        if devices == 1
        else [seg for stage in run.stages if type(stage) is not list for seg in stage.segments]
    )
    return [e for e in entries if e is not None and type(e) is not int]


def one_thread_a_device(monkeypatch):
    """PE_DEVICE_THREADS=1 for this test (LeNet-5's plan on 2 threads launches parallel twins, which take
    about 20 s to compile on a machine's first run; the serial loops are what they run)."""
    from pe_cli.kernels.cpu.runtime import threads

    monkeypatch.setenv("PE_DEVICE_THREADS", "1")
    monkeypatch.setattr(threads, "_planned", {})
    threads.refresh()


@pytest.mark.parametrize("devices", [1, 2])
@pytest.mark.parametrize("model", ["mlp", "lenet"])
def test_interpreted_segments_give_the_compiled_bits(monkeypatch, model, devices):
    """A segment's launches called one by one from Python (its first PE_SEGMENT_COMPILE_AFTER runs) give the
    bits of the segment compiled, and of op by op."""
    from pe_cli.executor import segment

    one_thread_a_device(monkeypatch)
    monkeypatch.setattr(segment, "_compiled", {})  # (none compiled in this process: else it is taken at once)
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "1000")
    interpreted = train(monkeypatch, model, True, devices, (16,) * STEPS)
    (run,) = planned_runs(interpreted[2], devices)
    assert all(s.fn is None and s.runs == STEPS - 2 for s in _segments(run, devices))
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "0")
    compiled = train(monkeypatch, model, True, devices, (16,) * STEPS)
    (run,) = planned_runs(compiled[2], devices)
    assert all(s.fn is not None for s in _segments(run, devices))
    assert_same(interpreted, compiled)
    assert_same(interpreted, train(monkeypatch, model, False, devices, (16,) * STEPS))


def test_a_segment_is_compiled_after_its_runs_one_by_one(monkeypatch):
    """PE_SEGMENT_COMPILE_AFTER=2: a segment's first two runs call its launches one by one, the third compiles it."""
    from pe_cli.executor import segment

    monkeypatch.setattr(segment, "_compiled", {})
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "2")
    for steps, compiled in ((4, False), (5, True)):  # (2 steps op by op, then the planned runs)
        (run,) = planned_runs(train(monkeypatch, "tiny", True, 1, (8,) * steps)[2], 1)
        assert [(s.fn is not None, s.runs) for s in _segments(run, 1)] == [(compiled, steps - 2)]
        monkeypatch.setattr(segment, "_compiled", {})


def _two_threads(monkeypatch):
    """PE_DEVICE_THREADS=2: the MLP's plan launches the parallel twins of its GEMMs, whatever the machine."""
    from pe_cli.kernels.cpu.runtime import threads

    monkeypatch.setenv("PE_DEVICE_THREADS", "2")
    monkeypatch.setattr(threads, "_planned", {})
    threads.refresh()


def _twin_segments(run):
    segments = [s for s in _segments(run, 1) if any(serial is not None for *_, serial in s.calls)]
    assert segments, "no segment of the plan launches a parallel twin"
    return segments


def test_a_first_run_runs_serial_loops_while_its_twins_compile(monkeypatch):
    """A first run on a machine finds the plan's parallel twins not compiled (a helper process compiles them:
    loops.parallel_ready, here answering "not yet"). Its segments call the twins' serial loops meanwhile, with
    the bits of op by op, and are compiled only once every twin they call is (PE_SEGMENT_COMPILE_AFTER=2 runs
    past): a compile links the twins, it never compiles them in the run's own process."""
    from pe_cli.executor import segment

    _two_threads(monkeypatch)
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "2")
    ready, answer = [False], segment.parallel_ready
    monkeypatch.setattr(segment, "parallel_ready", lambda twin, *args: ready[0] and answer(twin, *args))
    steps = (64,) * 6  # (2 op by op, 4 planned)
    for from_step in (None, 4):  # the twins never ready; ready from the fifth step (the third planned run)
        monkeypatch.setattr(segment, "_compiled", {})
        planned = train(monkeypatch, "mlp", True, 1, steps, before=lambda i, *_: ready.__setitem__(0, i == from_step))
        (run,) = planned_runs(planned[2], 1)
        state = [(s.runs, bool(s.waiting), s.fn is not None) for s in _twin_segments(run)]
        assert all(one == ((4, True, False) if from_step is None else (4, False, True)) for one in state), state
        assert_same(planned, train(monkeypatch, "mlp", False, 1, steps))


def test_a_compiled_segment_runs_the_machine_code_its_loops_run_op_by_op(monkeypatch, tmp_path):
    """Compiling a segment (into a fresh cache: compiled, not loaded) adds no compiled version of any loop it
    calls: it calls each with the argument types of its calls from Python (an int constant written ``5`` is
    numba's ``Literal[int](5)``, for which a loop is compiled again: seconds a loop, a minute for LeNet-5's
    twins, and machine code of its own)."""
    from pe_cli.executor import segment
    from pe_cli.kernels.cpu.runtime import loops

    _two_threads(monkeypatch)
    monkeypatch.setattr(segment, "_compiled", {})
    monkeypatch.setattr(loops._compiled_later, "hurry", False)  # (finish_pending sets it)

    def twins_compiled(step, *_):
        if step == 3:  # (the first planned run asked for them; the second finds them)
            loops.finish_pending()

    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "1000")
    interpreted = train(monkeypatch, "mlp", True, 1, (64,) * 5, before=twins_compiled)
    (run,) = planned_runs(interpreted[2], 1)
    called = {id(fn): fn for s in _twin_segments(run) for fn, *_ in s.calls}
    compiled = {key: set(fn.overloads) for key, fn in called.items()}
    assert all(compiled.values())  # (every loop the segments call ran interpreted: the twins too)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("PE_SEGMENT_COMPILE_AFTER", "0")
    again = train(monkeypatch, "mlp", True, 1, (64,) * 5)
    (run,) = planned_runs(again[2], 1)
    assert all(s.fn is not None for s in _segments(run, 1))
    assert {key: set(fn.overloads) for key, fn in called.items()} == compiled
    assert_same(interpreted, again)


def test_structured_ops_launch_the_variant_their_meta_chose(monkeypatch):
    """A structured op (the activation table's, pe_cli/shapes/activation.py) is planned from the Meta its step
    decides: tanh_grad's loop launched in a segment, float32 tanh's vectorised loop (no launch form) a Python
    launch of its out-kernel; the same bits as op by op."""
    planned = train(monkeypatch, "mlp_tanh", True, 1)
    assert_same(planned, train(monkeypatch, "mlp_tanh", False, 1))
    (run,) = planned_runs(planned[2], 1)
    launched = {step.op.type: launches is not None for step, launches in zip(run.plan.steps, run.plan.launches)}
    assert launched["tanh_grad"] and not launched["tanh"]


def _serial(launch):
    """The loop a launch runs, or its serial loop where it runs the parallel twin (the same bits)."""
    return launch.fn if launch.serial is None else launch.serial[0]


def test_transformer_layer_launches_its_products_head_swaps_and_gradients(monkeypatch):
    """A Transformer encoder layer, planned: its attention's stacked products (matmul_v2, and matmul_grad's written
    straight into their outputs) launch the BLAS loop of the products kernels/cpu/matmul.py runs, its heads'
    split and join (transpose2 and its gradient, the "swap" variant) the swap loop, softmax and softmax_grad
    ("rows") their row loops (softmax's a Python launch where numpy's exp is not _numpy_expf's), layer_norm_grad ("rows") its loop between its sums' copies, the mean over the positions
    (reduce_mean's "mean_axis") and its gradient their loops; the bits of op by op."""
    from pe_cli.kernels.cpu import (
        _blas_loops,
        _norm_loops,
        _numpy_expf,
        _reduce_loops,
        _softmax_loops,
        _transpose_loops,
    )

    planned = train(monkeypatch, "transformer", True, 1)
    assert_same(planned, train(monkeypatch, "transformer", False, 1))
    (run,) = planned_runs(planned[2], 1)
    fns = {}
    for step, launches in zip(run.plan.steps, run.plan.launches):  # (a twin: its serial loop, the same bits)
        fns.setdefault(step.op.type, []).append(None if launches is None else [_serial(launch) for launch in launches])
    assert fns["matmul_v2"] == [[_blas_loops.gemm_batch]] * 2
    swapped_back = [_blas_loops.gemm_batch, _blas_loops.gemm_batch, _transpose_loops.swap_middle]  # (Y@GRAD)
    assert sorted(fns["matmul_grad"], key=len) == [[_blas_loops.gemm_batch] * 2, swapped_back]
    swap = [_transpose_loops.swap_middle]
    assert fns["transpose2"] == [swap] * 4 and fns["transpose2_grad"] == [swap] * 4
    # where op by op splits the heads' swaps over the device's threads (run_in_parts), so does the plan
    from pe_cli.kernels.cpu import runtime

    twins = {launch.fn for step, launches in zip(run.plan.steps, run.plan.launches) for launch in launches or ()}
    with runtime.planning():  # (the device's threads on a quiet machine, as when the step was planned)
        on_threads = runtime.loops.parallel_threads() > 1
    assert (_transpose_loops.swap_middle_parallel in twins) == on_threads
    assert fns["softmax_grad"] == [[_softmax_loops.softmax_rows_grad]]
    assert fns["softmax"] == ([[_softmax_loops.softmax_rows]] if _numpy_expf.same_as_numpy() else [None])
    sums = [_reduce_loops.copy] * 2  # (layer_norm_grad's float64 sums zeroed, then copied into its gradients)
    assert fns["layer_norm_grad"] == [[*sums, _norm_loops.layer_norm_grad, *sums]] * 2
    assert fns["reduce_mean"] == [[_reduce_loops.mean_axis]]  # (over the positions: numpy's order of adds)
    assert fns["reduce_mean_grad"] == [[_reduce_loops.spread_mean_axis]]


@pytest.mark.parametrize("model, busy", [("mlp", 0), ("transformer", 0), ("mlp", 10)])
def test_devices_tasks_on_their_threads(monkeypatch, model, busy):
    """After its calibrating runs, a stage runs each device's task on a thread of its own (here every
    stage with work on both devices, whatever the tasks' times and the threads' load): the bits of op
    by op. The Transformer's ops without launches (reshape2) run in the devices' tasks too, both
    devices' at once. Steps that find no core free for a second thread (the first ``busy`` here) run the
    stages in the caller and leave their trial on threads for later."""
    from pe_cli.executor import planned_parallel, step_plan
    from pe_cli.kernels.cpu import runtime

    calls = []
    monkeypatch.setattr(planned_parallel, "TRIAL_SECONDS", 0.0)
    monkeypatch.setattr(planned_parallel, "THREADS_WIN", float("inf"))
    monkeypatch.setattr(runtime, "run_threads", lambda devices: 1 if len(calls.append(0) or calls) <= busy else devices)
    steps = (32,) * (planned_parallel.CALIBRATED_AFTER + 4 + busy)
    planned = train(monkeypatch, model, True, 2, steps)
    assert_same(planned, train(monkeypatch, model, False, 2, steps))
    (run,) = planned_runs(planned[2], 2)
    shared = [stage for stage in run.stages if type(stage) is not list and sum(map(bool, stage.ids)) > 1]
    assert shared and all(stage.threaded for stage in shared) and run.runs == len(steps) - step_plan.PLAN_AFTER
    python_nodes = [stage for stage in shared if all(stage.nodes)]
    assert bool(python_nodes) == (model == "transformer")


@pytest.mark.parametrize("devices", [1, 2])
def test_fused_gemm_epilogue(monkeypatch, devices):
    """The MLP with each fc fused into fused_gemm_epilogue ops, planned: every op launched, the bits of op by op.
    The GEMM ops' launches are their out-kernels' (kernels/cpu/gemm.py), from the products their Meta decided:
    no launch form of theirs decides the split a second time."""

    gemm_ops = {"mul", "mul_grad", "fused_gemm_epilogue", "fused_gemm_epilogue_grad"}
    assert all(registry.get(t).structured.cpu.launches for t in gemm_ops)
    planned = train(monkeypatch, "mlp", True, devices, fused=True)
    assert_same(planned, train(monkeypatch, "mlp", False, devices, fused=True))
    (run,) = planned_runs(planned[2], devices)
    steps = run.plan.steps if devices == 1 else [s for p in run.plans for s in p.steps if hasattr(s, "op")]
    types = {s.op.type for s in steps}
    assert {"fused_gemm_epilogue", "fused_gemm_epilogue_grad"} <= types and "mul" not in types
    assert run.planned_ops == (len(run.plan.steps) if devices == 1 else sum(n.is_op for n in run.sched.nodes))


@pytest.mark.parametrize("devices", [1, 2])
def test_sgd(monkeypatch, devices):
    planned = train(monkeypatch, "tiny", True, devices, optimizer="sgd")
    assert_same(planned, train(monkeypatch, "tiny", False, devices, optimizer="sgd"))
    (run,) = planned_runs(planned[2], devices)
    assert run.planned_ops == (len(run.plan.steps) if devices == 1 else sum(n.is_op for n in run.sched.nodes))


@pytest.mark.parametrize("optimizer", ["sgd", "momentum"])
def test_updates_launch_the_loop_their_meta_chose(monkeypatch, optimizer):
    """sgd and momentum are planned from the Meta their steps decide: their out-kernels' launch of the in-place
    loop over Param (and Velocity), the bits of op by op. No launch form of theirs decides it a second time."""
    from pe_cli.kernels.cpu import _pointwise_loops

    planned = train(monkeypatch, "tiny", True, 1, optimizer=optimizer)
    assert_same(planned, train(monkeypatch, "tiny", False, 1, optimizer=optimizer))
    (run,) = planned_runs(planned[2], 1)
    updates = [launches for step, launches in zip(run.plan.steps, run.plan.launches) if step.op.type == optimizer]
    assert updates and all(launches is not None for launches in updates)
    loop = getattr(_pointwise_loops, f"{optimizer}_in_place")
    assert all([launch.fn for launch in launches] == [loop] for launches in updates)
    assert all(
        launches[0].updates == tuple(step.op.input("Param")) + tuple(step.op.input("Velocity"))
        for step, launches in zip([s for s in run.plan.steps if s.op.type == optimizer], updates)
    )


def test_value_not_as_planned_runs_op_by_op(monkeypatch):
    """A parameter set from the host in another memory order (same shape and dtype): the segment
    reading it refuses it before it runs, the step ends op by op, and the next steps are planned
    anew."""

    def fortran_weight(step, scope, main):
        if step == 3:
            name = main.all_parameters()[0].name
            scope.set_array(name, np.asfortranarray(scope.get_array(name)), lent=False)  # (held by no one else)

    from pe_cli.executor import step_plan

    made, ran = [], []

    class Counted(step_plan.PlannedStep):
        def __init__(self, *args):
            super().__init__(*args)
            made.append(self)

        def run(self, values):
            ran.append(super().run(values))
            return ran[-1]

    monkeypatch.setattr(step_plan, "PlannedStep", Counted)
    batches = (32,) * 8
    planned = train(monkeypatch, "mlp", True, 1, batches, before=fortran_weight)
    assert_same(planned, train(monkeypatch, "mlp", False, 1, batches, before=fortran_weight))
    # steps 0-1 op by op, planned after step 1; step 2 planned; step 3 refused, op by op; steps 4-5
    # op by op, planned again after step 5; steps 6-7 planned
    assert (len(made), ran) == (2, [True, False, True, True])


def test_new_feed_signature_is_planned_again(monkeypatch):
    batches = (32, 32, 32, 16, 16, 16, 32)
    planned = train(monkeypatch, "mlp", True, 1, batches)
    assert_same(planned, train(monkeypatch, "mlp", False, 1, batches))
    runs = planned_runs(planned[2], 1)
    assert sorted(r.plan.table["x"][0][0] for r in runs) == [16, 32]


@pytest.mark.parametrize("devices", [1, 2])
def test_lenet_convolutions_launch_their_per_sample_loops(monkeypatch, devices):
    """LeNet-5 planned: every op launched, its pools (max and avg, their gradients) and its convolutions and their
    gradients (the "per_sample" variant; 5x5 at stride 1: the wide columns' loops, kernels/cpu/_wide_loops.py, the
    filter gradient's runs zeroed and summed in order around its loop); the bits of op by op."""
    from pe_cli.kernels.cpu import _conv_loops, _wide_loops

    one_thread_a_device(monkeypatch)
    batches = (8,) * STEPS
    planned = train(monkeypatch, "lenet", True, devices, batches)
    assert_same(planned, train(monkeypatch, "lenet", False, devices, batches))
    (run,) = planned_runs(planned[2], devices)
    plan = run.plan if devices == 1 else run.plans[0]
    fns = {}
    for step, launches in zip(plan.steps, plan.launches):
        if hasattr(step, "op"):
            fns.setdefault(step.op.type, []).append(None if launches is None else [launch.fn for launch in launches])
    assert None not in fns["pool2d"] + fns["pool2d_grad"]
    names = ("forward", "grad_filter", "grad_input")
    wide = {name: {getattr(_wide_loops, name), getattr(_wide_loops, name + "_parallel")} for name in names}
    assert len(fns["conv2d"]) == 2 and all(len(fn) == 1 and fn[0] in wide["forward"] for fn in fns["conv2d"])
    filter_grad = [_conv_loops.zero_runs, "grad_filter", _conv_loops.sum_runs]
    named = [[next((k for k, v in wide.items() if f in v), f) for f in fn] for fn in fns["conv2d_grad"]]
    assert sorted(named, key=len) == [filter_grad, ["grad_input", *filter_grad]]  # (the first's Input is fed)


@pytest.mark.parametrize("devices", [1, 2])
def test_accuracy_and_its_top_k_are_launched(monkeypatch, devices):
    """An MLP fetching its accuracy (fluid.layers.accuracy: top_k with k = 1, then accuracy), as every classifier
    config does, planned: every op launched, top_k the loop of its "argmax" variant, the losses and accuracies of
    op by op, bit for bit."""
    from pe_cli.kernels.cpu import _metric_loops, _top_k_loops

    def run(planned):
        monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 7
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            x, label = fluid.layers.data("x", [784]), fluid.layers.data("label", [1], dtype="int64")
            h = fluid.layers.fc(fluid.layers.fc(x, 64, act="relu"), 10)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(h, label))
            acc = fluid.layers.accuracy(fluid.layers.softmax(h), label)
            fluid.optimizer.Momentum(0.01, momentum=0.9).minimize(loss)
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        program = main
        if devices > 1:
            places = [fluid.CPUPlace()] * devices
            program = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=places)
        fetched = [exe.run(program, feed=feed("mlp", 32, i), fetch_list=[loss, acc], scope=scope) for i in range(STEPS)]
        return [[v.tobytes() for v in step] for step in fetched], (exe if devices == 1 else program._engine), main

    planned, owner, main = run(True)
    assert planned == run(False)[0]
    (plan,) = planned_runs(owner, devices)
    if devices == 1:
        assert plan.planned_ops == len(main.global_block().ops)
        steps = plan.plan
    else:
        assert plan.planned_ops == sum(1 for node in plan.sched.nodes if node.is_op)
        steps = plan.plans[0]
    fns = {
        s.op.type: [launch.fn for launch in launches]
        for s, launches in zip(steps.steps, steps.launches)
        if hasattr(s, "op")
    }
    assert fns["top_k"] == [_top_k_loops.top_1_rows] and fns["accuracy"] == [_metric_loops.accuracy_counts]


@pytest.mark.parametrize("fuse_bn_act", [False, True])
@pytest.mark.parametrize("devices", [1, 2])
def test_batch_norm_in_training_is_launched(monkeypatch, devices, fuse_bn_act):
    """A CNN with batch norm (conv -> batch_norm + relu -> pool, twice) planned: every op launched, batch_norm and
    its gradient (or, fused by fuse_bn_act_ops, fused_batch_norm_act and its gradient) the numba loops their
    "loops" variant runs op by op, the running mean and variance updated in place inside the segment; the
    losses, parameters and running statistics of op by op, bit for bit."""
    from pe_cli.kernels.cpu import _norm_loops

    one_thread_a_device(monkeypatch)
    batches, options = (8,) * STEPS, {"fuse_bn_act": fuse_bn_act}
    planned = train(monkeypatch, "cnn_bn", True, devices, batches, **options)
    unplanned = train(monkeypatch, "cnn_bn", False, devices, batches, **options)
    assert_same(planned, unplanned)
    assert any("batch_norm" in name and name.endswith(".w_1") for name in planned[1])  # (the running mean)
    (run,) = planned_runs(planned[2], devices)
    plan = run.plan if devices == 1 else run.plans[0]
    norm = "fused_batch_norm_act" if fuse_bn_act else "batch_norm"
    fns = {}
    for step, launches in zip(plan.steps, plan.launches):
        if hasattr(step, "op"):
            assert launches is not None, f"{step.op.type}: a Python launch"
            fns.setdefault(step.op.type, []).append([launch.fn for launch in launches if launch.fn is not None])
    forward = {_norm_loops.bn_forward, _norm_loops.bn_forward_parallel}
    assert [(fn[0] in forward, fn[1:]) for fn in fns[norm]] == [(True, [_norm_loops.bn_train_outputs])] * 2
    grads = fns[norm + "_grad"]
    assert len(grads) == 2 and all(fn[0] in (_norm_loops.bn_grad, _norm_loops.bn_grad_parallel) for fn in grads)


@pytest.mark.parametrize("devices", [1, 2])
def test_dropout_in_training_is_launched_with_its_draws(monkeypatch, devices):
    """An MLP with dropout in training planned: every op launched, each dropout's float32 uniforms drawn from its
    op's Generator before its segment runs, then _dropout_loops.kept_times; the losses and parameters of op by op,
    bit for bit, over steps whose masks differ (a Generator of the default generator's, and a seed fixed)."""
    from pe_cli.framework import default_generator
    from pe_cli.kernels.cpu import _dropout_loops

    def seeded(step, scope, main):
        if step == 0:  # (before the executor makes each op's Generator)
            default_generator.manual_seed(11)

    planned = train(monkeypatch, "mlp_dropout", True, devices, before=seeded)
    unplanned = train(monkeypatch, "mlp_dropout", False, devices, before=seeded)
    assert_same(planned, unplanned)
    (run,) = planned_runs(planned[2], devices)
    plan = run.plan if devices == 1 else run.plans[0]
    ops = [(step.op.type, launches) for step, launches in zip(plan.steps, plan.launches) if hasattr(step, "op")]
    assert [kind for kind, launches in ops if launches is None] == []  # (every op launched)
    fns = [[launch.fn for launch in launches] for kind, launches in ops if kind == "dropout"]
    assert fns == [[_dropout_loops.kept_times]] * 2


@pytest.mark.parametrize("implementation", ["upscale_in_train", "downgrade_in_infer"])
def test_a_network_cloned_for_test_is_launched(monkeypatch, implementation):
    """A CNN with batch norm and dropout cloned for test (is_test: batch_norm by its running statistics; dropout's
    Out is X, or X times 1 - p, no Mask written) planned: every op launched, op by op's outputs bit for bit."""
    from pe_cli.kernels.cpu import _dropout_loops, _norm_loops, _reduce_loops

    def evaluate(planned):
        monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 7
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            h = fluid.layers.conv2d(fluid.layers.data("x", [1, 28, 28]), num_filters=4, filter_size=5, padding=2)
            h = fluid.layers.pool2d(fluid.layers.batch_norm(h, act="relu"), pool_size=2, pool_stride=2)
            h = fluid.layers.dropout(fluid.layers.fc(h, 32, act="relu"), 0.3, dropout_implementation=implementation)
            out = fluid.layers.softmax(fluid.layers.fc(h, 10))
        test = main.clone(for_test=True)
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        feeds = [{"x": feed("lenet", 8, i)["x"]} for i in range(STEPS)]
        return [exe.run(test, feed=f, fetch_list=[out], scope=scope)[0] for f in feeds], exe

    one_thread_a_device(monkeypatch)
    planned, exe = evaluate(True)
    unplanned, _ = evaluate(False)
    assert all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(planned, unplanned))
    (run,) = planned_runs(exe, 1)
    ops = [(step.op.type, launches) for step, launches in zip(run.plan.steps, run.plan.launches)]
    assert [kind for kind, launches in ops if launches is None] == []  # (every op launched)
    fns = {kind: [launch.fn for launch in launches] for kind, launches in ops if kind in ("dropout", "batch_norm")}
    dropout = _reduce_loops.copy if implementation == "upscale_in_train" else _dropout_loops.times
    assert fns == {"dropout": [dropout], "batch_norm": [_norm_loops.bn_running]}


def test_op_without_launch_form_runs_between_segments(monkeypatch):
    planned = train(monkeypatch, "mlp", True, 1, extra_op=True)
    assert_same(planned, train(monkeypatch, "mlp", False, 1, extra_op=True))
    (run,) = planned_runs(planned[2], 1)
    python = [run.plan.steps[e].op.type for e in run.entries if type(e) is int]
    assert python == ["clip", "clip_grad"]  # the clip and its gradient
    assert sum(1 for e in run.entries if type(e) is not int) == 3  # segments cut before and after each


@pytest.mark.parametrize("devices", [1, 2])
def test_bad_label_refused_as_op_by_op(monkeypatch, devices):
    monkeypatch.setenv("PE_PLANNED_STEP", "1")
    main, startup, loss = build("mlp")
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    program = main
    if devices > 1:
        places = [fluid.CPUPlace()] * devices
        program = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=places)
    for i in range(2):
        exe.run(program, feed=feed("mlp", 32, i), fetch_list=[loss], scope=scope)
    bad = feed("mlp", 32, 9)
    bad["label"][5, 0] = 10
    with pytest.raises(PeError, match=r"Label holds 10 at row 5, outside the 10 classes"):
        exe.run(program, feed=bad, fetch_list=[loss], scope=scope)


def test_numpy_forms_give_the_loops_bits():
    """The numpy forms mean, mean_grad and the outer product run while their loops compile (a first
    run on a machine) give the bits of the loops a planned step launches."""
    from pe_cli.kernels.cpu import _blas_loops, _reduce_loops, gemm, reduction

    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float64):
        for n in (1, 7, 8, 100, 128, 129, 1000, 5000, 100_000):
            x = (rng.standard_normal(n) * 10).astype(dtype)
            a, b = np.empty(1, dtype), np.empty(1, dtype)
            _reduce_loops.mean(x, a)
            reduction._mean_numpy(x, b)
            assert a.tobytes() == b.tobytes(), (dtype, n)
            da, db = np.empty(n, dtype), np.empty(n, dtype)
            _reduce_loops.mean_grad(a, da)
            reduction._mean_grad_numpy(a, db)
            assert da.tobytes() == db.tobytes(), (dtype, n)
        u, v = rng.standard_normal(37).astype(dtype), rng.standard_normal(11).astype(dtype)
        c, d = np.empty((37, 11), dtype), np.empty((37, 11), dtype)
        _blas_loops.outer(u, v, c)
        gemm._outer_numpy(u, v, d)
        assert c.tobytes() == d.tobytes()


def _softmax_ce_run(monkeypatch, planned):
    """Three softmax_with_cross_entropy ops and their gradients, each a variant its meta rule chooses: float32
    [8, 10] logits (its one loop), [8, 5, 3] along axis 1 (a loop over the values moved last: not over them as
    they lie) and float64 [4, 300] (numpy's exp between two loops): (fetched values, executor)."""
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        given = [("a", [10], "float32", [1], -1), ("b", [5, 3], "float32", [1, 3], 1), ("c", [300], "float64", [1], -1)]
        losses = []
        for name, shape, dtype, label_shape, axis in given:
            x = fluid.layers.data(name, shape, dtype=dtype)
            x.stop_gradient = False
            label = fluid.layers.data(name + "_label", label_shape, dtype="int64")
            loss = fluid.layers.softmax_with_cross_entropy(x, label, axis=axis)
            losses.append(fluid.layers.cast(fluid.layers.mean(loss), "float32"))
        total = fluid.layers.sums(losses)
        grads = fluid.gradients(total, [main.global_block().var(n) for n, *_ in given])
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    rng, fetched = np.random.default_rng(4), []
    for _ in range(3):
        feeds = {}
        for (name, shape, dtype, label_shape, axis), rows in zip(given, (8, 8, 4)):
            feeds[name] = rng.standard_normal((rows, *shape)).astype(dtype)
            feeds[name + "_label"] = rng.integers(0, shape[axis], (rows, *label_shape)).astype(np.int64)
        fetched.append(exe.run(main, feed=feeds, fetch_list=[total, *grads], scope=scope))
    return fetched, exe


def test_softmax_with_cross_entropy_launches_the_variant_its_meta_chose(monkeypatch):
    """softmax_with_cross_entropy and its gradient are planned from the Meta their steps decide: the loops over
    last-axis float32 values launched in a segment, the axis-1 op and the float64 wide form Python launches of
    their kernels; every value the bits of op by op. No launch form of theirs decides the loop a second time."""

    planned, exe = _softmax_ce_run(monkeypatch, True)
    unplanned, _ = _softmax_ce_run(monkeypatch, False)
    for a, b in zip(planned, unplanned):
        assert all(x.dtype == y.dtype and x.tobytes() == y.tobytes() for x, y in zip(a, b))
    (run,) = planned_runs(exe, 1)
    launched = [  # (op type, the feed it reads: a, b or c, launched?)
        (step.op.type, step.op.input_arg_names[0][0], launches is not None)
        for step, launches in zip(run.plan.steps, run.plan.launches)
        if step.op.type.startswith("softmax_with_cross_entropy")
    ]
    assert sorted(launched) == [
        ("softmax_with_cross_entropy", "a", True),
        ("softmax_with_cross_entropy", "b", False),
        ("softmax_with_cross_entropy", "c", False),
        ("softmax_with_cross_entropy_grad", "a", True),
        ("softmax_with_cross_entropy_grad", "b", False),
        ("softmax_with_cross_entropy_grad", "c", True),
    ]


def test_mean_and_fill_constant_launch_from_their_out_kernels(monkeypatch):
    """mean, mean_grad and fill_constant (the loss's gradient seed) have no launch form of their own: a planned
    step launches the loops their out-kernels name for the Meta their steps decided (fill_constant's value
    computed once, when planned), every value the bits of op by op."""

    planned = train(monkeypatch, "tiny", True, 1)
    assert_same(planned, train(monkeypatch, "tiny", False, 1))
    (run,) = planned_runs(planned[2], 1)
    launched = {step.op.type: launches for step, launches in zip(run.plan.steps, run.plan.launches)}
    assert {t: launched[t] is not None for t in ("mean", "mean_grad", "fill_constant")} == dict.fromkeys(
        ("mean", "mean_grad", "fill_constant"), True
    )


def test_bias_adds_launch_the_variant_their_meta_chose(monkeypatch):
    """The fc layers' bias adds and their gradients are planned from the Meta their steps decide (the bias
    add's loop, the bias gradient's sum with X@GRAD the buffer of Out@GRAD), no launch form of their own
    deciding the loop a second time; the same bits as op by op."""

    planned = train(monkeypatch, "mlp", True, 1)
    assert_same(planned, train(monkeypatch, "mlp", False, 1))
    (run,) = planned_runs(planned[2], 1)
    launched = [
        (step.op.type, [launch.fn.__name__ if launch.fn else dict(launch.aliases) for launch in launches])
        for step, launches in zip(run.plan.steps, run.plan.launches)
        if step.op.type.startswith("elementwise_add")
    ]
    grads = [(op, names) for op, names in launched if op == "elementwise_add_grad"]
    assert [op for op, _ in launched].count("elementwise_add") == 3 and len(grads) == 3
    assert all(names == ["add_mid"] for op, names in launched if op == "elementwise_add")
    for step, launches in zip(run.plan.steps, run.plan.launches):
        if step.op.type == "elementwise_add_grad":
            dx, dout = step.op.outputs["X@GRAD"][0], step.op.inputs["Out@GRAD"][0]
            assert launches[0].aliases == {dx: dout} and launches[1].fn.__name__ == "sum_outer"


def small_run(monkeypatch, planned, hidden):
    """x [16, 13] -> ``hidden(x)`` -> fc -> mean, SGD, three steps, planned or op by op: (losses and parameters,
    executor)."""
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        h = hidden(fluid.layers.data("x", [13]))
        loss = fluid.layers.mean(fluid.layers.fc(h, 4))
        fluid.optimizer.SGD(0.01).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    rng, fetched = np.random.default_rng(5), []
    for _ in range(3):
        feed = {"x": rng.standard_normal((16, 13)).astype(np.float32)}
        fetched.append(exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0])
    fetched += [np.array(scope.get_array(p.name)) for p in main.all_parameters()]
    return fetched, exe


def _residual(x):
    """fc -> r, fc(r) + r: a residual add of one shape."""
    r = fluid.layers.fc(x, 13, act="relu")
    return fluid.layers.elementwise_add(fluid.layers.fc(r, 13), r)


def test_a_residual_add_and_its_gradient_are_launched(monkeypatch):
    """elementwise_add of X and Y of one shape is launched in a segment (its "same" variant: add_mid over the
    values as [1, size, 1], numpy's bits), its gradient as two aliases of Out@GRAD; the same bits as op by op."""
    planned, exe = small_run(monkeypatch, True, _residual)
    unplanned, _ = small_run(monkeypatch, False, _residual)
    assert all(a.dtype == b.dtype and a.tobytes() == b.tobytes() for a, b in zip(planned, unplanned))
    (run,) = planned_runs(exe, 1)
    steps = {
        step.op.type: (step, launches)
        for step, launches in zip(run.plan.steps, run.plan.launches)
        if step.op.type.startswith("elementwise_add") and not step.op.block.vars[step.op.inputs["Y"][0]].persistable
    }
    step, launches = steps["elementwise_add"]
    assert [launch.fn.__name__ for launch in launches] == ["add_mid"]
    step, launches = steps["elementwise_add_grad"]
    dout = step.op.inputs["Out@GRAD"][0]
    assert [launch.aliases for launch in launches] == [{n: dout for n in step.op.output_arg_names}]


def test_only_structured_ops_are_planned_from_their_meta():
    """A planned step decides nothing of its own: no launch forms beside the kernels, no second shape inference
    (issue 95: launch_forms.py, gemm_launch_forms.py and step_plan's inference context retired); every op with
    launches is a structured op whose out-kernel gives them for its Meta."""
    import importlib.util

    from pe_cli.executor import step_plan

    assert importlib.util.find_spec("pe_cli.kernels.cpu.launch_forms") is None
    assert importlib.util.find_spec("pe_cli.kernels.cpu.gemm_launch_forms") is None
    assert not any(isinstance(v, type) and issubclass(v, registry.InferContext) for v in vars(step_plan).values())
    launching = [t for t in registry.all_op_types() if getattr(registry.get(t).structured, "cpu", None) is not None]
    launching = [t for t in launching if getattr(registry.get(t).structured.cpu, "launches", None) is not None]
    assert {"mul", "elementwise_add", "sgd", "momentum", "mean", "fill_constant", "pool2d", "relu"} <= set(launching)
    assert {
        "batch_norm",
        "batch_norm_grad",
        "fused_batch_norm_act",
        "fused_batch_norm_act_grad",
        "dropout",
        "dropout_grad",
        "top_k",
        "accuracy",
    } <= set(launching)
    assert len(launching) >= LAUNCHING_AT_LEAST, f"{len(launching)} op types have launches"


LAUNCHING_AT_LEAST = 205  # op types whose CPU out-kernel gives launches for some variant: rises as launches are added


def _weighted(x):
    """fc -> [16, 4, 13] values, fc -> [16, 4] weights (a softmax), the values scaled by their weights (axis 0: one
    weight a row of 13), flattened back: an attention's weighting."""
    values = fluid.layers.reshape(fluid.layers.fc(x, 4 * 13), [-1, 4, 13])
    weights = fluid.layers.softmax(fluid.layers.fc(x, 4))
    return fluid.layers.reshape(fluid.layers.elementwise_mul(values, weights, axis=0), [-1, 4 * 13])


def test_a_product_with_a_weight_a_row_launches_its_gradient(monkeypatch):
    """elementwise_mul's gradient where Y holds one value a row of X (its "rows" variant) is launched in a segment
    (mul_rows_grad: numpy's products and pairwise sums); the same bits as op by op."""
    planned, exe = small_run(monkeypatch, True, _weighted)
    unplanned, _ = small_run(monkeypatch, False, _weighted)
    assert all(a.dtype == b.dtype and a.tobytes() == b.tobytes() for a, b in zip(planned, unplanned))
    (run,) = planned_runs(exe, 1)
    (launches,) = [ls for step, ls in zip(run.plan.steps, run.plan.launches) if step.op.type == "elementwise_mul_grad"]
    assert [_serial(launch).__name__ for launch in launches] == ["mul_rows_grad"]


def _sequence_model():
    """Sequences fed with a LoD (X rows and their ids), an fc over both, a sum pool per sequence."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [13], lod_level=1)
        ids = fluid.layers.data("ids", [1], dtype="int64", lod_level=1)
        label = fluid.layers.data("label", [1], dtype="int64")
        rows = fluid.layers.concat([x, fluid.layers.embedding(ids, [50, 8])], axis=1)
        hidden = fluid.layers.fc(rows, 16, act="relu")
        halves = fluid.layers.split(hidden, 2, dim=1)  # (each keeps the LoD, as Fluid's split along dim 1)
        pooled = fluid.layers.sequence_pool(fluid.layers.concat(halves[::-1], axis=1), "sum")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(pooled, 10), label))
        fluid.optimizer.Momentum(0.01, momentum=0.9).minimize(loss)
    return main, startup, loss, hidden


def _train_sequences(monkeypatch, planned, devices, lengths=(3, 5, 2, 6)):
    """(losses with the hidden rows and their LoD per step, the executor or engine)."""
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup, loss, hidden = _sequence_model()
    scope, exe, place = fluid.Scope(), fluid.Executor(fluid.CPUPlace()), fluid.CPUPlace()
    exe.run(startup, scope=scope)
    program = main
    if devices > 1:
        program = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=[place] * devices)
    results, rows = [], sum(lengths)
    for step in range(STEPS + 1):
        rng = np.random.default_rng(step)
        feed = {
            "x": fluid.create_lod_tensor(rng.standard_normal((rows, 13)).astype(np.float32), [list(lengths)], place),
            "ids": fluid.create_lod_tensor(rng.integers(0, 50, (rows, 1)), [list(lengths)], place),
            "label": rng.integers(0, 10, (len(lengths), 1)),
        }
        got = exe.run(program, feed=feed, fetch_list=[loss, hidden], scope=scope, return_numpy=False)
        results.append((np.array(got[0]), np.array(got[1]), got[1].lod()))
    return results, (exe if devices == 1 else program._engine)


@pytest.mark.parametrize("devices", [1, 2])
def test_ops_over_sequences_are_launched_and_pass_their_lod(monkeypatch, devices):
    """An op that reads no LoD (mul, the bias add, relu, their gradients) over rows fed with one is launched in a
    segment, and its outputs take their inputs' LoD after it, by the op's rule (concat's joins them): the bits and LoDs
    of op by op (lookup_table's "gather" of a few ids and its dense gradient too). The ops that read or make a LoD
    (sequence_pool) stay Python."""
    planned, owner = _train_sequences(monkeypatch, True, devices)
    by_op, _ = _train_sequences(monkeypatch, False, devices)
    for (loss, hidden, lod), (loss0, hidden0, lod0) in zip(planned, by_op):
        assert np.array_equal(loss, loss0) and np.array_equal(hidden, hidden0)
        assert lod == lod0 == [[0, 3, 8, 10, 16]] if devices == 1 else lod == lod0
    (run,) = planned_runs(owner, devices)
    plan = run.plan if devices == 1 else run.plans[0]
    python = {step.op.type for step, launches in zip(plan.steps, plan.launches) if hasattr(step, "op") and not launches}
    assert python == {"sequence_pool", "sequence_pool_grad"}
    passed = {plan.steps[i].op.type for i in plan.lod_steps}
    assert {"split", "concat", "concat_grad", "mul", "elementwise_add", "relu", "relu_grad", "mul_grad"} <= passed
    assert {"lookup_table", "lookup_table_grad"} <= passed


def _train_lookups(monkeypatch, planned, ids_of, padding_idx=None):
    """(losses, looked-up rows, executor, parameters) over steps of the ids ``ids_of(step, rng)`` gives (300: the "rows"
    variant; 20: "gather"), the table trained by its dense gradient."""
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        ids = fluid.layers.data("ids", [1], dtype="int64")
        rows = fluid.layers.embedding(ids, [50, 8], padding_idx=padding_idx)
        loss = fluid.layers.mean(fluid.layers.fc(rows, 4))
        fluid.optimizer.SGD(0.1).minimize(loss)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    losses, looked_up = [], []
    for step in range(STEPS):
        got = exe.run(
            main, feed={"ids": ids_of(step, np.random.default_rng(step))}, fetch_list=[loss, rows], scope=scope
        )
        losses.append(got[0])
        looked_up.append(got[1])
    return losses, looked_up, exe, [np.array(scope.get_array(p.name)) for p in main.all_parameters()]


@pytest.mark.parametrize("count", [300, 20])
def test_lookups_are_launched_checked_and_padded(monkeypatch, count):
    """lookup_table's "rows" variant (300 ids) and "gather" (20) are launched: the ids checked, then the rows copied
    with padding_idx's zeroed; so is the dense gradient (the ids checked, then padding_idx's rows left out, the
    others added into zeros in order: np.add.at's bits); the bits of op by op, and an id outside the table
    refused by the one line op by op says."""

    def ids_of(step, rng):
        ids = rng.integers(0, 50, (count, 1))
        ids[step] = 3  # (padding_idx's)
        return ids

    planned = _train_lookups(monkeypatch, True, ids_of, padding_idx=3)
    by_op = _train_lookups(monkeypatch, False, ids_of, padding_idx=3)
    for a, b in zip(planned[0] + planned[1] + planned[3], by_op[0] + by_op[1] + by_op[3]):
        assert np.array_equal(a, b)  # (the losses, the rows looked up, the parameters: padding_idx's row too)
    padded = ids_of(STEPS - 1, np.random.default_rng(STEPS - 1)).reshape(-1) == 3
    assert padded.any() and not planned[1][-1][padded].any()
    (run,) = planned_runs(planned[2], 1)
    fns = {}
    for step, launches in zip(run.plan.steps, run.plan.launches):
        if step.op.type in ("lookup_table", "lookup_table_grad"):
            fns[step.op.type] = [launch.fn.py_func.__name__ for launch in launches]
    assert fns["lookup_table"][0] == "bad_id" and fns["lookup_table"][1] in ("lookup_rows", "lookup_rows_parallel")
    assert fns["lookup_table_grad"] == ["bad_id", "table_grad"]

    def bad_at_three(step, rng):
        ids = rng.integers(0, 50, (300, 1))
        ids[7] = 50 if step == 3 else ids[7]
        return ids

    for planned_step in (True, False):
        with pytest.raises(PeError, match=r"Ids hold 50, outside the table of 50 rows \(W \[50, 8\]\)"):
            _train_lookups(monkeypatch, planned_step, bad_at_three)


def test_joins_and_splits_are_launched(monkeypatch):
    """split, concat, stack, unstack, unbind and the gradients of concat, stack and unstack (middle axes) are launched:
    each part copied into or out of its block of columns; the bits of op by op."""
    from pe_cli import paddle
    from pe_cli.kernels.cpu import _joining_loops

    def joined(planned):
        monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 7
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            x = fluid.layers.data("x", [6, 4])
            parts = fluid.layers.split(x, [2, 4], dim=1)
            h = fluid.layers.concat([fluid.layers.fc(p, 5, num_flatten_dims=2, act="tanh") for p in parts], axis=1)
            stacked = fluid.layers.stack([h, fluid.layers.scale(h, 2.0)], axis=1)  # [8, 2, 6, 5]
            a, b = fluid.layers.unstack(stacked, axis=2)[::5]
            c, d = paddle.unbind(fluid.layers.scale(stacked, 3.0), axis=1)
            loss = fluid.layers.mean(fluid.layers.fc(fluid.layers.concat([a, b, c, d], axis=1), 3))
            fluid.optimizer.SGD(0.1).minimize(loss)
        scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
        exe.run(startup, scope=scope)
        got = []
        for step in range(STEPS):
            feed = {"x": np.random.default_rng(step).standard_normal((8, 6, 4)).astype(np.float32)}
            got += exe.run(main, feed=feed, fetch_list=[loss, h], scope=scope)
        return got, exe

    planned, exe = joined(True)
    for a, b in zip(planned, joined(False)[0]):
        assert np.array_equal(a, b)
    (run,) = planned_runs(exe, 1)
    fns = {}
    for step, launches in zip(run.plan.steps, run.plan.launches):
        if step.op.type in (
            "split",
            "concat",
            "concat_grad",
            "stack",
            "stack_grad",
            "unstack",
            "unstack_grad",
            "unbind",
        ):
            fns.setdefault(step.op.type, []).append([launch.fn for launch in launches])
    put, take = _joining_loops.put_columns, _joining_loops.take_columns
    assert fns == {
        "split": [[take, take]],
        "concat": [[put, put], [put] * 4],  # (x has no gradient: no concat of its parts')
        "concat_grad": [[take] * 4, [take, take]],
        "stack": [[put, put], [put, put]],  # (the second: unbind's gradient)
        "unstack": [[take] * 6],
        "unbind": [[take, take]],
        "unstack_grad": [[put] * 6],
        "stack_grad": [[take, take]],
    }
