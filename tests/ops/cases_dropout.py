"""Op cases for dropout (ops/dropout.py): random, so checked by the properties of its outputs and
mask; at test time against its scaling."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(1)


def r(*shape):
    return rng.normal(size=shape)


def _dropout_check(p, upscale=False, ratio=True):
    def check(outs, inputs):
        x, out, mask = inputs["X"], outs["Out"], outs["Mask"]
        assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 1}
        scale = 1.0 / (1.0 - p) if upscale and p < 1 else 1.0
        np.testing.assert_allclose(out, x * mask * scale, rtol=1e-6)
        kept = mask.mean()
        assert not ratio or abs(kept - (1 - p)) < 0.05, f"kept {kept:.3f} of the elements, expected about {1 - p}"

    return check


X_BIG = r(60, 50)

CASES = [
    # dropout
    OpCase(
        "dropout",
        {"X": X_BIG},
        outputs=("Out", "Mask"),
        check=_dropout_check(0.3),
        attrs={"dropout_prob": 0.3},
        name="dropout_train",
    ),
    OpCase(
        "dropout",
        {"X": X_BIG},
        outputs=("Out", "Mask"),
        check=_dropout_check(0.4, upscale=True),
        attrs={"dropout_prob": 0.4, "dropout_implementation": "upscale_in_train"},
        name="dropout_upscale",
    ),
    OpCase(
        "dropout",
        {"X": r(3, 4)},
        outputs=("Out", "Mask"),
        check=_dropout_check(0.0),
        attrs={"dropout_prob": 0.0},
        name="dropout_p0",
    ),
    OpCase(
        "dropout",
        {"X": r(3, 4)},
        lambda i, a: {"Out": np.zeros((3, 4))},
        attrs={"dropout_prob": 1.0},
        name="dropout_p1",
    ),
    OpCase(
        "dropout",
        {"X": r(3, 4)},
        lambda i, a: {"Out": i["X"] * 0.75},
        attrs={"dropout_prob": 0.25, "is_test": True},
        grad=("X",),
        name="dropout_is_test_downgrade",
    ),
    OpCase(
        "dropout",
        {"X": r(3, 4)},
        lambda i, a: {"Out": i["X"]},
        grad=("X",),
        name="dropout_is_test_upscale",
        attrs={"dropout_prob": 0.25, "is_test": True, "dropout_implementation": "upscale_in_train"},
    ),
    OpCase(
        "dropout",
        {"X": r(5, 6)},
        outputs=("Out", "Mask"),
        check=_dropout_check(0.5, True, ratio=False),
        attrs={"dropout_prob": 0.5, "fix_seed": True, "seed": 11, "dropout_implementation": "upscale_in_train"},
        grad=("X",),
        name="dropout_fix_seed_grad",
    ),
]


def _seeded_check(seed, p):
    """A Seed input seeds the mask: the draws of numpy's Generator seeded with it, whatever fix_seed says
    (two dropouts reading one seed op's value drop the same units: RecomputeOptimizer's recomputation)."""

    def check(outs, inputs):
        _dropout_check(p, ratio=False)(outs, inputs)
        want = np.random.default_rng(seed).random(inputs["X"].shape, dtype=np.float32) >= np.float32(p)
        np.testing.assert_array_equal(outs["Mask"], want.astype(np.uint8))

    return check


CASES += [
    OpCase(
        "dropout",
        {"X": r(5, 6), "Seed": np.array([123], dtype=np.int32)},
        outputs=("Out", "Mask"),
        check=_seeded_check(123, 0.5),
        attrs={"dropout_prob": 0.5, "fix_seed": True, "seed": 11},
        grad=("X",),
        name="dropout_seed_input",
    ),
]
