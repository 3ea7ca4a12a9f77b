"""Paddle 2.6.2 as the oracle of the gradients of complex products: elementwise_mul, elementwise_div,
matmul_v2 (plain and transposed), dot and abs (its gradient dOut * X / |X|, dOut real) on complex64 and complex128 inputs, each gradient of its inputs
for a given Out@GRAD (Paddle's: dX = dOut * conj(Y), dX = dOut @ conj(Y)^T, ...). Writes
tests/data/paddle_oracle/complex_grads.json (inputs and gradients as [real, imag] lists); tests/cuda/
test_cuda_complex_grads.py runs pe's CPU and CUDA grad kernels on the same inputs. CI never needs Paddle.

    /work/p26/bin/python tools/complex_grads_oracle.py    # paddlepaddle==2.6.2

Nothing here imports paddle at load time."""

import json
import os

import numpy as np

OUT = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data", "paddle_oracle", "complex_grads.json"
)
# name: (Paddle function, its op type, X shape, Y shape, attrs of the op, Out shape)
CASES = {
    "mul": ("multiply", "elementwise_mul", (2, 3), (3,), {"axis": -1}, (2, 3)),
    "div": ("divide", "elementwise_div", (2, 3), (2, 3), {"axis": -1}, (2, 3)),
    "matmul": ("matmul", "matmul_v2", (2, 3), (3, 4), {"trans_x": False, "trans_y": False}, (2, 4)),
    "matmul_t": ("matmul", "matmul_v2", (3, 2), (4, 3), {"trans_x": True, "trans_y": True}, (2, 4)),
    "matmul_batch": ("matmul", "matmul_v2", (2, 2, 3), (3, 2), {"trans_x": False, "trans_y": False}, (2, 2, 2)),
    "dot": ("dot", "dot", (2, 3), (2, 3), {}, (2,)),
    "kron": ("kron", "kron", (2, 3), (2, 2), {}, (4, 6)),
}


def _complex(rng, shape, dtype):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


def _parts(a):
    return [np.real(a).ravel().tolist(), np.imag(a).ravel().tolist()]


def _case(paddle, name, dtype, seed):
    fn, op_type, xs, ys, attrs, outs = CASES[name]
    rng = np.random.RandomState(seed)
    x, y, dout = _complex(rng, xs, dtype), _complex(rng, ys, dtype), _complex(rng, outs, dtype)
    tx, ty = (paddle.to_tensor(v, stop_gradient=False) for v in (x, y))
    kwargs = {"transpose_x": attrs["trans_x"], "transpose_y": attrs["trans_y"]} if fn == "matmul" else {}
    out = getattr(paddle, fn)(tx, ty, **kwargs)
    dx, dy = paddle.grad([out], [tx, ty], grad_outputs=[paddle.to_tensor(dout)])
    values = {"X": x, "Y": y, "Out": out.numpy(), "Out@GRAD": dout, "X@GRAD": dx.numpy(), "Y@GRAD": dy.numpy()}
    return {
        "op": op_type,
        "dtype": dtype,
        "attrs": attrs,
        "shapes": {k: list(v.shape) for k, v in values.items()},
        "values": {k: _parts(v) for k, v in values.items()},
    }


def _abs_case(paddle, dtype, seed):
    rng = np.random.RandomState(seed)
    x = _complex(rng, (2, 3), dtype)
    x[0, 0] = 0  # its gradient there: 0
    dout = rng.uniform(-1, 1, (2, 3)).astype(np.real(x).dtype)
    tx = paddle.to_tensor(x, stop_gradient=False)
    out = paddle.abs(tx)
    (dx,) = paddle.grad([out], [tx], grad_outputs=[paddle.to_tensor(dout)])
    values = {"X": x, "Out": out.numpy(), "Out@GRAD": dout, "X@GRAD": dx.numpy()}
    return {
        "op": "abs",
        "dtype": dtype,
        "attrs": {},
        "shapes": {k: list(v.shape) for k, v in values.items()},
        "values": {k: _parts(v) for k, v in values.items()},
    }


def main():
    import paddle

    cases = {}
    for i, name in enumerate(CASES):
        for dtype in ("complex64", "complex128"):
            cases[f"{name}-{dtype}"] = _case(paddle, name, dtype, 100 + i)
    for dtype in ("complex64", "complex128"):
        cases[f"abs-{dtype}"] = _abs_case(paddle, dtype, 99)
    with open(OUT, "w") as f:
        json.dump({"paddle": paddle.__version__, "cases": cases}, f, indent=0)
        f.write("\n")
    print(f"{len(cases)} cases -> {OUT}")


if __name__ == "__main__":
    main()
