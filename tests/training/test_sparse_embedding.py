"""Row-sparse embedding gradients (issue 12 item 3): embedding(is_sparse=True) writes a SelectedRows
gradient, and a model trained with it ends with the parameters the dense gradient gives under SGD,
Momentum and Adagrad (not Adam: Fluid 1.8.5's sparse Adam bias-corrects with the next step's powers,
tests/fluid/test_fluid_oracle_ops.py); lazy Adam leaves untouched rows' moments alone."""

import weakref

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import FeedError, ShapeError
from pe_cli.base.selected_rows import SelectedRows

VOCAB, DIM, CLASSES = 60, 8, 4


def build(sparse, make_opt, padding_idx=3):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        ids = fluid.layers.data("ids", [1], dtype="int64", lod_level=1)
        label = fluid.layers.data("label", [1], dtype="int64")
        emb = fluid.layers.embedding(
            ids, size=[VOCAB, DIM], is_sparse=sparse, padding_idx=padding_idx, param_attr="emb"
        )
        pooled = fluid.layers.sequence_pool(emb, "sum")
        hidden = fluid.layers.fc(pooled, 16, act="tanh")
        pred = fluid.layers.fc(hidden, CLASSES, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, label))
        make_opt().minimize(loss)
    return main, startup, loss


def batches(n=6, seqs=8, seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        lens = rng.integers(1, 7, size=seqs)
        ids = rng.integers(0, VOCAB // 2, size=(int(lens.sum()), 1)).astype("int64")  # half the rows stay untouched
        out.append(
            {
                "ids": fluid.create_lod_tensor(ids, [lens.tolist()], fluid.CPUPlace()),
                "label": rng.integers(0, CLASSES, size=(seqs, 1)).astype("int64"),
            }
        )
    return out


def train(sparse, make_opt, data=None, place=None, **kw):
    main, startup, loss = build(sparse, make_opt, **kw)
    scope = fluid.Scope()
    exe = fluid.Executor(place or fluid.CPUPlace())
    losses = []
    with fluid.scope_guard(scope):
        exe.run(startup)
        for feed in data or batches():
            losses.append(float(exe.run(main, feed=feed, fetch_list=[loss])[0]))
        params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()}
    return params, losses


OPTIMIZERS = {
    "sgd": lambda: fluid.optimizer.SGD(0.5),
    "momentum": lambda: fluid.optimizer.Momentum(0.1, momentum=0.9),
    "adagrad": lambda: fluid.optimizer.Adagrad(0.05),
    "adam": lambda: fluid.optimizer.Adam(0.05, lazy_mode=False),
}


@pytest.mark.parametrize("name", ["adagrad", "momentum", "sgd"])
def test_sparse_trains_to_the_dense_parameters(name):
    dense, dense_losses = train(False, OPTIMIZERS[name])
    sparse, sparse_losses = train(True, OPTIMIZERS[name])
    assert dense_losses[-1] < dense_losses[0]
    np.testing.assert_allclose(sparse_losses, dense_losses, rtol=1e-6)
    for k in dense:
        np.testing.assert_allclose(sparse[k], dense[k], rtol=1e-6, atol=1e-7, err_msg=k)


def test_lazy_adam_moves_only_rows_it_saw():
    data = batches()
    seen = set()
    for feed in data[:-1]:
        seen |= set(np.array(feed["ids"]).reshape(-1).tolist())
    last = set(np.array(data[-1]["ids"]).reshape(-1).tolist())
    lazy, _ = train(True, lambda: fluid.optimizer.Adam(0.05, lazy_mode=True), data)
    dense, _ = train(False, lambda: fluid.optimizer.Adam(0.05), data)
    start, _ = train(False, lambda: fluid.optimizer.SGD(0.0), data)
    never = [k for k in range(VOCAB) if k not in seen | last and k != 3]
    np.testing.assert_array_equal(lazy["emb"][never], start["emb"][never])
    # rows seen earlier but not in the last batch: dense Adam keeps moving them by their moments, lazy does not
    stale = sorted((seen - last) - {3})
    assert stale and not np.allclose(lazy["emb"][stale], dense["emb"][stale])


def test_gradient_is_row_sparse_without_padding_rows():
    main, startup, loss = build(True, lambda: fluid.optimizer.SGD(0.1))
    exe = fluid.Executor(fluid.CPUPlace())
    feed = batches(1)[0]
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        sparse = exe.run(main, feed=feed, fetch_list=["emb@GRAD"], return_numpy=False)[0]
        dense = exe.run(main, feed=feed, fetch_list=["emb@GRAD"])[0]
    ids = np.array(feed["ids"]).reshape(-1)
    assert isinstance(sparse, SelectedRows) and sparse.height == VOCAB
    np.testing.assert_array_equal(sparse.rows, ids[ids != 3])  # duplicates kept, padding_idx left out
    assert sparse.values.shape == (int((ids != 3).sum()), DIM)
    assert dense.shape == (VOCAB, DIM) and not dense[3].any()  # fetched as numpy: the dense gradient
    assert not dense[[k for k in range(VOCAB) if k not in set(ids)]].any()


def train_parallel(sparse, make_opt, data, devices, reduce=False, fuse=False, memory=False):
    main, startup, loss = build(sparse, make_opt)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    strategy = fluid.BuildStrategy()
    if reduce:
        strategy.reduce_strategy = fluid.BuildStrategy.ReduceStrategy.Reduce
    strategy.fuse_all_reduce_ops = fuse
    strategy.memory_optimize = strategy.enable_inplace = memory
    program = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=fluid.cpu_places(devices)
    )
    losses = []
    with fluid.scope_guard(scope):
        exe.run(startup)
        for feed in data:
            losses.append(float(np.mean(exe.run(program, feed=feed, fetch_list=[loss])[0])))
        params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()}
    return params, losses


