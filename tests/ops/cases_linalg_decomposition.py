"""Op cases for family linalg_decomposition: svd (np.linalg.svd; the gradient through U, S and VH of
tall, wide and batched matrices against finite differences) and lstsq (np.linalg.lstsq per matrix,
with Paddle's empty outputs per driver)."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(11)


def _svd_ref(i, a):
    u, s, vh = np.linalg.svd(i["X"], full_matrices=a.get("full_matrices", False))
    return {"U": u, "S": s, "VH": vh}


def _lstsq_ref(driver, rcond):
    def ref(i, a):
        x, y = i["X"], i["Y"]
        batch = x.shape[:-2]
        xs, ys = x.reshape((-1,) + x.shape[-2:]), y.reshape((-1,) + y.shape[-2:])
        outs = [np.linalg.lstsq(p, q, rcond=rcond) for p, q in zip(xs, ys)]
        m, n = x.shape[-2:]
        res = {"Solution": np.stack([o[0] for o in outs]).reshape(batch + (n, y.shape[-1]))}
        full = all(o[1].size for o in outs)
        res["Residuals"] = np.stack([o[1] for o in outs]).reshape(batch + (y.shape[-1],)) if full else np.zeros(0)
        res["Rank"] = (
            np.array([o[2] for o in outs], "int32").reshape(batch or (1,)) if driver != "gels" else np.zeros(0, "int32")
        )
        res["SingularValues"] = (
            np.stack([o[3] for o in outs]).reshape(batch + (min(m, n),))
            if driver in ("gelsd", "gelss")
            else np.zeros(0)
        )
        return res

    return ref


_RANK2 = rng.normal(size=(6, 2)) @ rng.normal(size=(2, 4))  # rank 2 of 4 columns

CASES = [
    OpCase("svd", {"X": rng.normal(size=(4, 3))}, _svd_ref, grad=("X",), name="svd_tall"),
    OpCase("svd", {"X": rng.normal(size=(3, 5))}, _svd_ref, grad=("X",), name="svd_wide"),
    OpCase("svd", {"X": rng.normal(size=(2, 3, 3))}, _svd_ref, grad=("X",), name="svd_batched"),
    OpCase("svd", {"X": rng.normal(size=(4, 3))}, _svd_ref, attrs={"full_matrices": True}, name="svd_full"),
    OpCase("svd", {"X": rng.normal(size=(4, 3))}, _svd_ref, grad=("X",), loss_outputs=("S",), name="svd_values"),
    OpCase(
        "lstsq",
        {"X": rng.normal(size=(5, 3)), "Y": rng.normal(size=(5, 2))},
        _lstsq_ref("gelsd", 1e-15),
        attrs={"rcond": 1e-15, "driver": "gelsd"},
        rtol=1e-9,
    ),
    OpCase(
        "lstsq",
        {"X": rng.normal(size=(2, 3, 6)), "Y": rng.normal(size=(2, 3, 4))},
        _lstsq_ref("gels", 1e-15),
        attrs={"rcond": 1e-15, "driver": "gels"},
        rtol=1e-9,
        name="lstsq_wide_batched_gels",
    ),
    OpCase(
        "lstsq",
        {"X": _RANK2, "Y": rng.normal(size=(6, 3))},
        _lstsq_ref("gelsy", 1e-10),
        attrs={"rcond": 1e-10, "driver": "gelsy"},
        rtol=1e-8,
        atol=1e-10,
        name="lstsq_rank_deficient_gelsy",
    ),
]
