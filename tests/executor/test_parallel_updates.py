"""CPU devices share one memory: the multi-device graph updates each parameter once, on its owner,
after every device's readers of it, and the update writes the scope's array in place when nothing
else holds it (a 100,000-row embedding table is not copied every step). The numbers are those of
the fused all-reduce graph, where every device updates its own copy (in place: each device's copy
is its own from the first run)."""

import numpy as np

import pe_cli.fluid as fluid

VOCAB = 1000


def sparse_model():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        ids = fluid.layers.data(name="ids", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        emb = fluid.layers.embedding(ids, size=[VOCAB, 8], is_sparse=True)
        hidden = fluid.layers.fc(fluid.layers.sequence_pool(emb, "sum"), 16, act="relu")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(hidden, 2), label))
        fluid.optimizer.Adam(0.01, lazy_mode=True).minimize(loss)
    return main, startup, loss


def batches(steps, n=8):
    rng = np.random.default_rng(0)
    for _ in range(steps):
        lengths = rng.integers(1, 4, n).tolist()
        ids = rng.integers(0, VOCAB, (sum(lengths), 1)).astype("int64")
        yield {
            "ids": fluid.create_lod_tensor(ids, [lengths], fluid.CPUPlace()),
            "label": rng.integers(0, 2, (n, 1)).astype("int64"),
        }


def train(fused, steps=4, hold=False):
    main, startup, loss = sparse_model()
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    strategy.fuse_all_reduce_ops = fused
    compiled = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=[fluid.CPUPlace()] * 2
    )
    exe, table = fluid.Executor(fluid.CPUPlace()), "embedding_0.w_0"
    kept, same = [], []
    for batch in batches(steps):
        tensor = scope.find_var(table).get_tensor()
        before = id(tensor._array)  # (not lent: get_array or numpy.asarray(tensor) would keep the update out)
        if hold:
            array = scope.get_array(table)
            kept.append((array, array.copy()))
            del array
        exe.run(compiled, feed=batch, fetch_list=[loss.name], scope=scope)
        same.append(id(tensor._array) == before)  # both arrays live during a copying update
    return {p.name: np.array(scope.get_array(p.name)) for p in main.all_parameters()}, same, kept


def test_an_owned_update_writes_the_table_in_place_with_the_numbers_of_every_device_updating():
    shared, same, _ = train(fused=False)
    assert same[1:] == [True] * 3  # after the first step, no step copies the table
    copies, same_fused, _ = train(fused=True)
    # every device updates its own copy (made at the first run), in place from the first step: two devices
    # writing one array would update it twice, and the numbers below would differ
    assert same_fused == [True] * 4
    for name, value in shared.items():
        np.testing.assert_array_equal(value, copies[name])


def test_an_array_the_user_holds_is_never_written():
    _, same, kept = train(fused=False, hold=True)
    assert same == [False] * 4
    for array, copy in kept:
        np.testing.assert_array_equal(array, copy)
