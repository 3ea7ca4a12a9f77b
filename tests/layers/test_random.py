"""fluid.layers.uniform_random / gaussian_random: shape, dtype, range, and the same values on every
run of a seeded program (as Fluid's seeded random ops)."""

import numpy as np

import pe_cli.fluid as fluid


def _run(build, seed=3):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = seed
    with fluid.program_guard(main, startup):
        out = build()
    exe = fluid.Executor(fluid.CPUPlace())
    return [exe.run(main, fetch_list=[out], scope=fluid.Scope())[0] for _ in range(2)]


def test_uniform_random_is_in_range_and_repeats_with_its_seed():
    a, b = _run(lambda: fluid.layers.uniform_random([200, 3], min=2.0, max=5.0))
    assert a.shape == (200, 3) and a.dtype == np.float32
    assert a.min() >= 2.0 and a.max() < 5.0 and a.std() > 0.5
    np.testing.assert_array_equal(a, b)


def test_gaussian_random_has_its_mean_and_std():
    a, _ = _run(lambda: fluid.layers.gaussian_random([4000], mean=1.0, std=2.0, dtype="float64"))
    assert a.dtype == np.float64
    assert abs(a.mean() - 1.0) < 0.15 and abs(a.std() - 2.0) < 0.15
