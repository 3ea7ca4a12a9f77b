"""AsyncExecutor and DataFeedDesc (seed 004, issue 14): the seed's proto and calls, the MultiSlot
reader, Hogwild training from a file list, and one clear error for each kind of bad input."""

import re
from paths import REPO
import os
import subprocess
import sys

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.data.multislot import MultiSlotReader
from pe_cli.base.errors import PeError

SEED_PROTO = """\
name: "MultiSlotDataFeed"
batch_size: 2
multi_slot_desc {
    slots {
        name: "words"
        type: "uint64"
        is_dense: false
        is_used: true
    }
    slots {
        name: "label"
        type: "uint64"
        is_dense: false
        is_used: true
    }
}
"""

DENSE_PROTO = """\
name: "MultiSlotDataFeed"
batch_size: 16
multi_slot_desc {
  slots { name: "x" type: "float" is_dense: true is_used: true }
  slots { name: "unused" type: "uint64" }
  slots { name: "label" type: "uint64" is_dense: true is_used: true }
}
"""


def _write(path, text):
    path.write_text(text)
    return str(path)


# -- DataFeedDesc -----------------------------------------------------------------------------------


def test_the_seeds_data_feed_desc(tmp_path):
    feed = fluid.DataFeedDesc(_write(tmp_path / "data.proto", SEED_PROTO))
    assert feed.batch_size == 2 and feed.slots == [("words", "uint64", False, True), ("label", "uint64", False, True)]
    feed.set_batch_size(128)
    feed.set_dense_slots("label")  # one name as a string (the seed's call) ...
    feed.set_use_slots(["words"])  # ... or a list
    text = feed.desc()
    assert "batch_size: 128" in text and text.count("is_dense: true") == 1
    again = fluid.DataFeedDesc(_write(tmp_path / "again.proto", text))
    assert again.desc() == text and again.slots == feed.slots  # desc() loads back unchanged


@pytest.mark.parametrize(
    "text, message",
    [
        (
            'name: "x"\nmulti_slot_desc {\n  slots { name: "a" type: "uint64" colour: 1 }\n}\n',
            'bad.proto:3:36: Message type "pe.datafeed.Slot" has no field named "colour".',
        ),
        ("batch_size: two\n", "bad.proto:1:13: 'batch_size: two': Couldn't parse integer: two"),
        (
            'multi_slot_desc { slots { name: "a" } }\n',
            "bad.proto: missing required field multi_slot_desc.slots[0].type",
        ),
        (
            'multi_slot_desc { slots { name: "a" type: "int8" } }\n',
            "slot 'a' has type 'int8'; use uint64 (ids) or float",
        ),
        ("batch_size: 0\n", "batch_size must be >= 1, got 0"),
    ],
)
def test_a_bad_description_is_one_line_naming_the_place(tmp_path, text, message):
    path = _write(tmp_path / "bad.proto", text)
    with pytest.raises(PeError, match=re.escape(message)) as err:
        fluid.DataFeedDesc(path)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_unknown_slot_names_are_refused(tmp_path):
    feed = fluid.DataFeedDesc(_write(tmp_path / "data.proto", SEED_PROTO))
    with pytest.raises(PeError, match="has no slot 'wd'; its slots are words, label"):
        feed.set_use_slots("wd")


# -- the MultiSlot reader -------------------------------------------------------------------------------


def test_reader_makes_dense_arrays_and_lod_tensors(tmp_path):
    feed = fluid.DataFeedDesc(_write(tmp_path / "data.proto", SEED_PROTO))
    data = _write(tmp_path / "part-0", "3 5 6 7 1 1\n1 9 1 0\n\n2 4 4 1 1\n")
    batches = list(MultiSlotReader(feed).batches(data))
    assert len(batches) == 2  # batch_size 2: two lines, then the last one
    words, label = batches[0]["words"], batches[0]["label"]
    assert np.array(words).reshape(-1).tolist() == [5, 6, 7, 9] and words.recursive_sequence_lengths() == [[3, 1]]
    assert np.array(label).dtype == np.int64 and label.recursive_sequence_lengths() == [[1, 1]]
    feed.set_dense_slots("label")
    last = list(MultiSlotReader(feed).batches(data))[1]
    assert last["label"].shape == (1, 1) and last["label"].tolist() == [[1]]


