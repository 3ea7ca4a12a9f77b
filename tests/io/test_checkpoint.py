"""Checkpoints: Fluid's tensor files (one per variable, or one combined file), pe's earlier .npy/.npz
format still read (never unpickled), atomic writes, checked loads, and exact resumption of training
(optimizer state and the learning-rate counter are persistable)."""

from paths import TESTS
import os

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.io import atomic as pio, checkpoint  # the atomic writes the crash tests break
from pe_cli.io.checkpoint import save_npy_persistables
from pe_cli.base.fluid_proto import parse_program_desc, read_lod_tensors, write_lod_tensor

RNG = np.random.default_rng(21)
BATCHES = [
    (RNG.normal(size=(8, 5)).astype("float32"), RNG.integers(0, 3, size=(8, 1)).astype("int64")) for _ in range(7)
]


def build(make_optimizer):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [5])
        label = fluid.layers.data("label", [1], dtype="int64")
        hidden = fluid.layers.fc(x, 6, act="relu")
        logits = fluid.layers.fc(hidden, 3)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        make_optimizer().minimize(loss)
    return main, startup, loss


def run(exe, main, loss, batches, scope):
    params = [p.name for p in main.all_parameters()]
    out = []
    for x, y in batches:
        out.append(exe.run(main, feed={"x": x, "label": y}, fetch_list=[loss] + params, scope=scope))
    return out


OPTIMIZERS = {
    "adam_exponential_decay": lambda: fluid.optimizer.Adam(learning_rate=fluid.layers.exponential_decay(0.05, 2, 0.7)),
    "momentum_piecewise": lambda: fluid.optimizer.Momentum(
        learning_rate=fluid.layers.piecewise_decay([3, 5], [0.1, 0.05, 0.01]), momentum=0.9, use_nesterov=True
    ),
    "rmsprop_centered_l2": lambda: fluid.optimizer.RMSProp(
        0.01, momentum=0.5, centered=True, regularization=fluid.regularizer.L2Decay(1e-3)
    ),
    "adagrad_warmup": lambda: fluid.optimizer.Adagrad(
        learning_rate=fluid.layers.linear_lr_warmup(0.1, 4, 0.0, 0.1), initial_accumulator_value=0.1
    ),
}


@pytest.mark.parametrize("filename", [None, "ckpt.npz"])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_resume_matches_straight_through_training_bitwise(tmp_path, name, filename):
    k = 3
    main, startup, loss = build(OPTIMIZERS[name])
    exe = fluid.Executor(fluid.CPUPlace())
    straight_scope = fluid.Scope()
    exe.run(startup, scope=straight_scope)
    straight = run(exe, main, loss, BATCHES, straight_scope)

    exe = fluid.Executor(fluid.CPUPlace())  # a fresh executor: the same seeded initial values
    first_scope = fluid.Scope()
    exe.run(startup, scope=first_scope)
    first = run(exe, main, loss, BATCHES[:k], first_scope)
    with fluid.scope_guard(first_scope):
        fluid.io.save_persistables(exe, str(tmp_path / "ckpt"), main, filename=filename)

    resumed_scope = fluid.Scope()  # fresh: no startup run, everything comes from the checkpoint
    with fluid.scope_guard(resumed_scope):
        fluid.io.load_persistables(exe, str(tmp_path / "ckpt"), main, filename=filename)
    resumed = first + run(exe, main, loss, BATCHES[k:], resumed_scope)
    for step, (a, b) in enumerate(zip(straight, resumed)):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y, err_msg=f"{name}: step {step + 1} differs after resuming")


def trained_scope(steps=2, make=OPTIMIZERS["adam_exponential_decay"]):
    main, startup, loss = build(make)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    run(exe, main, loss, BATCHES[:steps], scope)
    return exe, main, scope


def persistable_names(main):
    return sorted({v.name for v in main.list_vars() if v.persistable})


def _tensor(path):
    ((array, lod),) = read_lod_tensors(open(path, "rb").read(), str(path))
    return array


def test_directory_format_is_one_fluid_tensor_file_per_variable(tmp_path):
    exe, main, scope = trained_scope()
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(tmp_path / "ck"), main)
    names = persistable_names(main)
    assert "@LR_DECAY_COUNTER@" in names and any("moment1" in n for n in names)
    assert any(n.startswith("learning_rate") for n in names) or "@LR_DECAY_COUNTER@" in names
    assert sorted(os.listdir(tmp_path / "ck")) == names
    for n in names:
        saved = _tensor(tmp_path / "ck" / n)
        np.testing.assert_array_equal(saved, scope.get_array(n))
        assert saved.dtype == scope.get_array(n).dtype
    assert not [e for e in os.listdir(tmp_path) if e != "ck"]  # no temporary siblings left