@pytest.mark.parametrize(
    "name,reduce,fuse,memory",
    [
        ("sgd", False, False, False),
        ("adagrad", True, False, False),
        ("lazy_adam", False, True, False),
        ("adam", False, False, True),
    ],
)
def test_two_devices_match_one_device(name, reduce, fuse, memory):
    """The devices' sparse gradients are gathered (rows and values end to end), so 2 CPU devices
    train to the parameters of 1 device on the same global batch (also with memory_optimize and
    enable_inplace releasing and reusing buffers)."""
    make_opt = dict(OPTIMIZERS, lazy_adam=lambda: fluid.optimizer.Adam(0.05, lazy_mode=True))[name]
    data = batches(4)
    one, one_losses = train(True, make_opt, data)
    two, two_losses = train_parallel(True, make_opt, data, 2, reduce, fuse, memory)
    np.testing.assert_allclose(two_losses, one_losses, rtol=1e-5)
    for k in one:
        np.testing.assert_allclose(two[k], one[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_gradient_variables_say_selected_rows():
    """Shape inference marks the row-sparse gradient as Fluid does (VarDesc.VarType.SELECTED_ROWS),
    also the sum of a table shared by two embeddings; the dense one stays LOD_TENSOR."""
    VarType = fluid.core.VarDesc.VarType
    for sparse, want in ((True, VarType.SELECTED_ROWS), (False, VarType.LOD_TENSOR)):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            a = fluid.layers.data("a", [1], dtype="int64")
            b = fluid.layers.data("b", [1], dtype="int64")
            ea = fluid.layers.embedding(a, [VOCAB, DIM], is_sparse=sparse, param_attr="shared")
            eb = fluid.layers.embedding(b, [VOCAB, DIM], is_sparse=sparse, param_attr="shared")
            loss = fluid.layers.mean(ea + eb)
            params_grads = fluid.backward.append_backward(loss)
        grad = dict((p.name, g) for p, g in params_grads)["shared"]
        assert grad.type == want
        assert main.global_block().var("shared").type == VarType.LOD_TENSOR


def test_shared_table_sums_sparse_gradients():
    """Two embeddings of one table: their sparse gradients are summed by concatenation, and the
    training equals the dense one."""

    def run(sparse):
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 3
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            a = fluid.layers.data("a", [1], dtype="int64")
            b = fluid.layers.data("b", [1], dtype="int64")
            y = fluid.layers.data("y", [1], dtype="int64")
            ea = fluid.layers.embedding(a, [VOCAB, DIM], is_sparse=sparse, param_attr="shared")
            eb = fluid.layers.embedding(b, [VOCAB, DIM], is_sparse=sparse, param_attr="shared")
            pred = fluid.layers.fc(fluid.layers.concat([ea, eb], axis=1), CLASSES, act="softmax")
            loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, y))
            fluid.optimizer.Adagrad(0.05).minimize(loss)
        rng = np.random.default_rng(2)
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        with fluid.scope_guard(scope):
            exe.run(startup)
            for _ in range(4):
                exe.run(
                    main,
                    feed={
                        "a": rng.integers(0, 20, (6, 1)),
                        "b": rng.integers(10, 30, (6, 1)),
                        "y": rng.integers(0, CLASSES, (6, 1)),
                    },
                    fetch_list=[loss],
                )
            return np.array(scope.find_var("shared").get_tensor())

    np.testing.assert_allclose(run(True), run(False), rtol=1e-6, atol=1e-7)