@pytest.mark.parametrize(
    "line, message",
    [
        ("2 5 6\n", "part-0:2: slot 'label': the line ends before it"),
        ("x 5 1 1\n", "part-0:2: slot 'words': its count is not a positive integer"),
        ("3 5 6 1 1\n", "part-0:2: slot 'label': fewer values than its count"),
        ("0 1 1\n", "part-0:2: slot 'words': its count is not a positive integer"),
        ("1 5 1 1 9\n", "part-0:2: values after the last slot 'label'"),
        ("1 5 1 1.5\n", "part-0:2: slot 'label' (uint64): a value is not a number of that type"),
    ],
)
def test_a_malformed_line_names_file_line_and_slot(tmp_path, line, message):
    """The file parser (numba) and the in-memory one (Python) say the same."""
    feed = fluid.DataFeedDesc(_write(tmp_path / "data.proto", SEED_PROTO))
    data = _write(tmp_path / "part-0", "1 7 1 0\n" + line)
    with pytest.raises(PeError, match=re.escape(message)) as err:
        list(MultiSlotReader(feed).batches(data))
    assert message in str(err.value)
    lines = [(data, n, text) for n, text in enumerate(open(data).read().split("\n"), start=1)]
    with pytest.raises(PeError, match=re.escape(message)) as err:
        list(MultiSlotReader(feed).batches_of(lines))
    assert message in str(err.value)


# -- AsyncExecutor --------------------------------------------------------------------------------------