def test_single_file_format_is_fluids_tensors_by_sorted_name(tmp_path):
    exe, main, scope = trained_scope()
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(tmp_path), main, filename="all_vars")
        in_memory = fluid.io.save_persistables(exe, None, main)  # Fluid's save_to_memory
    assert os.listdir(tmp_path) == ["all_vars"]
    data = (tmp_path / "all_vars").read_bytes()
    assert data == in_memory
    names = persistable_names(main)
    for n, (array, lod) in zip(names, read_lod_tensors(data, "all_vars")):
        np.testing.assert_array_equal(array, scope.get_array(n))
    fresh = fluid.Scope()
    with fluid.scope_guard(fresh):
        fluid.io.load_persistables(exe, None, main, filename=in_memory)
    for n in names:
        np.testing.assert_array_equal(fresh.get_array(n), scope.get_array(n))


def test_pe_run_directories_keep_one_npy_per_variable(tmp_path):
    exe, main, scope = trained_scope()
    with fluid.scope_guard(scope):
        save_npy_persistables(exe, str(tmp_path / "ck"), main)
    names = persistable_names(main)
    assert sorted(os.listdir(tmp_path / "ck")) == sorted(n + ".npy" for n in names)
    fresh = fluid.Scope()
    with fluid.scope_guard(fresh):
        fluid.io.load_persistables(exe, str(tmp_path / "ck"), main)
    for n in names:
        np.testing.assert_array_equal(fresh.get_array(n), scope.get_array(n))


def test_save_params_saves_only_parameters(tmp_path):
    exe, main, scope = trained_scope()
    with fluid.scope_guard(scope):
        fluid.io.save_params(exe, str(tmp_path / "p"), main)
    params = sorted(p.name for p in main.all_parameters())
    assert sorted(os.listdir(tmp_path / "p")) == params
    fresh = fluid.Scope()
    with fluid.scope_guard(fresh):
        fluid.io.load_params(exe, str(tmp_path / "p"), main)
    for p in main.all_parameters():
        np.testing.assert_array_equal(fresh.get_array(p.name), scope.get_array(p.name))
    assert fresh.get_array("@LR_DECAY_COUNTER@") is None


def test_save_vars_with_a_list_and_a_predicate(tmp_path):
    exe, main, scope = trained_scope()
    w = main.all_parameters()[0]
    with fluid.scope_guard(scope):
        fluid.io.save_vars(exe, str(tmp_path / "a"), main, vars=[w])
        fluid.io.save_vars(exe, str(tmp_path / "b"), main, predicate=lambda v: v.name == "@LR_DECAY_COUNTER@")
    assert os.listdir(tmp_path / "a") == [w.name]
    assert os.listdir(tmp_path / "b") == ["@LR_DECAY_COUNTER@"]
    assert _tensor(tmp_path / "b" / "@LR_DECAY_COUNTER@").tolist() == [1]


def test_saving_into_an_existing_directory_replaces_ours_and_keeps_other_files(tmp_path):
    exe, main, scope = trained_scope()
    ck = tmp_path / "ck"
    with fluid.scope_guard(scope):
        fluid.io.save_params(exe, str(ck), main)
    (ck / "notes.txt").write_text("mine")
    (ck / "sub").mkdir()
    (ck / "sub" / "f").write_text("x")
    w = main.all_parameters()[0].name
    scope.set_array(w, scope.get_array(w) + 1.0)
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(ck), main)
    assert (ck / "notes.txt").read_text() == "mine" and (ck / "sub" / "f").read_text() == "x"
    np.testing.assert_array_equal(_tensor(ck / w), scope.get_array(w))
    assert sorted(e for e in os.listdir(tmp_path)) == ["ck"]


def _fail_after(n, real):
    calls = {"n": 0}

    def fake(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] > n:
            raise OSError("disk full (simulated)")
        return real(*args, **kwargs)

    return fake


def test_crash_while_writing_a_directory_leaves_the_old_checkpoint(tmp_path, monkeypatch):
    exe, main, scope = trained_scope()
    ck = tmp_path / "ck"
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(ck), main)
    before = {f: (ck / f).read_bytes() for f in os.listdir(ck)}
    w = main.all_parameters()[0].name
    scope.set_array(w, scope.get_array(w) * 2.0)
    monkeypatch.setattr(pio, "_write_npy", _fail_after(3, pio._write_npy))
    with fluid.scope_guard(scope), pytest.raises(OSError, match="disk full"):
        fluid.io.save_persistables(exe, str(ck), main)
    assert {f: (ck / f).read_bytes() for f in os.listdir(ck)} == before
    assert os.listdir(tmp_path) == ["ck"]


