"""FileInstantDataset (data/instant_datafeed.py): Fluid's MultiSlotFileInstantDataFeed binary files
(per instance and slot: a uint16 count, the -1 dims' sizes as uint64, then the values), read into
batches of the variables' shapes and trained on by train_from_dataset as the sequential executor
trains on the same batches; broken files are one error naming the file; and Executor's
_adjust_pipeline_resource, Fluid's sizing of a pipeline to its files."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError
from pe_cli.data.instant_datafeed import instant_batches

IDS = np.arange(5) % 4
FEATS = np.arange(10, dtype=np.float32).reshape(5, 2) / 10
BATCH = 2


def _write(path, rows=5):
    with open(path, "wb") as f:
        for i in range(rows):
            in_batch = min(BATCH, rows - i // BATCH * BATCH)  # the -1 dim: the rows of the instance's batch
            for values, kind in (([IDS[i]], np.uint64), (FEATS[i], np.float32)):
                np.array([len(values) + 1], np.uint16).tofile(f)
                np.array([in_batch], np.uint64).tofile(f)
                np.asarray(values, kind).tofile(f)
    return str(path)


def _program():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        ids = fluid.layers.data("ids", [1], dtype="int64")
        feats = fluid.layers.data("feats", [2], dtype="float32")
        emb = fluid.layers.embedding(ids, size=[4, 2])
        loss = fluid.layers.mean(fluid.layers.fc(fluid.layers.concat([emb, feats], axis=1), 1))
        fluid.optimizer.SGD(0.5).minimize(loss)
    return main, startup, [ids, feats]


def _params(scope, main):
    return {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.global_block().all_parameters()}


def test_batches_take_the_variables_shapes_and_train_as_the_executor(tmp_path):
    path = _write(tmp_path / "part-0")
    main, startup, use = _program()
    batches = list(instant_batches(path, use, BATCH))
    assert [b["ids"].shape for b in batches] == [(2, 1), (2, 1), (1, 1)]
    np.testing.assert_array_equal(np.concatenate([b["ids"] for b in batches]).ravel(), IDS)
    np.testing.assert_array_equal(np.concatenate([b["feats"] for b in batches]), FEATS)
    assert batches[0]["ids"].dtype == np.int64 and batches[0]["feats"].dtype == np.float32
    exe = fluid.Executor(fluid.CPUPlace())
    want, got = fluid.Scope(), fluid.Scope()
    for scope in (want, got):
        exe.run(startup, scope=scope)
    for batch in batches:
        exe.run(main, feed=batch, scope=want)
    dataset = fluid.DatasetFactory().create_dataset("FileInstantDataset")
    dataset.set_use_var(use)
    dataset.set_batch_size(BATCH)
    dataset.set_filelist([path])
    exe.train_from_dataset(main, dataset, scope=got, thread=1)
    for name, value in _params(want, main).items():
        np.testing.assert_array_equal(_params(got, main)[name], value, err_msg=name)
    with pytest.raises(NotImplementedError, match="does not support local shuffle"):
        dataset.local_shuffle()


def test_a_broken_file_is_one_error_naming_it(tmp_path):
    _, _, use = _program()
    path = _write(tmp_path / "cut")
    with open(path, "r+b") as f:
        f.truncate(20)
    with pytest.raises(PeError, match=r"cut: ends inside"):
        list(instant_batches(path, use, BATCH))
    zero = tmp_path / "zero"
    np.zeros(4, np.uint16).tofile(zero)
    with pytest.raises(PeError, match=r"zero: byte 0: slot 'ids' holds 0 values"):
        list(instant_batches(str(zero), use, BATCH))


def test_adjust_pipeline_resource_fits_the_pipeline_to_the_files():
    dataset = fluid.DatasetFactory().create_dataset("FileInstantDataset")
    dataset.set_filelist([f"file{i}" for i in range(3)])
    opt = {"concurrency_list": [2, 1, 1]}
    assert fluid.Executor(fluid.CPUPlace())._adjust_pipeline_resource(opt, dataset, 4) == 3
    assert opt["concurrency_list"][0] == 1 and dataset.thread_num == 3 and dataset.dataset.get_filelist()[0] == "file0"