def _dataset(tmp_path, files=4, lines=64, seed=0):
    """Four-feature points whose class is which of two linear scores is larger; plus a held-out set."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=(4, 2))
    paths = []
    for f in range(files + 1):
        x = rng.normal(size=(lines, 4))
        y = (x @ w).argmax(axis=1)
        text = "".join(
            f"4 {' '.join(f'{v:.6f}' for v in row)} 2 {f} {i} 1 {label}\n" for i, (row, label) in enumerate(zip(x, y))
        )
        paths.append(_write(tmp_path / f"part-{f}", text))
    held = np.loadtxt(paths[-1])
    return paths[:-1], held[:, 1:5].astype(np.float32), held[:, -1:].astype(np.int64)


def _program():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [4])
        label = fluid.layers.data("label", [1], dtype="int64")
        logits = fluid.layers.fc(fluid.layers.fc(x, 16, act="relu"), 2)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        test = main.clone(for_test=True)
        fluid.optimizer.SGD(0.2).minimize(loss)
    return main, startup, test, loss


def _params(scope, program):
    return {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in program.global_block().all_parameters()}


def test_one_thread_equals_a_sequential_executor_bitwise(tmp_path):
    files, _, _ = _dataset(tmp_path)
    feed = fluid.DataFeedDesc(_write(tmp_path / "dense.proto", DENSE_PROTO))
    main, startup, _, loss = _program()
    exe = fluid.Executor(fluid.CPUPlace())
    hogwild = fluid.Scope()
    with fluid.scope_guard(hogwild):
        exe.run(startup)
        fluid.AsyncExecutor(fluid.CPUPlace()).run(main, feed, files, 1, [loss.name])
    sequential = fluid.Scope()
    exe.run(startup, scope=sequential)
    reader = MultiSlotReader(feed)
    for path in files:
        for batch in reader.batches(path):
            exe.run(main, feed=batch, fetch_list=[loss], scope=sequential)
    got, want = _params(hogwild, main), _params(sequential, main)
    assert got.keys() == want.keys()
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.parametrize("workers", ["processes", "threads"])
def test_two_threads_train_the_shared_parameters(tmp_path, capsys, monkeypatch, workers):
    """Hogwild on worker processes sharing the parameters' memory (the default on Linux) and on
    threads (PE_ASYNC_WORKERS=threads): the caller's parameters are trained, every batch's fetch is printed."""
    monkeypatch.setenv("PE_ASYNC_WORKERS", workers)
    files, x, y = _dataset(tmp_path, files=6)
    feed = fluid.DataFeedDesc(_write(tmp_path / "dense.proto", DENSE_PROTO))
    main, startup, test, loss = _program()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        before = float(exe.run(test, feed={"x": x, "label": y}, fetch_list=[loss.name])[0][0])
        for _ in range(3):
            fluid.AsyncExecutor().run(main, feed, files, 2, loss, debug=True)
        after = float(exe.run(test, feed={"x": x, "label": y}, fetch_list=[loss.name])[0][0])
    assert after < 0.6 * before, (before, after)
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 3 * 6 * 4  # every batch of every file, each pass
    # "thread T FILE batch K: loss=...": each batch of each file once a pass, by either worker
    # (a free worker takes the next file, so one may do them all on a loaded machine)
    seen = sorted((line.split()[2], line.split()[4]) for line in printed)
    assert seen == sorted((os.path.basename(f), f"{k}:") for f in files for k in range(4) for _ in range(3))
    assert {line.split()[1] for line in printed} <= {"0", "1"} and all(loss.name + "=" in line for line in printed)


@pytest.mark.parametrize("workers", ["processes", "threads"])
def test_each_step_starts_from_one_complete_update(tmp_path, capsys, monkeypatch, workers):
    """Two counters each step increments, the second after a pause: every step must read both in one
    consistent state (so they stay equal), or an optimizer could read one update's Moment1 with an
    older Moment2, and a Moment2 of 0 under a Moment1 that is not makes Adam step by lr * m1 /
    epsilon (the parameters of the CTR example went to NaN in 1 run in 6 that way)."""
    import time

    monkeypatch.setenv("PE_ASYNC_WORKERS", workers)
    files, _, _ = _dataset(tmp_path, files=4, lines=32)
    feed = fluid.DataFeedDesc(_write(tmp_path / "dense.proto", DENSE_PROTO))
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [4])
        fluid.layers.data("label", [1], dtype="int64")
        first, second = (
            fluid.layers.create_global_var([1], 0.0, "float32", persistable=True, name=n) for n in ("first", "second")
        )
        fluid.layers.increment(first, 1.0, in_place=True)
        paused = main.global_block().create_var(name="paused", shape=x.shape, dtype="float32")
        fluid.layers.py_func(lambda v: (time.sleep(0.002), v)[1], x, paused)
        fluid.layers.increment(second, 1.0, in_place=True)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        fluid.AsyncExecutor().run(main, feed, files, 2, [first.name, second.name], debug=True)
    pairs = [
        [float(v.split("=")[1]) for v in line.split(": ", 1)[1].split()]  # "first=3  second=3"
        for line in capsys.readouterr().out.splitlines()
    ]
    assert len(pairs) == 4 * 2 and all(a == b for a, b in pairs), pairs
    final = [float(np.array(scope.find_var(n).get_tensor())[0]) for n in ("first", "second")]
    if workers == "processes":  # each step's change is added to the shared values: none is lost
        assert final == [len(pairs)] * 2
    else:  # threads swap whole arrays: the last to land (maybe an earlier start's)
        assert final in pairs


def test_bad_runs_are_one_clear_error_and_leave_no_thread(tmp_path):
    import threading

    files, _, _ = _dataset(tmp_path, files=2)
    feed = fluid.DataFeedDesc(_write(tmp_path / "dense.proto", DENSE_PROTO))
    main, startup, _, loss = _program()
    ae = fluid.AsyncExecutor()
    with fluid.scope_guard(fluid.Scope()):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        with pytest.raises(PeError, match="the file list is empty"):
            ae.run(main, feed, [], 2, [loss.name])
        with pytest.raises(PeError, match="does not exist"):
            ae.run(main, feed, [str(tmp_path / "nope")], 2, [loss.name])
        broken = _write(tmp_path / "part-broken", "4 1 2 3 4 2 0 0 1 1\n4 1 2 3\n")
        with pytest.raises(PeError, match=r"part-broken:2: slot 'x': fewer values than its count"):
            ae.run(main, feed, files + [broken], 2, [loss.name])
        other = fluid.DataFeedDesc(_write(tmp_path / "other.proto", DENSE_PROTO.replace('"x"', '"features"')))
        with pytest.raises(PeError, match="slot 'features' is used but the program has no variable"):
            ae.run(main, other, files, 2, [loss.name])
    assert not [t for t in threading.enumerate() if t.name.startswith("pe-async")]
    assert not _child_processes()
    with pytest.raises(PeError, match="CPU only"):
        fluid.AsyncExecutor(fluid.CUDAPlace(0))


def _child_processes():
    """The pids of this process's children that are still there (running or unreaped), other than
    numba's compile helper (kernels/cpu/runtime/compile_helper.py), which a first run on a machine starts and which
    lives as long as this process."""
    from pe_cli.kernels.cpu.runtime import loops as _numba

    helper = _numba._compiled_later.helper.proc
    mine = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else []:
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.isdigit() and int(fields[1]) == os.getpid() and (helper is None or int(entry) != helper.pid):
            mine.append(int(entry))
    return mine


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Hogwild workers are processes on Linux only")
def test_a_worker_process_that_dies_is_one_clear_error(tmp_path, monkeypatch):
    """A worker killed mid-run (here by an op that ends its process) stops the run with one line
    naming the worker and how it ended; no worker is left behind and the caller's scope is intact."""
    monkeypatch.setenv("PE_ASYNC_WORKERS", "processes")
    files, _, _ = _dataset(tmp_path, files=4)
    feed = fluid.DataFeedDesc(_write(tmp_path / "dense.proto", DENSE_PROTO))
    main, startup, _, loss = _program()
    with fluid.program_guard(main, startup):
        fluid.layers.py_func(lambda x: os._exit(7), main.global_block().var("x"), None)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    before = _params(scope, main)
    with (
        fluid.scope_guard(scope),
        pytest.raises(
            PeError,
            match=r"Hogwild worker \d ended without finishing "
            r"\(exit status 7\)",
        ),
    ):
        fluid.AsyncExecutor().run(main, feed, files, 2, [loss.name])
    assert not _child_processes()
    for name, value in before.items():  # nothing ran a step to its end
        np.testing.assert_array_equal(_params(scope, main)[name], value)