def test_failed_swap_puts_the_old_directory_back(tmp_path, monkeypatch):
    exe, main, scope = trained_scope()
    ck = tmp_path / "ck"
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(ck), main)
    before = {f: (ck / f).read_bytes() for f in os.listdir(ck)}
    real_rename, calls = os.rename, []

    def rename(src, dst):  # the old directory moves aside, then moving the new one in fails
        calls.append(src)
        if len(calls) == 2:
            raise OSError("rename failed (simulated)")
        return real_rename(src, dst)

    monkeypatch.setattr(pio.os, "rename", rename)
    with (
        fluid.scope_guard(scope),
        pytest.raises(OSError, match=r"cannot write .*ck: rename failed \(simulated\); write elsewhere"),
    ):
        fluid.io.save_persistables(exe, str(ck), main)
    monkeypatch.undo()
    assert {f: (ck / f).read_bytes() for f in os.listdir(ck)} == before
    assert os.listdir(tmp_path) == ["ck"]


def test_interrupted_swap_is_named_when_loading(tmp_path):
    exe, main, scope = trained_scope()
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(tmp_path / "ck"), main)
    os.rename(tmp_path / "ck", tmp_path / ".ck.old-abc123")  # as a crash between the two renames leaves it
    with pytest.raises(PeError, match=r"interrupted and the previous checkpoint is at '.*\.ck\.old-abc123'"):
        fluid.io.load_persistables(exe, str(tmp_path / "ck"), main)


def test_crash_while_writing_a_single_file_leaves_the_old_file(tmp_path, monkeypatch):
    exe, main, scope = trained_scope()
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(tmp_path), main, filename="ck.npz")
    before = (tmp_path / "ck.npz").read_bytes()
    real = checkpoint.write_file

    def broken(f):
        f.write(b"\0\0\0\0 partial")
        raise OSError("disk full (simulated)")

    monkeypatch.setattr(checkpoint, "write_file", lambda path, write: real(path, broken))
    with fluid.scope_guard(scope), pytest.raises(OSError, match="disk full"):
        fluid.io.save_persistables(exe, str(tmp_path), main, filename="ck.npz")
    assert (tmp_path / "ck.npz").read_bytes() == before
    assert os.listdir(tmp_path) == ["ck.npz"]


def _saved(tmp_path, filename=None):
    exe, main, scope = trained_scope()
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(tmp_path / "ck"), main, filename=filename)
    return exe, main, scope


def _saved_npy(tmp_path):
    """A checkpoint in pe's earlier format (one .npy per variable), which loads still read."""
    exe, main, scope = trained_scope()
    with fluid.scope_guard(scope):
        save_npy_persistables(exe, str(tmp_path / "ck"), main)
    return exe, main, scope


def _load_fails(exe, main, tmp_path, match, filename=None):
    fresh = fluid.Scope()
    with fluid.scope_guard(fresh), pytest.raises(PeError, match=match) as info:
        fluid.io.load_persistables(exe, str(tmp_path / "ck"), main, filename=filename)
    assert "\n" not in str(info.value)
    assert not fresh.local_var_names()  # all or nothing
    return str(info.value)


def test_load_missing_variable(tmp_path):
    exe, main, _ = _saved(tmp_path)
    w = main.all_parameters()[0].name
    os.remove(tmp_path / "ck" / w)
    msg = _load_fails(exe, main, tmp_path, "the checkpoint has no variable")
    assert f"ck/{w}' is missing" in msg and f"'{w}'" in msg


def test_load_fluid_files_wrong_shape_and_truncated(tmp_path):
    exe, main, _ = _saved(tmp_path)
    w = main.all_parameters()[0].name
    (tmp_path / "ck" / w).write_bytes(write_lod_tensor(np.zeros((2, 2), "float32")))
    _load_fails(exe, main, tmp_path, rf"'{w}' in '.*ck/{w}' has shape \[2, 2\], the program expects \[5, 6\]")
    (tmp_path / "ck" / w).write_bytes(write_lod_tensor(np.zeros((5, 6), "float32"))[:-3])
    _load_fails(exe, main, tmp_path, "truncated LoDTensor")


