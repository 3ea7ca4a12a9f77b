"""prelu, instance_norm, group_norm and conv2d_transpose as Fluid 1.8 users call them: parameters
(shapes, initial values), output shapes, mistakes at build time, and a training step that moves the
parameters (numerics: their op cases)."""
import numpy as np
import pytest

import pe_cli.fluid as fluid
from pe_cli.errors import PeError

layers = fluid.layers


@pytest.fixture
def progs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        yield main, startup


def _params(main):
    return {p.name: p for p in main.global_block().all_parameters()}


def _run(progs, feed, fetch, train_loss=None):
    main, startup = progs
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope), scope


def test_prelu_modes_parameters_and_values(progs):
    main, _ = progs
    x = layers.data("x", [3, 2, 2], dtype="float32")
    outs = [layers.prelu(x, mode) for mode in ("all", "channel", "element")]
    shapes = sorted(tuple(p.shape) for p in _params(main).values())
    assert shapes == [(1,), (1, 3, 1, 1), (1, 3, 2, 2)]
    assert all(o.shape == x.shape for o in outs)
    xv = np.random.default_rng(0).normal(size=(2, 3, 2, 2)).astype(np.float32)
    got, _ = _run(progs, {"x": xv}, outs)
    want = np.where(xv > 0, xv, 0.25 * xv)
    for g in got:
        np.testing.assert_allclose(g, want, rtol=1e-6)


def test_prelu_mistakes(progs):
    x = layers.data("x", [3, 2, 2], dtype="float32")
    with pytest.raises(PeError, match="mode='chanel' must be"):
        layers.prelu(x, "chanel")
