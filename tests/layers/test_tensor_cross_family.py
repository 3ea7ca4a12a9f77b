"""The tensor layers of layers/tensor_extra.py as Fluid 1.8 users call them: build-time shapes and
mistakes, run-time values (the ops' numerics are checked by their op cases)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.base.errors import PeError

layers = fluid.layers


@pytest.fixture
def prog():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main


def run(main, feed, fetch):
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch, scope=fluid.Scope())


def test_range_of_numbers_has_its_length_at_build_time(prog):
    a = layers.range(0, 10, 3, "int64")
    b = layers.range(1.0, 0.0, -0.25, "float32")
    assert a.shape == (4,) and b.shape == (4,)
    got_a, got_b = run(prog, {}, [a, b])
    np.testing.assert_array_equal(got_a, [0, 3, 6, 9])
    np.testing.assert_allclose(got_b, [1.0, 0.75, 0.5, 0.25])


def test_range_with_a_variable_end_and_a_bad_step(prog):
    end = layers.data("end", [1], dtype="int32", append_batch_size=False)
    out = layers.range(2, end, 2, "int32")
    assert out.shape == (-1,)
    np.testing.assert_array_equal(run(prog, {"end": np.array([7], dtype=np.int32)}, [out])[0], [2, 4, 6])
    with pytest.raises(PeError, match="step=1 does not lead from start=5 to end=0"):
        layers.range(5, 0, 1, "int64")


def test_eye_with_batch_shape_and_diag(prog):
    e = layers.eye(2, 3, batch_shape=[4], dtype="float64")
    d = layers.diag(np.array([1.0, 2.0], dtype=np.float32))
    assert e.shape == (4, 2, 3) and d.shape == (2, 2)
    got_e, got_d = run(prog, {}, [e, d])
    np.testing.assert_array_equal(got_e, np.broadcast_to(np.eye(2, 3), (4, 2, 3)))
    np.testing.assert_array_equal(got_d, np.diag([1.0, 2.0]))


def test_cumsum_reverse_and_ones_like_and_size(prog):
    x = layers.data("x", [3], dtype="float32")
    c = layers.cumsum(x, exclusive=True)
    r = layers.reverse(x, axis=-1)
    o = layers.ones_like(x)
    n = layers.size(x)
    assert (c.shape, o.shape, n.shape, n.dtype, o.dtype) == ((-1, 3), (-1, 3), (1,), "int64", "float32")
    xv = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    got_c, got_r, got_o, got_n = run(prog, {"x": xv}, [c, r, o, n])
    np.testing.assert_array_equal(got_c, [[0, 1, 3], [0, 4, 9]])
    np.testing.assert_array_equal(got_r, xv[:, ::-1])
    np.testing.assert_array_equal(got_o, np.ones((2, 3)))
    assert got_n.tolist() == [6]


def test_where_and_logical_reductions(prog):
    x = layers.data("x", [3], dtype="float32")
    positive = layers.greater_than(x, layers.zeros_like(x))
    idx = layers.where(positive)
    every, some = layers.reduce_all(positive, dim=1), layers.reduce_any(positive)
    assert idx.shape == (-1, 2) and idx.dtype == "int64" and every.dtype == "bool"
    got_idx, got_every, got_some = run(
        prog, {"x": np.array([[1, -1, 2], [3, 4, 5]], dtype=np.float32)}, [idx, every, some]
    )
    np.testing.assert_array_equal(got_idx, [[0, 0], [0, 2], [1, 0], [1, 1], [1, 2]])
    assert got_every.tolist() == [False, True] and got_some.tolist() == [True]


def test_reduce_all_refuses_floats(prog):
    with pytest.raises(TypeError, match="must be one of bool"):  # Fluid 1.8's check_variable_and_dtype
        layers.reduce_all(layers.data("x", [3], dtype="float32"))


def test_nan_and_inf_checks(prog):
    x = layers.data("x", [2], dtype="float32")
    flags = [layers.isfinite(x), layers.has_inf(x), layers.has_nan(x)]
    assert all(f.dtype == "bool" and f.shape == (1,) for f in flags)
    got = run(prog, {"x": np.array([[1, np.inf]], dtype=np.float32)}, flags)
    assert [bool(g[0]) for g in got] == [False, True, False]


def test_expand_as_mismatch_is_reported_when_run(prog):
    x = layers.data("x", [2, 3], append_batch_size=False)
    out = layers.expand_as(x, layers.data("t", [4, 4], append_batch_size=False))  # (Fluid 1.8.5 builds it)
    with pytest.raises(fluid.core.EnforceNotMet, match=r"target_tensor \[4, 4\] is not X \[2, 3\] tiled"):
        run(prog, {"x": np.ones((2, 3), "float32"), "t": np.ones((4, 4), "float32")}, [out])


def test_integer_division_and_mod_follow_fluid(prog):
    x = layers.data("x", [3], dtype="int64", append_batch_size=False)
    y = layers.data("y", [3], dtype="int64", append_batch_size=False)
    q, m = layers.elementwise_floordiv(x, y), layers.elementwise_mod(x, y)
    got_q, got_m = run(prog, {"x": np.array([7, -7, 5]), "y": np.array([2, 2, -3])}, [q, m])
    assert got_q.tolist() == [3, -3, -1] and got_m.tolist() == [1, -1, 2]
    with pytest.raises(PeError, match="integer division by zero"):
        run(prog, {"x": np.array([1, 2, 3]), "y": np.array([1, 0, 1])}, [q])
    floats = layers.elementwise_floordiv(layers.data("f", [3]), layers.data("g", [3]))  # Fluid builds it
    with pytest.raises(PeError, match="elementwise_floordiv: X holds float32 values; it takes int32 or int64"):
        run(
            prog,
            {
                "x": np.ones(3, "int64"),
                "y": np.ones(3, "int64"),
                "f": np.ones((1, 3), "float32"),
                "g": np.ones((1, 3), "float32"),
            },
            [floats],
        )


def test_reduce_prod_gradient_through_a_zero(prog):
    x = layers.data("x", [3], dtype="float64", append_batch_size=False, stop_gradient=False)
    loss = layers.reduce_prod(x)
    dx = fluid.backward.gradients([loss], [x])[0]
    got = run(prog, {"x": np.array([2.0, 0.0, 5.0])}, [loss, dx])
    assert got[0].tolist() == [0.0] and got[1].tolist() == [0.0, 10.0, 0.0]


def test_autoincreased_step_counter_counts_runs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        counter = layers.autoincreased_step_counter(begin=5)
        again = layers.autoincreased_step_counter()
        doubled = layers.autoincreased_step_counter("twos", begin=1, step=2)
    assert again is counter and counter.dtype == "int64" and counter.persistable
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    got = [exe.run(main, fetch_list=[counter, doubled], scope=scope) for _ in range(3)]
    assert [int(c[0]) for c, _ in got] == [5, 6, 7]
    assert [int(d[0]) for _, d in got] == [2, 4, 6]  # Fluid starts from begin - 1


def test_random_crop_crops_anew_each_run_and_repeats_from_a_seed():
    def build():
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            x = layers.data("x", [1, 6, 6], dtype="float32")
            out = layers.random_crop(x, [2, 2], seed=5)
        return main, startup, out

    xv = np.arange(72, dtype=np.float32).reshape(2, 1, 6, 6)
    runs = []
    for _ in range(2):
        main, startup, out = build()
        assert out.shape == (-1, 1, 2, 2)
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        runs.append([exe.run(main, feed={"x": xv}, fetch_list=[out], scope=scope)[0] for _ in range(4)])
    for crops in runs[0]:
        for b in range(2):
            top, left = divmod(int(crops[b, 0, 0, 0]) - 36 * b, 6)
            np.testing.assert_array_equal(crops[b, 0], xv[b, 0, top : top + 2, left : left + 2])
    assert len({c.tobytes() for c in runs[0]}) > 1, "each run draws new offsets"
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)  # the same seed: the same sequence of crops


def test_hash_of_id_rows(prog):
    ids = layers.data("ids", [2], dtype="int32", lod_level=1)
    out = layers.hash(ids, hash_size=10000, num_hash=3)
    assert out.shape == (-1, 3, 1) and out.dtype == "int32" and out.lod_level == 1
    feed = fluid.create_lod_tensor(np.array([[1, 2], [3, -4]], np.int32), [[2]], fluid.CPUPlace())
    got = run(prog, {"ids": feed}, [out])[0]
    assert got.reshape(2, 3).tolist() == [[7722, 8407, 6337], [8005, 5505, 5775]]  # python-xxhash's XXH64
    with pytest.raises(PeError, match="hash_size must be an int > 0"):
        layers.hash(ids, hash_size=0)
    with pytest.raises(TypeError, match="hash_size must be an int"):  # Fluid's TypeErrors (test_hash_op.py)
        layers.hash(ids, hash_size=1024.5)
    with pytest.raises(TypeError, match="input"):
        layers.hash(layers.data("f", [1], dtype="float32", lod_level=1), hash_size=10)