# -- the 1.5+ dataset API ----------------------------------------------------------------------------


def _two_slot_files(tmp_path, files=3):
    """Like _dataset, without the unused slot: x (4 floats), label (1 id)."""
    paths, x, y = _dataset(tmp_path, files=files)
    out = []
    for p in paths:
        rows = [line.split() for line in open(p).read().splitlines()]
        out.append(_write(tmp_path / f"two-{len(out)}", "".join(" ".join(r[:5] + r[8:]) + "\n" for r in rows)))
    return out, x, y


@pytest.mark.parametrize("kind", ["QueueDataset", "InMemoryDataset"])
def test_train_from_dataset(tmp_path, kind, capsys):
    files, x, y = _two_slot_files(tmp_path)
    main, startup, test, loss = _program()
    block = main.global_block()
    dataset = fluid.DatasetFactory().create_dataset(kind)
    dataset.set_use_var([block.var("x"), block.var("label")])
    dataset.set_batch_size(16)
    dataset.set_thread(2)
    dataset.set_filelist(files)
    if kind == "InMemoryDataset":
        dataset.load_into_memory()
        assert dataset.get_memory_data_size() == 3 * 64
        dataset.local_shuffle()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        before = float(exe.run(test, feed={"x": x, "label": y}, fetch_list=[loss.name])[0][0])
        for _ in range(4):
            exe.train_from_dataset(main, dataset, fetch_list=[loss], fetch_info=["loss"], print_period=2)
        after = float(exe.run(test, feed={"x": x, "label": y}, fetch_list=[loss.name])[0][0])
    assert after < 0.6 * before, (before, after)
    printed = capsys.readouterr().out.splitlines()
    assert printed and all(" batch " in line and "loss=" in line for line in printed)


def test_one_thread_dataset_equals_the_sequential_executor(tmp_path):
    files, _, _ = _two_slot_files(tmp_path)
    main, startup, _, loss = _program()
    block = main.global_block()
    dataset = fluid.DatasetFactory().create_dataset("QueueDataset")
    dataset.set_use_var([block.var("x"), block.var("label")])
    dataset.set_batch_size(16)
    dataset.set_filelist(files)
    dataset.set_pipe_command("cat")  # a preprocessing command that changes nothing
    exe = fluid.Executor(fluid.CPUPlace())
    a, b = fluid.Scope(), fluid.Scope()
    exe.run(startup, scope=a)
    exe.train_from_dataset(main, dataset, scope=a, thread=1)
    exe.run(startup, scope=b)
    reader = MultiSlotReader(dataset)
    for batch in reader.batches_across(files):
        exe.run(main, feed=batch, fetch_list=[loss], scope=b)
    for name, value in _params(b, main).items():
        np.testing.assert_array_equal(_params(a, main)[name], value, err_msg=name)


