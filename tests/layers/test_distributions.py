"""fluid.layers distributions beyond Paddle's own test (tests/compat/fluid_distributions.py): samples
follow their distribution (Uniform within [low, high), Normal's moments), a Variable parameter's
samples take the run's batch size, and wrong arguments fail with Fluid's error types."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.layers import Categorical, MultivariateNormalDiag, Normal, Uniform

# Fluid's warning for each number or float64 array made a float32 variable
pytestmark = pytest.mark.filterwarnings("ignore:data type of argument only support float32")


def _run(build, feed=None):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup):
        fetch = build()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed or {}, fetch_list=fetch)


def test_uniform_samples_lie_in_low_high_with_its_moments():
    low, high = np.array([-1.0, 2.0], "float32"), np.array([1.0, 6.0], "float32")
    (draws,) = _run(lambda: [Uniform(low, high).sample([20000])])
    assert draws.shape == (20000, 2)
    assert (draws >= low).all() and (draws < high).all()
    np.testing.assert_allclose(draws.mean(0), (low + high) / 2, atol=0.05)
    np.testing.assert_allclose(draws.std(0), (high - low) / 12**0.5, rtol=0.03)


def test_normal_samples_have_loc_and_scale():
    (draws,) = _run(lambda: [Normal([0.5, -2.0], [1.0, 3.0]).sample([20000])])
    np.testing.assert_allclose(draws.mean(0), [0.5, -2.0], atol=0.1)
    np.testing.assert_allclose(draws.std(0), [1.0, 3.0], rtol=0.03)


def test_float_parameters_sample_the_shape_asked():
    u, n = _run(lambda: [Uniform(1.0, 2.0).sample([4, 5]), Normal(0.0, 1.0).sample([3])])
    assert u.shape == (4, 5) and n.shape == (3,)
    assert ((u >= 1) & (u < 2)).all()


def test_variable_parameters_sample_the_runs_batch():
    def build():
        loc = fluid.layers.data(name="loc", shape=[3])
        scale = fluid.layers.data(name="scale", shape=[3])
        return [Normal(loc, scale).sample([2]), Uniform(loc, loc + scale).sample([2])]

    loc = np.full((5, 3), 10.0, "float32")
    normal, uniform = _run(build, {"loc": loc, "scale": np.full((5, 3), 1e-3, "float32")})
    assert normal.shape == (2, 5, 3) and uniform.shape == (2, 5, 3)
    np.testing.assert_allclose(normal, 10.0, atol=0.01)
    assert ((uniform >= 10.0) & (uniform < 10.001)).all()


def test_categorical_and_multivariate_normal_of_known_values():
    # equal logits: entropy log 2, KL to itself 0; diag(0.4, 0.5): entropy 0.5 (2 (1 + log 2 pi) + log 0.2)
    def build():
        a = Categorical(np.array([[0.3, 0.3]], "float32"))
        # Variables: numpy arguments would be broadcast to one shape first, loc too ([2] -> [2, 2]), as Fluid's
        loc = fluid.layers.assign(np.array([0.3, 0.5], "float32"))
        m = MultivariateNormalDiag(loc, fluid.layers.assign(np.diag([0.4, 0.5]).astype("float32")))
        return [a.entropy(), a.kl_divergence(a), m.entropy(), m.kl_divergence(m)]

    ent, kl, m_ent, m_kl = _run(build)
    np.testing.assert_allclose(ent, [[np.log(2)]], rtol=1e-6)
    np.testing.assert_allclose(kl, [[0.0]], atol=1e-7)
    np.testing.assert_allclose(m_ent.ravel(), [0.5 * (2 * (1 + np.log(2 * np.pi)) + np.log(0.2))], rtol=1e-6)
    np.testing.assert_allclose(m_kl.ravel(), [0.0], atol=1e-6)


def test_wrong_arguments_fail_as_fluid():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data(name="x", shape=[3])
        with pytest.raises(TypeError, match="Uniform: low must be one of"):
            Uniform(1, 2.0)
        with pytest.raises(ValueError, match="all arguments should be Variable"):
            Normal(x, 1.0)
        with pytest.raises(TypeError, match="kl_divergence: other must be one of \\(Normal\\)"):
            Normal(0.0, 1.0).kl_divergence(Uniform(0.0, 1.0))
