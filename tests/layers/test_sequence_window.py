"""sequence_enumerate, sequence_scatter and row_conv as layers: the LoD users read back, row_conv's
filter parameter and its training, and one clear error for ids out of range."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError

L = fluid.layers


def _lod(values, lengths, dtype="float32"):
    return fluid.create_lod_tensor(np.asarray(values, dtype), lengths, fluid.CPUPlace())


def test_enumerate_keeps_lod_and_pads():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = L.data("x", shape=[1], dtype="int64", lod_level=1)
        out = L.sequence_enumerate(x, win_size=3, pad_value=9)
    (got,) = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": _lod([[1], [2], [3], [4]], [[3, 1]], "int64")}, fetch_list=[out], return_numpy=False
    )
    assert got.lod() == [[0, 3, 4]] and out.stop_gradient
    np.testing.assert_array_equal(np.array(got), [[1, 2, 3], [2, 3, 9], [3, 9, 9], [4, 9, 9]])


def test_row_conv_learns_a_lookahead():
    """A target that is the next step of each sequence: row_conv with future_context_size 1 learns
    the filter [0, 1] per column, and its output keeps the input's LoD."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup):
        x = L.data("x", shape=[2], dtype="float32", lod_level=1)
        y = L.data("y", shape=[2], dtype="float32", lod_level=1)
        out = L.row_conv(x, future_context_size=1)
        loss = L.mean(L.square(out - y))
        fluid.optimizer.SGD(0.5).minimize(loss)
    w = main.global_block().all_parameters()[0]
    assert tuple(w.shape) == (2, 2)
    rng = np.random.default_rng(0)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    for _ in range(300):
        lengths = [int(n) for n in rng.integers(2, 6, size=4)]
        xs = rng.normal(size=(sum(lengths), 2)).astype("float32")
        ys, start = np.zeros_like(xs), 0
        for n in lengths:
            ys[start : start + n - 1] = xs[start + 1 : start + n]
            start += n
        last, o = exe.run(
            main,
            feed={"x": _lod(xs, [lengths]), "y": _lod(ys, [lengths])},
            fetch_list=[loss, out],
            scope=scope,
            return_numpy=False,
        )
    assert o.lod() == [np.concatenate([[0], np.cumsum(lengths)]).tolist()]
    assert float(np.array(last).reshape(())) < 1e-3
    np.testing.assert_allclose(np.array(scope.find_var(w.name).get_tensor()), [[0, 0], [1, 1]], atol=0.05)


def test_scatter_ids_out_of_range_is_one_clear_error():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = L.data("x", shape=[3], dtype="float32")
        ids = L.data("ids", shape=[1], dtype="int64", lod_level=1)
        upd = L.data("upd", shape=[1], dtype="float32", lod_level=1)
        out = L.sequence_scatter(x, ids, upd)
    feed = {
        "x": np.zeros((2, 3), "float32"),
        "ids": _lod([[0], [3]], [[1, 1]], "int64"),
        "upd": _lod([[1], [1]], [[1, 1]]),
    }
    with pytest.raises(PeError, match=r"Ids must be columns in \[0, 3\)"):
        fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[out])


def test_im2sequence_gives_one_sequence_per_image():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        img = L.data("img", shape=[1, 3, 4], dtype="float32")
        out = L.im2sequence(img, filter_size=[2, 2], stride=[1, 2])
    assert out.shape == (-1, 4) and out.lod_level == 1
    x = np.arange(24, dtype="float32").reshape(2, 1, 3, 4)
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed={"img": x}, fetch_list=[out], return_numpy=False)
    assert got.lod() == [[0, 4, 8]]
    np.testing.assert_array_equal(np.array(got)[:2], [[0, 1, 4, 5], [2, 3, 6, 7]])


def test_im2sequence_filter_larger_than_image_is_refused_when_built():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        img = L.data("img", shape=[1, 3, 4], dtype="float32")
        with pytest.raises(PeError, match="do not fit images"):
            L.im2sequence(img, filter_size=5)
