"""The indexing layers of layers/indexing.py (and strided_slice, unbind of layers/manipulation.py)
as Fluid 1.8 users call them: shapes at build time, mistakes reported there, values when run (numerics: their op cases)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError, ShapeError

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def run(main, feed, fetch):
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, scope=fluid.Scope())


def test_strided_slice_and_unbind(prog):
    x = layers.data("x", [3, 6], dtype="float32", append_batch_size=False)
    s = layers.strided_slice(x, axes=[0, 1], starts=[-1, 1], ends=[-1, 6], strides=[-1, 2])
    parts = layers.unbind(x, axis=0)
    assert s.shape == (3, 3) and len(parts) == 3 and parts[0].shape == (6,)
    xv = np.arange(18, dtype=np.float32).reshape(3, 6)
    got = run(prog, {"x": xv}, [s] + parts)
    np.testing.assert_array_equal(got[0], xv[::-1, 1::2])
    for k in range(3):
        np.testing.assert_array_equal(got[1 + k], xv[k])
    with pytest.raises(ShapeError, match="is empty"):
        layers.strided_slice(x, axes=[1], starts=[4], ends=[1], strides=[1])


def test_scatter_and_gather_nd(prog):
    x = layers.data("x", [4, 2], dtype="float32", append_batch_size=False)
    ids = layers.data("ids", [2], dtype="int64", append_batch_size=False)
    upd = layers.data("upd", [2, 2], dtype="float32", append_batch_size=False)
    out = layers.scatter(x, ids, upd)
    picked = layers.gather_nd(out, layers.data("nd", [2, 2], dtype="int64", append_batch_size=False))
    assert out.shape == (4, 2) and picked.shape == (2,)
    got_out, got_picked = run(
        prog,
        {
            "x": np.zeros((4, 2), np.float32),
            "ids": np.array([3, 1]),
            "upd": np.array([[1, 2], [3, 4]], np.float32),
            "nd": np.array([[3, 1], [1, 0]]),
        },
        [out, picked],
    )
    np.testing.assert_array_equal(got_out, [[0, 0], [3, 4], [0, 0], [1, 2]])
    np.testing.assert_array_equal(got_picked, [2, 3])
    with pytest.raises(PeError, match="outside the 4 rows"):
        run(
            prog,
            {
                "x": np.zeros((4, 2), np.float32),
                "ids": np.array([4, 1]),
                "upd": np.zeros((2, 2), np.float32),
                "nd": np.zeros((2, 2), np.int64),
            },
            [out],
        )


def test_argsort_and_unique(prog):
    x = layers.data("x", [5], dtype="int64", append_batch_size=False)
    out, ids = layers.argsort(x, descending=True)
    u, index, count = layers.unique_with_counts(x)
    assert out.stop_gradient and ids.dtype == "int64" and index.dtype == "int32" and u.shape == (-1,)
    got = run(prog, {"x": np.array([4, 1, 4, 0, 1])}, [out, ids, u, index, count])
    assert got[0].tolist() == [4, 4, 1, 1, 0] and got[1].tolist() == [0, 2, 1, 4, 3]
    assert got[2].tolist() == [4, 1, 0] and got[3].tolist() == [0, 1, 0, 2, 1] and got[4].tolist() == [2, 2, 1]


def _scores(ids, classes=4):
    return np.eye(classes, dtype=np.float32)[ids] * 5 + 0.1


def test_ctc_greedy_decoder_over_sequences(prog):
    x = layers.data("x", [4], dtype="float32", lod_level=1)
    out = layers.ctc_greedy_decoder(x, blank=0)
    assert out.dtype == "int64" and out.lod_level == 1
    feed = fluid.create_lod_tensor(_scores([1, 1, 0, 1, 2, 0, 0, 3, 3]), [[5, 4]], fluid.CPUPlace())
    got = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"x": feed}, fetch_list=[out], scope=fluid.Scope(), return_numpy=False
    )[0]
    assert np.array(got).reshape(-1).tolist() == [1, 1, 2, 3] and got.lod() == [[0, 3, 4]]


def test_ctc_greedy_decoder_takes_its_lod_from_the_feed(prog):
    """test_ctc_align's TestCTCAlignOpApi: an input declared without lod_level builds (Fluid checks the LoD
    at run time); float scores only (BadInputTestCTCAlignr's TypeError)."""
    x = layers.data("x", [4], dtype="float32")
    out = layers.ctc_greedy_decoder(x, blank=0)
    with pytest.raises(TypeError, match="ctc_greedy_decoder: input 'ids' is int64; it must be one of float32, float64"):
        layers.ctc_greedy_decoder(layers.data("ids", [8], dtype="int64"), blank=0)
    feed = fluid.create_lod_tensor(_scores([1, 1, 0, 2]), [[4]], fluid.CPUPlace())
    got = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"x": feed}, fetch_list=[out], scope=fluid.Scope(), return_numpy=False
    )[0]
    assert np.array(got).reshape(-1).tolist() == [1, 2] and got.lod() == [[0, 2]]


