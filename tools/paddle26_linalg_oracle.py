"""Paddle 2.6.2 as the oracle of ``paddle.linalg``'s one-op functions in a Paddle 2.x static program: det
(determinant; 0-D of one matrix), slogdet, eigh, eigvalsh (and ``paddle.eigvalsh``), eig, eigvals, qr, lu,
lu_unpack, solve, triangular_solve and cholesky_solve. Outputs that are not unique are recorded through what
is (eigh's eigenvalues, real of a complex Hermitian x too, and V diag(w) V^T, qr's Q R and |Q|, |R|; the gradient of a wide matrix's too; eigvalsh's of a complex Hermitian matrix built from float inputs); eig's eigenvalues and vectors of a matrix
with distinct real eigenvalues are LAPACK's in both engines. Values, dtypes, shapes and the float inputs'
gradients go to tests/data/paddle_oracle/linalg26.json with tools/paddle_function_oracle.py's runner;
tests/paddle/test_paddle_function_oracle.py replays them on pe.

    /work/p26/bin/python tools/paddle26_linalg_oracle.py    # paddlepaddle==2.6.2"""

import importlib.util
import os

import numpy as np

_HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "paddle_function_oracle", os.path.join(_HERE, "paddle_function_oracle.py")
)
base = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(base)
case = base._case

OUT = os.path.join(os.path.dirname(_HERE), "tests", "data", "paddle_oracle", "linalg26.json")

A = np.array([[2.0, -1.0, 0.5], [0.25, 3.0, -2.0], [1.5, 0.75, -0.5]], "float64")
SYM = np.array([[4.0, 1.0, -0.5], [1.0, 3.0, 0.25], [-0.5, 0.25, 2.0]], "float32")
B = np.array([[1.0, 2.0], [-1.0, 0.5], [3.0, -2.0]], "float64")
VEC = np.array([1.0, -2.0, 0.5], "float64")
WIDE = np.arange(24, dtype="float32").reshape(2, 3, 4) * 0.3 - 2 + np.eye(3, 4, dtype="float32")
TALL = np.swapaxes(WIDE, -1, -2).astype("float64")
HERM = np.array([[2.0, 1 - 1j, 0.5j], [1 + 1j, 3.0, -0.25], [-0.5j, -0.25, 1.0]], "complex64")
GEN = np.array([[1.0 + 2j, -1.0, 0.5j], [0.25, 3.0 - 1j, -2.0], [1.5j, 0.75, -0.5]], "complex128")
BATCH = np.stack([np.eye(3) * 2 + 0.1, [[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [4.0, 0.0, 1.0]]]).astype("float32")


def _spd_factor(P, a, upper=False):
    return P.linalg.cholesky(P.matmul(a, a, transpose_y=True) + P.eye(3, dtype=a.dtype), upper=upper)


def _eigh_rebuilt(P, s, uplo="L"):
    w, v = P.linalg.eigh(s, UPLO=uplo)
    return [w, P.matmul(v * w.unsqueeze(0), v, transpose_y=True)]


def _hermitian(P, re, im):
    return P.complex(re + P.transpose(re, [1, 0]), im - P.transpose(im, [1, 0]))


CASES = {
    "det": case(lambda P, a: [P.linalg.det(a)], a=A),
    "det_batch": case(lambda P, b: [P.linalg.det(b)], b=BATCH, tolerance=(2e-5, 1e-5)),
    "slogdet": case(lambda P, a: [P.linalg.slogdet(a)], a=A),
    "slogdet_batch": case(lambda P, b: [P.linalg.slogdet(b)], b=BATCH, tolerance=(2e-5, 1e-5)),
    "eigh": case(lambda P, s: _eigh_rebuilt(P, s), s=SYM, tolerance=(2e-5, 1e-5)),
    "eigh_upper": case(lambda P, s: _eigh_rebuilt(P, s, "U"), s=SYM, tolerance=(2e-5, 1e-5)),
    "eigvalsh": case(lambda P, s: [P.linalg.eigvalsh(s), P.eigvalsh(s, "U")], s=SYM, tolerance=(2e-5, 1e-5)),
    "eig": case(lambda P, a: list(P.linalg.eig(a)), grad=False, a=A),
    "eigvals": case(lambda P, a, b: [P.linalg.eigvals(a), P.linalg.eigvals(b)], grad=False, a=A, b=BATCH),
    "eigh_complex": case(
        lambda P, h: [P.linalg.eigh(h)[0], P.linalg.eigvalsh(h, "U")], grad=False, h=HERM, tolerance=(2e-5, 1e-5)
    ),
    "eigvalsh_complex_gradient": case(
        lambda P, re, im: [P.linalg.eigvalsh(_hermitian(P, re, im)), P.linalg.eigh(_hermitian(P, re, im), "U")[0]],
        re=A,
        im=B[:, :1] * A,
    ),
    "eig_complex": case(lambda P, g: [P.linalg.eigvals(g), P.linalg.eig(g)[0]], grad=False, g=GEN),
    "solve": case(lambda P, a, b, v: [P.linalg.solve(a, b), P.linalg.solve(a, v)], a=A, b=B, v=VEC),
    "triangular_solve": case(
        lambda P, a, b: [
            P.linalg.triangular_solve(a, b),
            P.linalg.triangular_solve(a, b, upper=False, transpose=True),
            P.linalg.triangular_solve(a, b, unitriangular=True),
        ],
        a=A,
        b=B,
    ),
    "triangular_solve_broadcast": case(lambda P, a, t: [P.linalg.triangular_solve(a, t)], a=A, t=TALL[:, :3]),
    "cholesky_solve": case(
        lambda P, a, b: [
            P.linalg.cholesky_solve(b, _spd_factor(P, a)),
            P.linalg.cholesky_solve(b, _spd_factor(P, a, True), upper=True),
        ],
        a=A,
        b=B,
    ),
    "lu": case(lambda P, a, w: [*P.linalg.lu(a, get_infos=True), *P.linalg.lu(w)], grad=False, a=A, w=WIDE),
    "lu_pivot_false": case(lambda P, a: list(P.linalg.lu(a, pivot=False)), grad=False, a=A),
    "lu_unpack": case(
        lambda P, a, w: [*P.linalg.lu_unpack(*P.linalg.lu(a)), *P.linalg.lu_unpack(*P.linalg.lu(w))],
        grad=False,
        a=A,
        w=WIDE,
    ),
    "qr": case(lambda P, t: [P.matmul(*P.linalg.qr(t)), *[P.abs(m) for m in P.linalg.qr(t)]], t=TALL),
    "qr_wide": case(
        lambda P, w: [P.matmul(*P.linalg.qr(w)), *[P.abs(m) for m in P.linalg.qr(w)]], w=WIDE.astype("float64")
    ),
    "qr_complete": case(lambda P, t: [P.abs(m) for m in P.linalg.qr(t, mode="complete")], grad=False, t=TALL),
    "qr_r": case(
        lambda P, a, w: [P.abs(P.linalg.qr(a, mode="r")), P.abs(P.linalg.qr(w, "r"))], grad=False, a=A, w=WIDE
    ),
}

if __name__ == "__main__":
    base.main(CASES, OUT, "tools/paddle26_linalg_oracle.py")
