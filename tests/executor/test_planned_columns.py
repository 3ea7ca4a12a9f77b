"""A regression head, a product by a column and a row's product by a matrix are launched in planned steps: fc to
one value (mul's [16, 13] x [13, 1]: numpy's matmul calls its BLAS's GEMV for it, and a launch calls the same
function with the same arguments, _blas_loops.gemv_column), the squared error (square and its gradient, loops
compiled from their row) and their gradients (W@GRAD a transposed matrix by a column); matmul by a transposed
[1, 13] column (its gradient swapped back: the same values in order) and a [1, 13] row by a matrix (m 1: numpy's
GEMV of the matrix transposed) and its gradient (a row by a transposed matrix); the bits of
op by op, every op launched, float32 and float64."""

import numpy as np
import pytest

from pe_cli import fluid

from .test_planned_step import all_launched_in_bits, compiled_segments  # noqa: F401 (a fixture)

STEPS = 3


def run(monkeypatch, planned, dtype):
    monkeypatch.setenv("PE_PLANNED_STEP", "1" if planned else "0")
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [13], dtype=dtype)
        y = fluid.layers.data("y", [1], dtype=dtype)
        h = fluid.layers.fc(x, 13, act="relu")
        u = fluid.layers.create_parameter([1, 13], dtype, name="u")
        r = fluid.layers.create_parameter([1, 13], dtype, name="r")
        w = fluid.layers.create_parameter([13, 16], dtype, name="w")
        column = fluid.layers.matmul(h, u, transpose_y=True)  # [16, 1]: U@GRAD [13, 1] swapped back into [1, 13]
        row = fluid.layers.matmul(r, w)  # [1, 16]
        pred = fluid.layers.fc(h, 1) + column + fluid.layers.transpose(row, [1, 0])
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        fluid.optimizer.SGD(0.01).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    rng, fetched = np.random.default_rng(4), []
    for _ in range(STEPS):
        feed = {"x": rng.standard_normal((16, 13)).astype(dtype), "y": rng.standard_normal((16, 1)).astype(dtype)}
        fetched.append(exe.run(main, feed=feed, fetch_list=[loss, pred], scope=scope))
    fetched.append([np.array(scope.get_array(p.name)) for p in main.all_parameters()])
    return fetched, exe


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_columns_rows_and_squares_are_launched(monkeypatch, dtype):
    from pe_cli.kernels.cpu import _activation_row_loops, _blas_loops

    planned, exe = run(monkeypatch, True, dtype)
    unplanned, _ = run(monkeypatch, False, dtype)
    ops = all_launched_in_bits(planned, unplanned, exe)
    gemv = [t for t, launches in ops for launch in launches if launch.fn is _blas_loops.gemv_column]
    assert sorted(gemv) == ["matmul", "matmul", "matmul_grad", "matmul_grad", "mul", "mul_grad"]
    fns = {t: [launch.fn for launch in launches] for t, launches in ops}
    assert fns["square"] == [_activation_row_loops.square] and fns["square_grad"] == [_activation_row_loops.square_grad]
