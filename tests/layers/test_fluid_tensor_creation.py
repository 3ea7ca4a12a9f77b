"""Fluid 1.8's creation and random names of ``fluid.layers`` (arange, full, full_like, linspace,
meshgrid, diag_embed, tril, triu, randn, randint, randperm), by its parameter names and defaults:
values against numpy, and the errors Fluid raises for bad arguments. One program, one run."""

import numpy as np
import pytest

import pe_cli.fluid as fluid

layers = fluid.layers
X = np.arange(12, dtype="float32").reshape(3, 4) - 5


@pytest.fixture(scope="module")
def got():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [3, 4], dtype="float32", append_batch_size=False)
        out = layers.create_tensor("float32")
        outs = {
            "arange": layers.arange(2, 11, 3),
            "arange_f": layers.arange(0.0, 1.0, 0.25),
            "full": layers.full([2, 3], 1.5),
            "full_out": layers.full([2], 4.0, out=out, dtype="float32"),
            "full_like": layers.full_like(x, 7, dtype="int32"),
            "linspace": layers.linspace(0, 1, 5, "float64"),
            "grid": layers.meshgrid([layers.arange(0, 3), layers.arange(0, 2)]),
            "diag_embed": layers.diag_embed(x, offset=1),
            "tril": layers.tril(x, diagonal=-1),
            "triu": layers.triu(input=x, diagonal=1),
            "randn": layers.randn([200, 50], dtype="float64"),
            "randint": layers.randint(3, 7, shape=[1000], seed=5),
            "randint_low": layers.randint(4),
            "randperm": layers.randperm(9, dtype="int32", seed=3),
        }
    grid = outs.pop("grid")
    names = list(outs)
    values = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": X}, fetch_list=[outs[n] for n in names] + grid, scope=fluid.Scope()
    )
    result = dict(zip(names, values))
    result["grid"] = values[len(names) :]
    return result


def test_filled_and_ranges(got):
    np.testing.assert_array_equal(got["arange"], [2, 5, 8])
    assert got["arange"].dtype == np.int64 and got["arange_f"].dtype == np.float32
    np.testing.assert_array_equal(got["arange_f"], [0, 0.25, 0.5, 0.75])
    np.testing.assert_array_equal(got["full"], np.full((2, 3), 1.5, "float32"))
    np.testing.assert_array_equal(got["full_out"], [4.0, 4.0])
    np.testing.assert_array_equal(got["full_like"], np.full((3, 4), 7, "int32"))
    assert got["full_like"].dtype == np.int32
    np.testing.assert_allclose(got["linspace"], np.linspace(0, 1, 5))
    assert got["linspace"].dtype == np.float64
    for a, b in zip(got["grid"], np.meshgrid(np.arange(3), np.arange(2), indexing="ij")):
        np.testing.assert_array_equal(a, b)


def test_matrix_parts(got):
    want = np.stack([np.diag(row, 1) for row in X])
    np.testing.assert_array_equal(got["diag_embed"], want)
    np.testing.assert_array_equal(got["tril"], np.tril(X, -1))
    np.testing.assert_array_equal(got["triu"], np.triu(X, 1))


def test_random_draws(got):
    assert got["randn"].dtype == np.float64 and abs(got["randn"].mean()) < 0.05 and abs(got["randn"].std() - 1) < 0.05
    r = got["randint"]
    assert r.dtype == np.int64 and set(np.unique(r)) == {3, 4, 5, 6}
    assert got["randint_low"].shape == (1,) and 0 <= got["randint_low"][0] < 4
    assert got["randperm"].dtype == np.int32 and sorted(got["randperm"]) == list(range(9))


def test_bad_arguments_raise_what_fluid_raises():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = layers.data("x", [3], dtype="float32", append_batch_size=False)
        with pytest.raises(TypeError, match="python Int"):
            layers.tril(layers.unsqueeze(x, [0]), diagonal=0.5)
        with pytest.raises(ValueError, match="at least 2-D"):
            layers.triu(x)
        with pytest.raises(TypeError, match="float32 or float64"):
            layers.linspace(0, 1, 3, "int32")
        with pytest.raises(TypeError, match="dtype"):
            layers.randn([2], dtype="int64")
        with pytest.raises(ValueError, match="smaller than high"):
            layers.randint(5, 5)
        with pytest.raises(ValueError, match="n=0"):
            layers.randperm(0)
        with pytest.raises(ValueError, match="device"):
            layers.full([1], 0.0, device="tpu")
        with pytest.raises(TypeError, match="input"):
            layers.meshgrid(x)
        with pytest.raises(ValueError, match="different dims"):
            layers.diag_embed(x, dim1=0, dim2=-2)