def test_ctc_greedy_decoder_padded(prog):
    x = layers.data("x", [3, 4], dtype="float32")
    length = layers.data("len", [1], dtype="int64")
    out, out_len = layers.ctc_greedy_decoder(x, blank=3, input_length=length, padding_value=-1)
    xv = np.stack([_scores([2, 2, 3]), _scores([1, 3, 1])])
    got, got_len = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"x": xv, "len": np.array([[3], [2]])}, fetch_list=[out, out_len], scope=fluid.Scope()
    )
    assert got.tolist() == [[2, -1, -1], [1, -1, -1]] and got_len.reshape(-1).tolist() == [1, 1]


def test_warpctc_loss_and_norm_by_times():
    xv = fluid.create_lod_tensor(
        np.random.default_rng(6).normal(size=(7, 3)).astype(np.float32), [[3, 4]], fluid.CPUPlace()
    )
    yv = fluid.create_lod_tensor(np.array([[1], [2], [1]], np.int32), [[1, 2]], fluid.CPUPlace())
    results = []
    for norm in (False, True):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            x = layers.data("x", [3], dtype="float32", lod_level=1, stop_gradient=False)  # Fluid 1.8's: float32
            y = layers.data("y", [1], dtype="int32", lod_level=1)
            loss = layers.warpctc(x, y, norm_by_times=norm)
            grad = fluid.backward.gradients([layers.reduce_sum(loss)], [x])[0]
        assert loss.shape == (-1, 1)
        results.append(run(main, {"x": xv, "y": yv}, [loss, grad]))
    (loss_a, g_a), (loss_b, g_b) = results
    np.testing.assert_allclose(loss_a, loss_b)  # the loss itself is not normalized
    np.testing.assert_allclose(g_b, g_a / np.array([3, 3, 3, 4, 4, 4, 4])[:, None], rtol=1e-6)
    assert np.all(np.isfinite(loss_a)) and np.all(loss_a > 0)


def test_filter_by_instag_keeps_tagged_sequences(prog):
    ins = layers.data("ins", [2], dtype="float32", lod_level=1)
    tags = layers.data("tags", [1], dtype="int64", lod_level=1)
    filt = layers.data("filt", [1], dtype="int64", append_batch_size=False)
    out, weight = layers.filter_by_instag(ins, tags, filt, is_lod=True)
    place = fluid.CPUPlace()
    xv = fluid.create_lod_tensor(np.arange(10, dtype=np.float32).reshape(5, 2), [[2, 1, 2]], place)
    tv = fluid.create_lod_tensor(np.array([[4], [6], [4], [9]], np.int64), [[1, 2, 1]], place)
    got, got_w = fluid.Executor(place).run(
        prog,
        feed={"ins": xv, "tags": tv, "filt": np.array([4], np.int64)},
        fetch_list=[out, weight],
        scope=fluid.Scope(),
        return_numpy=False,
    )
    assert np.array(got).tolist() == [[0, 1], [2, 3], [4, 5]] and got.lod() == [[0, 2, 3]]
    assert np.array(got_w).reshape(-1).tolist() == [1.0, 1.0]
