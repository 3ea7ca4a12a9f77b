"""continuous_value_model (the cvm op): values as Fluid 1.8 computes them, and its gradient, which is
Fluid's rule rather than a derivative: Y@GRAD on the embedding columns, the CVM input (per row, or
per sequence for LoD input) on the show and click columns. Both kernels, CPU and CUDA (simulator)."""

import numpy as np
import pytest

import pe_cli.fluid as fluid
from op_test import OpCase, analytic_grads
from pe_cli.base.errors import ShapeError
from pe_cli.framework.lod_tensor import LoDTensor

rng = np.random.default_rng(5)
X = np.concatenate([rng.integers(0, 5, (5, 2)).astype(np.float64), rng.normal(size=(5, 3))], axis=1)


def _weights_grad(case, device):
    """(X@GRAD, the weights of the loss build_program made: sum(Y * w), so Y@GRAD = w)."""
    grads, _, names, weights, _ = analytic_grads(case, device)
    return grads[f"{names['X'][0]}@GRAD"], weights["w_Y"]


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("use_cvm", [True, False])
def test_cvm_gradient_is_fluids_rule(device, use_cvm):
    cvm = rng.normal(size=(5, 2))
    case = OpCase("cvm", {"X": X, "CVM": cvm}, attrs={"use_cvm": use_cvm}, outputs=("Y",), grad=("X",))
    dx, dy = _weights_grad(case, device)
    np.testing.assert_allclose(dx[:, :2], cvm, rtol=1e-12)
    np.testing.assert_allclose(dx[:, 2:], dy[:, 2:] if use_cvm else dy, rtol=1e-12)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_cvm_gradient_takes_one_cvm_row_per_sequence(device):
    cvm = np.array([[1.0, 2.0], [3.0, 4.0]])
    case = OpCase("cvm", {"X": LoDTensor(X, [[0, 2, 5]]), "CVM": cvm}, outputs=("Y",), grad=("X",))
    dx, _ = _weights_grad(case, device)
    np.testing.assert_allclose(dx[:, :2], cvm[[0, 0, 1, 1, 1]], rtol=1e-12)


def test_continuous_value_model_layer():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [5], dtype="float32")
        show_click = fluid.layers.data("sc", [2], dtype="float32")
        kept, dropped = (fluid.layers.continuous_value_model(x, show_click, use_cvm=u) for u in (True, False))
        assert kept.shape == (-1, 5) and dropped.shape == (-1, 3)
        with pytest.raises(ShapeError, match="CVM"):
            fluid.layers.continuous_value_model(x, fluid.layers.data("bad", [3], dtype="float32"))
    xv = X.astype(np.float32)
    got_kept, got_dropped = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": xv, "sc": xv[:, :2]}, fetch_list=[kept, dropped], scope=fluid.Scope()
    )
    np.testing.assert_allclose(got_kept[:, 0], np.log(xv[:, 0] + 1), rtol=1e-6)
    np.testing.assert_allclose(got_kept[:, 1], np.log(xv[:, 1] + 1) - np.log(xv[:, 0] + 1), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_dropped, xv[:, 2:])