def test_dataset_mistakes(tmp_path):
    files, _, _ = _two_slot_files(tmp_path, files=1)
    main, startup, _, loss = _program()
    exe = fluid.Executor(fluid.CPUPlace())
    factory = fluid.DatasetFactory()
    with pytest.raises(PeError, match="'ArrayDataset' is not one of QueueDataset, InMemoryDataset"):
        factory.create_dataset("ArrayDataset")
    queue = factory.create_dataset()
    queue.set_filelist(files)
    with pytest.raises(PeError, match="names no variable"):
        exe.train_from_dataset(main, queue)
    queue.set_use_var([main.global_block().var("x"), main.global_block().var("label")])
    with pytest.raises(NotImplementedError, match="does not support local shuffle"):  # as Fluid's
        queue.local_shuffle()
    with pytest.raises(NotImplementedError, match="does not support global shuffle"):
        queue.global_shuffle()
    memory = factory.create_dataset("InMemoryDataset")
    with pytest.raises(PeError, match="call load_into_memory"):
        memory.local_shuffle()
    queue.set_pipe_command("exit 3")
    with pytest.raises(PeError, match=r"pipe command 'exit 3' failed on .* \(exit status 3\)"):
        with fluid.scope_guard(fluid.Scope()):
            exe.run(startup)
            exe.train_from_dataset(main, queue)


def test_the_bundled_ctr_data_is_multislot_text_the_reader_takes(tmp_path):
    import runpy

    ctr = runpy.run_path(str(__import__("pathlib").Path(REPO) / "examples" / "ctr_data.py"), run_name="ctr_data")
    paths = ctr["write"](str(tmp_path), files=2, n=300, seed=3)
    again = ctr["write"](str(tmp_path / "again"), files=2, n=300, seed=3)
    assert [open(p).read() for p in paths] == [open(p).read() for p in again]  # deterministic
    feed = fluid.DataFeedDesc(str(tmp_path / "data.proto"))
    batches = list(MultiSlotReader(feed).batches(paths[0]))
    labels = np.concatenate([b["label"].reshape(-1) for b in batches])
    assert len(labels) == 300 and 0.2 < labels.mean() < 0.8
    lengths = [n for b in batches for n in b["ids"].recursive_sequence_lengths()[0]]
    assert min(lengths) >= 1 and max(lengths) <= 12 and batches[0]["dense"].shape == (32, 2)


def test_the_seeds_async_example_learns_with_one_and_two_threads(tmp_path):
    """examples/async_executor.py (embedding over the sparse ids, sequence_pool, fc): the held-out AUC
    rises from chance to near the data's own ceiling (~0.81) with 1 thread and with 2 workers (Hogwild)."""
    import runpy

    example = runpy.run_path(
        str(__import__("pathlib").Path(REPO) / "examples" / "async_executor.py"), run_name="async_example"
    )
    one = example["main"](threads=1, epochs=4, out_dir=str(tmp_path / "one"))
    two = example["main"](threads=2, epochs=4, out_dir=str(tmp_path / "two"))
    assert one[0] < 0.6 and two[0] < 0.6  # before training
    assert max(one) > 0.76 and max(two) > 0.76
    # Hogwild's interleaving is the machine's: over 4 passes the best AUCs of 2 worker processes
    # were 0.7854-0.7901 in 60 runs, against 0.7873 on 1 thread (the issue asks for 0.01)
    assert abs(max(one) - max(two)) < 0.01


QUEUE_ACROSS_FILES = """\
import paddle.fluid as fluid
open("a.txt", "w").write("".join(f"1 {v}\\n" for v in (1, 2, 3)))
open("b.txt", "w").write("".join(f"1 {v}\\n" for v in (4, 5, 6, 7)))
x = fluid.layers.data(name="x", shape=[1], dtype="float32")
n = fluid.layers.reduce_sum(fluid.layers.fill_constant_batch_size_like(x, [1, 1], "float32", 1.0))
s = fluid.layers.reduce_sum(x)
dataset = fluid.DatasetFactory().create_dataset("QueueDataset")
dataset.set_use_var([x])
dataset.set_batch_size(7)
dataset.set_thread(1)
dataset.set_filelist(["a.txt", "b.txt"])
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
exe.infer_from_dataset(fluid.default_main_program(), dataset, fetch_list=[n, s], fetch_info=["n", "s"],
                       print_period=1)
"""


def test_a_queue_dataset_batch_runs_on_across_a_files_end(tmp_path):
    """Fluid 1.8.5's DataFeed reads a thread's files as one stream: batch size 7 over files of 3 and 4
    lines is one batch of 7 (pe had made two, of 3 and 4: other steps, other losses, no error)."""
    (tmp_path / "prog.py").write_text(QUEUE_ACROSS_FILES)
    proc = subprocess.run(
        [sys.executable, "-m", "pe_cli", "fluid", "prog.py"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=REPO),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    batches = [line for line in proc.stdout.splitlines() if " batch " in line]
    assert len(batches) == 1 and batches[0].endswith("n=7  s=28"), proc.stdout
