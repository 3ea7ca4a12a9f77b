"""Op cases for ops/image.py's affine_grid and grid_sampler, against the numpy references of
Fluid's test_affine_grid_op.py / test_grid_sampler_op.py (bilinear, zero padding)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(61)


def _affine_ref(h, w, corners=True):
    def line(n):
        pts = np.linspace(-1, 1, n)
        return pts if corners else pts * (n - 1) / n

    def ref(i, a):
        theta = i["Theta"]
        xs, ys = np.meshgrid(line(w), line(h))
        base = np.stack([xs, ys, np.ones_like(xs)], axis=-1).reshape(-1, 3)
        return {"Output": np.stack([base @ t.T for t in theta]).reshape(len(theta), h, w, 2)}

    return ref


def _sampler_ref(corners=True):
    def ref(i, a):
        x, grid = i["X"], i["Grid"]
        n, c, h, w = x.shape
        out = np.zeros((n, c) + grid.shape[1:3])
        for b in range(n):
            for p in range(grid.shape[1]):
                for q in range(grid.shape[2]):
                    gx, gy = grid[b, p, q]
                    px = (gx + 1) * (w - 1) / 2 if corners else ((gx + 1) * w - 1) / 2
                    py = (gy + 1) * (h - 1) / 2 if corners else ((gy + 1) * h - 1) / 2
                    x0, y0 = int(np.floor(px)), int(np.floor(py))
                    for yy, xx, wt in (
                        (y0, x0, (x0 + 1 - px) * (y0 + 1 - py)),
                        (y0 + 1, x0, (x0 + 1 - px) * (py - y0)),
                        (y0, x0 + 1, (px - x0) * (y0 + 1 - py)),
                        (y0 + 1, x0 + 1, (px - x0) * (py - y0)),
                    ):
                        if 0 <= yy < h and 0 <= xx < w:
                            out[b, :, p, q] += x[b, :, yy, xx] * wt
        return {"Output": out}

    return ref


_theta = rng.uniform(-0.8, 0.8, (2, 2, 3))
_grid = rng.uniform(-1.2, 1.2, (2, 3, 4, 2))  # some points outside: zero padding

CASES = [
    OpCase("affine_grid", {"Theta": _theta}, _affine_ref(3, 4), attrs={"output_shape": [2, 5, 3, 4]}, grad=("Theta",)),
    OpCase(
        "affine_grid",
        {"Theta": _theta, "OutputShape": np.array([2, 1, 2, 5], dtype=np.int32)},
        _affine_ref(2, 5, corners=False),
        attrs={"align_corners": False},
        grad=("Theta",),
        name="affine_grid_shape_input_no_corners",
    ),
    OpCase("grid_sampler", {"X": rng.normal(size=(2, 3, 4, 5)), "Grid": _grid}, _sampler_ref(), grad=("X", "Grid")),
    OpCase(
        "grid_sampler",
        {"X": rng.normal(size=(2, 2, 3, 3)), "Grid": _grid},
        _sampler_ref(corners=False),
        attrs={"align_corners": False},
        grad=("X", "Grid"),
        name="grid_sampler_no_corners",
    ),
]

# Paddle 2.6.2 recorded (tools/paddle26_op_cases.py): the family's cases of issue 96
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("image")
