"""The layers that reshape the LoD (sequence_expand_as, sequence_concat, sequence_slice,
sequence_reshape) through fluid: the output LoD users read back, and one clear error for input
that does not fit."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError

L = fluid.layers


def _run(build, feed, place=None):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        outs = build()
    exe = fluid.Executor(place or fluid.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=list(outs), return_numpy=False)


def _lod(values, lengths):
    return fluid.create_lod_tensor(np.asarray(values, "float32"), lengths, fluid.CPUPlace())


def test_expand_as_takes_y_lod():
    def build():
        x = L.data("x", shape=[2], dtype="float32")
        y = L.data("y", shape=[1], dtype="float32", lod_level=1)
        out = L.sequence_expand_as(x, y)
        assert out.lod_level == 1
        return [out]

    x = np.array([[1, 2], [3, 4], [5, 6]], "float32")
    (out,) = _run(build, {"x": x, "y": _lod(np.zeros((6, 1)), [[3, 0, 3]])})
    assert out.lod() == [[0, 3, 3, 6]]
    np.testing.assert_array_equal(np.array(out), x[[0, 0, 0, 2, 2, 2]])


def test_concat_joins_sequence_by_sequence_and_keeps_upper_level():
    def build():
        a = L.data("a", shape=[1], dtype="float32", lod_level=2)
        b = L.data("b", shape=[1], dtype="float32", lod_level=2)
        return [L.sequence_concat([a, b])]

    a = _lod([[1], [2], [3]], [[1, 1], [2, 1]])
    b = _lod([[10], [20], [30]], [[1, 1], [1, 2]])
    (out,) = _run(build, {"a": a, "b": b})
    assert out.lod() == [[0, 1, 2], [0, 3, 6]]
    np.testing.assert_array_equal(np.array(out)[:, 0], [1, 2, 10, 3, 20, 30])


def test_slice_gives_the_slices_lengths():
    def build():
        x = L.data("x", shape=[1], dtype="float32", lod_level=1)
        off = L.data("off", shape=[1], dtype="int64")
        n = L.data("n", shape=[1], dtype="int64")
        return [L.sequence_slice(x, off, n)]

    x = _lod(np.arange(7).reshape(7, 1), [[4, 3]])
    (out,) = _run(build, {"x": x, "off": np.array([[1], [0]], "int64"), "n": np.array([[2], [3]], "int64")})
    assert out.lod() == [[0, 2, 5]]
    np.testing.assert_array_equal(np.array(out)[:, 0], [1, 2, 4, 5, 6])


PLACES = [fluid.CPUPlace(), fluid.CUDAPlace(0)]


@pytest.mark.parametrize("place", PLACES, ids=["cpu", "cuda"])
def test_lod_append_and_lod_reset(place):
    def build():
        x = L.data("x", shape=[1], dtype="float32", lod_level=1)
        plain = L.data("p", shape=[1], dtype="float32")
        offsets = L.data("offs", shape=[1], dtype="int32")
        out = [
            L.lod_append(plain, [0, 2, 5]),
            L.lod_append(x, [0, 1, 2, 3, 4, 5]),
            L.lod_append(plain, offsets),
            L.lod_reset(x, target_lod=[0, 4, 5]),
            L.lod_reset(plain, y=x),
        ]
        assert [v.lod_level for v in out] == [1, 2, 1, 1, 1]
        return out

    x = _lod(np.arange(5).reshape(5, 1), [[2, 3]])
    feed = {"x": x, "p": np.arange(5, dtype="float32").reshape(5, 1), "offs": np.array([[0], [3], [5]], "int32")}
    outs = _run(build, feed, place)
    assert [o.lod() for o in outs] == [
        [[0, 2, 5]],
        [[0, 2, 5], [0, 1, 2, 3, 4, 5]],
        [[0, 3, 5]],
        [[0, 4, 5]],
        [[0, 2, 5]],
    ]
    for o in outs:
        np.testing.assert_array_equal(np.array(o), feed["p"])


def test_lod_append_refuses_as_fluid():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(TypeError, match="lod_append: x must be Variable, got ndarray"):
            L.lod_append(np.ones(4, "float64"), [0, 2, 4])  # x not a Variable
        x = L.data("x", shape=[4], dtype="float32")
        with pytest.raises(
            ValueError, match=r"lod_append layer 'lod_append_\d+': level must be a list of offsets or a Variable, got 2"
        ):
            L.lod_append(x, 2)  # level neither list nor Variable
        with pytest.raises(
            TypeError, match="lod_append: x 'b' is bool; it must be one of float32, float64, int32, int64"
        ):
            L.lod_append(L.data("b", shape=[4], dtype="bool"), [0, 2])  # x's dtype
        # offsets without LoD: int32 only
        with pytest.raises(TypeError, match="lod_append: level 'lv' is int64; it must be one of int32"):
            L.lod_append(x, L.data("lv", shape=[4], dtype="int64"))


@pytest.mark.parametrize("place", PLACES, ids=["cpu", "cuda"])
def test_concat_and_slice_lod_on_each_device(place):
    def build():
        a = L.data("a", shape=[1], dtype="float32", lod_level=1)
        off = L.data("off", shape=[1], dtype="int64")
        return [L.sequence_concat([a, a]), L.sequence_slice(a, off, off)]

    a = _lod([[1], [2], [3]], [[2, 1]])
    cat, sl = _run(build, {"a": a, "off": np.array([[1], [0]], "int64")}, place)
    assert cat.lod() == [[0, 4, 6]] and sl.lod() == [[0, 1, 1]]
    np.testing.assert_array_equal(np.array(cat)[:, 0], [1, 2, 1, 2, 3, 3])
    np.testing.assert_array_equal(np.array(sl)[:, 0], [2])


def test_reshape_scales_offsets():
    def build():
        x = L.data("x", shape=[4], dtype="float32", lod_level=1)
        out = L.sequence_reshape(x, new_dim=2)
        assert out.shape == (-1, 2)
        return [out]

    x = _lod(np.arange(12).reshape(3, 4), [[1, 2]])
    (out,) = _run(build, {"x": x})
    assert out.lod() == [[0, 2, 6]]
    np.testing.assert_array_equal(np.array(out), np.arange(12).reshape(6, 2))


@pytest.mark.parametrize(
    "build, feed, message",
    [
        (
            lambda: [L.sequence_reshape(L.data("x", shape=[3], dtype="float32", lod_level=1), new_dim=2)],
            {"x": _lod(np.ones((3, 3)), [[1, 2]])},
            "not a multiple of new_dim 2",
        ),
        (
            lambda: [
                L.sequence_slice(
                    L.data("x", shape=[1], dtype="float32", lod_level=1),
                    L.data("o", shape=[1], dtype="int64"),
                    L.data("n", shape=[1], dtype="int64"),
                )
            ],
            {
                "x": _lod(np.ones((3, 1)), [[1, 2]]),
                "o": np.array([[0], [1]], "int64"),
                "n": np.array([[1], [2]], "int64"),
            },
            "sequence 1 has 2 steps",
        ),
        (
            lambda: [
                L.sequence_expand_as(
                    L.data("x", shape=[1], dtype="float32"), L.data("y", shape=[1], dtype="float32", lod_level=1)
                )
            ],
            {"x": np.ones((3, 1), "float32"), "y": _lod(np.ones((3, 1)), [[1, 2]])},
            "X needs one row per sequence",
        ),
        (
            lambda: [
                L.sequence_concat(
                    [
                        L.data("a", shape=[1], dtype="float32", lod_level=1),
                        L.data("b", shape=[1], dtype="float32", lod_level=1),
                    ]
                )
            ],
            {"a": _lod(np.ones((3, 1)), [[1, 2]]), "b": _lod(np.ones((3, 1)), [[3]])},
            "X #1 has 1 sequences",
        ),
        (
            lambda: [L.lod_reset(L.data("x", shape=[1], dtype="float32"), target_lod=[0, 4, 2, 5])],
            {"x": np.ones((5, 1), "float32")},
            "must be offsets: from 0, not decreasing, ending at X's 5 rows",
        ),
        (
            lambda: [L.lod_append(L.data("x", shape=[1], dtype="float32", lod_level=1), [0, 2, 3])],
            {"x": _lod(np.ones((3, 1)), [[1, 2]])},
            "X's last LoD level counts 3 items but the new level has 2",
        ),
    ],
)
def test_input_that_does_not_fit_is_one_clear_error(build, feed, message):
    with pytest.raises(PeError, match=message):
        _run(build, feed)


def test_plain_tensor_is_refused_when_run():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = L.data("x", shape=[4], dtype="float32")
        out = L.sequence_reshape(x, 2)  # Fluid 1.8.5 builds it: its kernel checks the LoD
    with pytest.raises(fluid.core.EnforceNotMet, match="sequence_reshape: X has no LoD"):
        fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": np.ones((2, 4), "float32")}, fetch_list=[out])


def test_unpad_of_a_plain_feed_gets_its_lod():
    def build():
        x = L.data("x", shape=[3, 2], dtype="float32")
        n = L.data("n", shape=[], dtype="int64")
        return [L.sequence_unpad(x, n)]

    (out,) = _run(build, {"x": np.ones((2, 3, 2), "float32"), "n": np.array([1, 3], "int64")})
    assert out.lod() == [[0, 1, 4]]


def test_cos_sim_of_sequences_is_a_sequence_sequence_reshape_takes():
    """Fluid's cos_sim shares X's LoD with Out (PaddleRec's tagspace reshapes the similarities of a
    text's negative tags, a sequence, into rows of neg_size)."""

    def build():
        x = L.data("x", shape=[3], dtype="float32", lod_level=1)
        y = L.data("y", shape=[3], dtype="float32")
        sim = L.cos_sim(x, y)
        assert sim.lod_level == 1
        return [sim, L.sequence_reshape(sim, new_dim=2)]

    x = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 2]], "float32")
    y = np.array([[1, 0, 0]] * 4, "float32")
    sim, rows = _run(build, {"x": _lod(x, [[2, 2]]), "y": y})
    assert sim.lod() == [[0, 2, 4]] and rows.lod() == [[0, 1, 2]]
    np.testing.assert_allclose(np.array(rows), [[1, 0], [np.sqrt(0.5), 0]], rtol=1e-6)
