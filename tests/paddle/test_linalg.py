"""paddle.linalg (pe_cli/paddle/linalg.py) in static mode against numpy: svd, pinv (rank-deficient
too), cond for every p, lstsq per driver, matrix_rank, multi_dot, matrix_power; its errors are
Paddle's ValueErrors; what pe lacks is a one-line refusal. One program holds every check."""

import numpy as np
import pytest

from pe_cli.framework import program_release
from pe_cli import paddle
from pe_cli.base.errors import FluidUnsupported, PeError
from pe_cli.executor.scope import Scope

S, LA = paddle.static, paddle.linalg
rng = np.random.RandomState(7)
A = rng.rand(2, 4, 4)
TALL = rng.rand(6, 3)
LOWRANK = rng.rand(5, 2) @ rng.rand(2, 4)
B = rng.rand(6, 2)
P_ALL = ("fro", "nuc", 1, -1, np.inf, -np.inf, None, 2, -2)


@pytest.fixture(scope="module")
def results():
    old = program_release.follow_paddle2(True)  # Paddle 2.x programs (an empty fetch keeps its shape)
    try:
        main, startup = S.Program(), S.Program()
    finally:
        program_release.follow_paddle2(old)
    with S.program_guard(main, startup):
        a, tall = S.data("a", [2, 4, 4], "float64"), S.data("tall", [6, 3], "float64")
        low, b = S.data("low", [5, 4], "float64"), S.data("b", [6, 2], "float64")
        fetch = {
            "svd": LA.svd(tall),
            "pinv_low": LA.pinv(low),
            "pinv_a": LA.pinv(a),
            "rank_low": LA.matrix_rank(low),
            "dot": LA.multi_dot([a, a, a]),
            "pow": LA.matrix_power(a, -2),
            "lstsq_gelsd": LA.lstsq(tall, b, driver="gelsd"),
            "lstsq_gels": LA.lstsq(tall, b, driver="gels"),
        }
        fetch.update({f"cond_{p}": LA.cond(a, p) for p in P_ALL})
    names, flat = [], []
    for k, v in fetch.items():
        v = v if isinstance(v, tuple) else (v,)
        names.append((k, len(v)))
        flat += list(v)
    with S.scope_guard(Scope()):
        exe = S.Executor(paddle.CPUPlace())
        exe.run(startup)
        out = exe.run(main, feed={"a": A, "tall": TALL, "low": LOWRANK, "b": B}, fetch_list=flat)
    res, i = {}, 0
    for k, n in names:
        res[k] = out[i : i + n] if n > 1 else out[i]
        i += n
    return res