def test_merge_and_values_layers_and_their_error():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        ids = fluid.layers.data("ids", [1], dtype="int64")
        emb = fluid.layers.embedding(ids, [VOCAB, DIM], is_sparse=True, param_attr="emb")
        loss = fluid.layers.mean(emb)
        grad = dict((p.name, g) for p, g in fluid.backward.append_backward(loss))["emb"]
        merged = fluid.layers.merge_selected_rows(grad)
        values = fluid.layers.get_tensor_from_selected_rows(merged)
        with pytest.raises(ShapeError, match=f"X '{emb.name}' .* must be row-sparse"):
            fluid.layers.merge_selected_rows(emb)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    got_merged, got_values = exe.run(
        main, feed={"ids": np.array([[7], [2], [7]], dtype="int64")}, fetch_list=[merged, values], return_numpy=False
    )
    np.testing.assert_array_equal(got_merged.rows, [2, 7])
    np.testing.assert_allclose(np.array(got_values), np.full((2, DIM), [[1], [2]]) / (3 * DIM))


def test_fetching_the_sparse_gradient_from_two_devices_gives_the_dense_one():
    """A fetch concatenates the devices' values along dim 0; a row-sparse gradient merges as the dense
    gradient does (each device holds the gathered sum)."""
    got = {}
    for sparse in (True, False):
        main, startup, loss = build(sparse, OPTIMIZERS["sgd"])
        exe = fluid.Executor(fluid.CPUPlace())
        with fluid.scope_guard(fluid.Scope()):
            exe.run(startup)
            program = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=fluid.cpu_places(2))
            got[sparse] = exe.run(program, feed=batches(1)[0], fetch_list=["emb@GRAD"])[0]
    assert got[True].shape == (2 * VOCAB, DIM)
    np.testing.assert_allclose(got[True], got[False], rtol=1e-6, atol=1e-8)


def test_a_fed_selected_rows_is_checked():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        p = fluid.layers.create_parameter([4, 2], "float32", name="p")
        g = main.global_block().create_var(name="g", shape=[4, 2], dtype="float32", is_data=True)
        lr = fluid.layers.fill_constant([1], "float32", 0.1)
        main.global_block().append_op("sgd", {"Param": [p], "Grad": [g], "LearningRate": [lr]}, {"ParamOut": [p]})
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    exe.run(main, feed={"g": SelectedRows(np.array([1, 1]), np.ones((2, 2), "float32"), 4)})
    bad = SelectedRows(np.array([1, 9]), np.ones((2, 2), "float32"), 4)
    with pytest.raises(FeedError, match=r"feed 'g': a SelectedRows needs rows \[K\] in \[0, 4\)"):
        exe.run(main, feed={"g": bad})


def test_check_nan_inf_scans_a_sparse_gradient():
    """With check_nan_inf on, the row-sparse gradient is scanned (its values) like any output."""
    from pe_cli.executor import nan_check

    main, startup, loss = build(True, OPTIMIZERS["sgd"])
    exe = fluid.Executor(fluid.CPUPlace())
    feed = batches(1)[0]
    with fluid.scope_guard(fluid.Scope()), nan_check.enabled():
        exe.run(startup)
        assert np.isfinite(exe.run(main, feed=feed, fetch_list=[loss])[0]).all()


def test_sparse_updates_write_the_table_in_place_only_when_nothing_else_holds_it():
    """A sparse sgd / adagrad / lazy adam changes a few rows of a large table: where only the run's
    values and the scope hold the table, the update writes those rows in place (no copy of the
    table); an array someone else holds is never written."""
    for make in (OPTIMIZERS["sgd"], OPTIMIZERS["adagrad"], lambda: fluid.optimizer.Adam(0.05, lazy_mode=True)):
        main, startup, loss = build(True, make)
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        feeds = batches(3)
        with fluid.scope_guard(scope):
            exe.run(startup)
            exe.run(main, feed=feeds[0], fetch_list=[loss])
            table = scope.find_var("emb").get_tensor()
            before = weakref.ref(table._array)  # (a weak reference holds nothing)
            exe.run(main, feed=feeds[1], fetch_list=[loss])
            assert table._array is before()  # written in place
            held = np.asarray(table)  # a user's reference to the array
            kept = held.copy()
            exe.run(main, feed=feeds[2], fetch_list=[loss])
            np.testing.assert_array_equal(held, kept)  # not written: a new array instead
            assert table._array is not held and not np.array_equal(table._array, kept)