def test_load_wrong_shape(tmp_path):
    exe, main, _ = _saved_npy(tmp_path)
    w = main.all_parameters()[0].name
    np.save(tmp_path / "ck" / (w + ".npy"), np.zeros((2, 2), dtype="float32"))
    msg = _load_fails(exe, main, tmp_path, r"has shape \[2, 2\], the program expects \[5, 6\]")
    assert w in msg and ".npy" in msg


def test_load_wrong_dtype(tmp_path):
    exe, main, _ = _saved_npy(tmp_path)
    w = main.all_parameters()[0].name
    np.save(tmp_path / "ck" / (w + ".npy"), np.zeros((5, 6), dtype="float64"))
    _load_fails(exe, main, tmp_path, f"'{w}' in '.*{w}.npy' is float64, the program expects float32")


def test_load_never_unpickles(tmp_path):
    exe, main, _ = _saved_npy(tmp_path)
    w = main.all_parameters()[0].name
    np.save(tmp_path / "ck" / (w + ".npy"), np.array([{"evil": 1}], dtype=object), allow_pickle=True)
    _load_fails(exe, main, tmp_path, f"variable '{w}': .*{w}.npy: the array holds Python objects \\(pe never unpickles")


def test_load_garbage_file(tmp_path):
    exe, main, _ = _saved_npy(tmp_path)
    w = main.all_parameters()[0].name
    (tmp_path / "ck" / (w + ".npy")).write_bytes(b"not numpy at all")
    _load_fails(exe, main, tmp_path, f"variable '{w}': .*{w}.npy: not a readable .npy array")


def test_load_npz_missing_and_wrong_shape(tmp_path):
    """pe wrote one .npz archive for save_vars(filename=...) before it wrote Fluid's combined file."""
    exe, main, scope = trained_scope()
    path = tmp_path / "ck" / "all.npz"
    path.parent.mkdir()
    arrays = {n: np.asarray(scope.get_array(n)) for n in persistable_names(main)}
    np.savez(path, **arrays)
    with fluid.scope_guard(fluid.Scope()):
        fluid.io.load_persistables(exe, str(tmp_path / "ck"), main, filename="all.npz")
    w = main.all_parameters()[0].name
    arrays.pop(w)
    np.savez(path, **arrays)
    _load_fails(exe, main, tmp_path, f"all.npz' has no variable '{w}'", filename="all.npz")
    arrays[w] = np.zeros(3, dtype="float32")
    np.savez(path, **arrays)
    _load_fails(exe, main, tmp_path, f"'{w}' in '.*all.npz' has shape \\[3\\]", filename="all.npz")
    (path).write_bytes(b"PKgarbage")
    _load_fails(exe, main, tmp_path, "is not a readable checkpoint", filename="all.npz")


def test_load_missing_directory(tmp_path):
    exe, main, _ = trained_scope()
    with pytest.raises(PeError, match="checkpoint directory '.*nowhere' does not exist"):
        fluid.io.load_persistables(exe, str(tmp_path / "nowhere"), main)


def test_save_before_startup_is_an_error(tmp_path):
    main, startup, _ = build(OPTIMIZERS["adam_exponential_decay"])
    with fluid.scope_guard(fluid.Scope()), pytest.raises(PeError, match="has no value in the scope"):
        fluid.io.save_persistables(fluid.Executor(), str(tmp_path / "ck"), main)
    assert not os.listdir(tmp_path)


def test_variable_names_with_slashes_are_files_in_subdirectories(tmp_path):
    """As Fluid's save op writes them (GRUCell/BasicGRUUnit_0.w_0); pe's earlier '%2F' escapes still load."""
    main = fluid.Program()
    block = main.global_block()
    block.create_var(name="a/b", shape=[2], dtype="float32", persistable=True)
    scope = fluid.Scope()
    scope.set_array("a/b", np.array([1.0, 2.0], dtype="float32"))
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(fluid.Executor(), str(tmp_path / "ck"), main)
    assert os.listdir(tmp_path / "ck") == ["a"] and os.listdir(tmp_path / "ck" / "a") == ["b"]
    with fluid.scope_guard(scope):
        save_npy_persistables(fluid.Executor(), str(tmp_path / "old"), main)
    assert os.listdir(tmp_path / "old") == ["a%2Fb.npy"]
    for ck in ("ck", "old"):
        fresh = fluid.Scope()
        with fluid.scope_guard(fresh):
            fluid.io.load_persistables(fluid.Executor(), str(tmp_path / ck), main)
        np.testing.assert_array_equal(fresh.get_array("a/b"), [1.0, 2.0])