def test_svd_pinv_rank_and_products_match_numpy(results):
    u, s, vh = results["svd"]
    np.testing.assert_allclose(s, np.linalg.svd(TALL, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(u @ np.diag(s) @ vh, TALL, atol=1e-12)
    np.testing.assert_allclose(results["pinv_low"], np.linalg.pinv(LOWRANK), atol=1e-10)
    np.testing.assert_allclose(results["pinv_a"], np.linalg.pinv(A), rtol=1e-8, atol=1e-10)
    assert int(np.asarray(results["rank_low"]).reshape(-1)[0]) == 2
    np.testing.assert_allclose(results["dot"], A @ A @ A, rtol=1e-12)
    np.testing.assert_allclose(results["pow"], np.linalg.matrix_power(np.linalg.inv(A), 2), rtol=1e-8)


@pytest.mark.parametrize("p", P_ALL)
def test_cond_for_every_norm(results, p):
    np.testing.assert_allclose(np.asarray(results[f"cond_{p}"]).reshape(-1), np.linalg.cond(A, p), rtol=1e-9)


def test_lstsq_outputs_per_driver(results):
    sol, res, rank, sv = results["lstsq_gelsd"]
    want = np.linalg.lstsq(TALL, B, rcond=None)
    np.testing.assert_allclose(sol, want[0], rtol=1e-10)
    np.testing.assert_allclose(res, want[1], rtol=1e-10)
    assert int(rank) == 3
    np.testing.assert_allclose(sv, want[3], rtol=1e-12)
    sol, _, rank, sv = results["lstsq_gels"]
    np.testing.assert_allclose(sol, want[0], rtol=1e-10)
    assert rank.size == 0 and sv.size == 0


def test_errors_are_paddles():
    with S.program_guard(S.Program(), S.Program()):
        sq, wide = S.data("x", [3, 3], "float32"), S.data("w", [3, 5], "float32")
        for bad in ("f ro", "NUC", 0, 1.5):
            with pytest.raises(ValueError, match="unsupported"):
                LA.cond(sq, bad)
        with pytest.raises(ValueError, match="square"):
            LA.cond(wide, "fro")
        with pytest.raises(ValueError, match="nonempty"):
            LA.cond(S.data("e", [0, 3, 3], "float32"), 2)
        with pytest.raises(ValueError, match="driver"):
            LA.lstsq(sq, sq, driver="gesv")
        with pytest.raises(ValueError, match="same M"):
            LA.lstsq(sq, wide[:2], driver="gelsd")
        with pytest.raises(FluidUnsupported, match="paddle.linalg.cov"):
            LA.cov(sq)
        # the one-op functions' argument errors, of Paddle 2.6.2's types (AssertionError is det's and slogdet's)
        with pytest.raises(ValueError, match="square"):
            LA.eigh(wide)
        with pytest.raises(ValueError, match="UPLO"):
            LA.eigvalsh(sq, "X")
        with pytest.raises(ValueError, match="equal"):
            LA.eigvals(wide)
        with pytest.raises(AssertionError, match="square"):
            LA.det(wide)
        with pytest.raises(TypeError, match="slogdet"):
            LA.slogdet(S.data("h", [3, 3], "float16"))
        with pytest.raises(TypeError, match="'y' in solve"):
            LA.solve(sq, S.data("i", [3, 3], "int32"))
        with pytest.raises(TypeError, match="mode"):
            LA.qr(sq, mode=3)
        with pytest.raises(ValueError, match="Pivots"):
            LA.lu_unpack(sq, S.data("p", [], "int32"))


@pytest.mark.parametrize("fn", ["lu", "lu_unpack", "eig"])
def test_gradient_refused_not_zero(fn):
    """Paddle 2.6 differentiates lu and lu_unpack and pe does not yet: a backward pass through them stops in
    one line naming the op (as eig's), never a silent zero gradient."""
    with S.program_guard(S.Program(), S.Program()):
        x = S.data("x", [3, 3], "float64")
        x.stop_gradient = False
        out = {"lu": lambda: LA.lu(x)[0], "lu_unpack": lambda: LA.lu_unpack(*LA.lu(x))[1]}.get(
            fn, lambda: paddle.real(LA.eig(x)[0])
        )()
        with pytest.raises(PeError, match=f"{fn}: pe does not compute its gradient"):
            S.gradients([paddle.sum(out)], [x])


def test_names_as_paddles():
    """Where Paddle 2.6.2 holds the one-op functions besides paddle.linalg: paddle.tensor (and so Variable's
    methods, all but eigh) and the top level (eigvalsh alone)."""
    names = "det slogdet eigh eigvalsh eig eigvals qr lu lu_unpack solve triangular_solve cholesky_solve".split()
    with S.program_guard(S.Program(), S.Program()):
        x = S.data("x", [3, 3], "float32")
        methods = [n for n in names if hasattr(x, n)]
    assert methods == "eigvalsh eig eigvals qr lu lu_unpack solve cholesky_solve".split()
    assert [n for n in names if hasattr(paddle.tensor, n)] == ["eigh"] + methods
    assert [n for n in names if hasattr(paddle, n)] == ["eigvalsh"]