def test_inference_model_round_trip(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [5])
        label = fluid.layers.data("label", [1], dtype="int64")
        hidden = fluid.layers.fc(x, 6, act="relu")
        logits = fluid.layers.fc(hidden, 3)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
        test_program = main.clone(for_test=True)
        fluid.optimizer.Adam(0.01).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    run(exe, main, loss, BATCHES[:2], scope)
    x_test = BATCHES[3][0]
    want = exe.run(test_program, feed={"x": x_test, "label": BATCHES[3][1]}, fetch_list=[logits], scope=scope)[0]
    with fluid.scope_guard(scope), fluid.unique_name.guard():  # the scale's name counts from 0 (as Fluid's)
        fluid.io.save_inference_model(str(tmp_path / "model"), ["x"], [logits], exe, main)
    files = sorted(os.listdir(tmp_path / "model"))  # Fluid's layout: only what inference needs
    assert files == ["__model__", "fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
    with open(tmp_path / "model" / "__model__", "rb") as f:  # Fluid's protobuf, feed and fetch ops included
        ops = [op.type for op in parse_program_desc(f.read(), "__model__").blocks[0].ops]
    assert ops[0] == "feed" and ops[-1] == "fetch" and "mul" in ops
    for name in files[1:]:  # Fluid's LoDTensor files
        with open(tmp_path / "model" / name, "rb") as f:
            ((array, lod),) = read_lod_tensors(f.read(), name)
        np.testing.assert_array_equal(array, scope.get_array(name))

    fresh = fluid.Scope()
    with fluid.scope_guard(fresh):
        program, feeds, fetches = fluid.io.load_inference_model(str(tmp_path / "model"), exe)
    # as Fluid's: the target is scaled by 1.0 into save_infer_model/scale_0 (which main now holds too)
    assert feeds == ["x"] and [v.name for v in fetches] == ["save_infer_model/scale_0.tmp_0"]
    assert main.global_block().ops[-1].type == "scale"
    assert {op.type for op in program.global_block().ops} <= {"mul", "elementwise_add", "relu", "scale"}
    got = exe.run(program, feed={"x": x_test}, fetch_list=fetches, scope=fresh)[0]
    np.testing.assert_array_equal(got, want)


def test_inference_model_single_params_file(tmp_path):
    exe, main, scope = trained_scope()
    logits = [op for op in main.global_block().ops if op.type == "softmax_with_cross_entropy"][0].input("Logits")[0]
    with fluid.scope_guard(scope):
        fluid.io.save_inference_model(
            str(tmp_path),
            ["x"],
            [main.global_block().var(logits)],
            exe,
            main,
            model_filename="model.json",
            params_filename="params.npz",
        )
    assert sorted(os.listdir(tmp_path)) == ["model.json", "params.npz"]
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(
            str(tmp_path), exe, model_filename="model.json", params_filename="params.npz"
        )
    assert fetches[0].name.startswith("save_infer_model/scale_0.tmp_")  # numbered as Fluid numbers names
    assert program.global_block().var(fetches[0].name).op.input("X") == [logits]


def test_fluid_io_names():
    for name in (
        "save_vars",
        "load_vars",
        "save_params",
        "load_params",
        "save_persistables",
        "load_persistables",
        "save_inference_model",
        "load_inference_model",
    ):
        assert callable(getattr(fluid.io, name))


def test_an_inference_model_pe_saved_as_json_still_loads():
    """Before pe wrote Fluid's formats it saved a JSON ``__model__`` and ``.npy`` parameters;
    tests/data/pe_json_model is one such model (a StaticRNN feeding an fc, so a sub-block too),
    written by that version with its output on its input (tests/data/pe_json_model_io.npz)."""
    data = os.path.join(TESTS, "data")
    io = np.load(os.path.join(data, "pe_json_model_io.npz"))
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        program, feeds, fetches = fluid.io.load_inference_model(os.path.join(data, "pe_json_model"), exe)
        assert len(program.blocks) == 2 and feeds == ["x"]
        got = exe.run(program, feed={"x": io["x"]}, fetch_list=fetches)[0]
    # to float32 rounding: the kernels' last bits may change between versions (float32 tanh did)
    np.testing.assert_allclose(got, io["out"], rtol=1e-5, atol=1e-6)


def test_load_refuses_a_fifo_unread(tmp_path):
    exe, main, _ = _saved_npy(tmp_path)
    w = main.all_parameters()[0].name
    os.remove(tmp_path / "ck" / (w + ".npy"))
    os.mkfifo(tmp_path / "ck" / (w + ".npy"))  # opened, it would block for ever
    _load_fails(exe, main, tmp_path, f"variable '{w}': .*{w}.npy is a FIFO, not a regular file")
