"""Op cases for family elementwise: the binary elementwise ops with Fluid's axis broadcasting (and
numpy's), elementwise_floordiv / _mod, scale, sum, clip, clip_by_norm, isfinite / isinf / isnan, minus."""

import numpy as np

from op_test import OpCase

rng = np.random.default_rng(17)


def r(*shape):
    return rng.normal(size=shape)


def away_from(x, y, gap=0.1):
    """x moved so that |x - y| >= gap everywhere (max/min have kinks where they tie)."""
    d = x - y
    return np.where(np.abs(d) < gap, y + np.copysign(gap, d) + d, x)


def _fluid_y(x, y, axis):
    """Y reshaped to broadcast into X the way Fluid's axis rule does."""
    if axis == -1 or y.ndim >= x.ndim:
        return y
    return y.reshape((1,) * axis + y.shape + (1,) * (x.ndim - axis - y.ndim))


def _fluid_pair(x, y, axis):
    """X and Y reshaped to broadcast: the one of fewer dims placed in the other from ``axis`` on."""
    return _fluid_y(y, x, axis), _fluid_y(x, y, axis)


_FNS = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
    "pow": np.power,
}


def case(name, x, y, axis=-1, suffix="", grad=("X", "Y"), **kw):
    fn = _FNS[name]
    return OpCase(
        f"elementwise_{name}",
        {"X": x, "Y": y},
        lambda i, a: {"Out": fn(*_fluid_pair(i["X"], i["Y"], a["axis"]))},
        attrs={"axis": axis},
        grad=grad,
        name=f"elementwise_{name}{suffix}",
        **kw,
    )


_X = r(2, 3, 4)
_Y3 = r(3)
_Y34 = r(3, 4)
_Y31 = r(3, 1)
_Y23 = r(2, 3)

CASES = [
    case("sub", r(2, 3), r(2, 3)),
    case("sub", _X, _Y3, axis=1, suffix="_axis1"),
    case("sub", r(4), r(2, 3, 4), suffix="_numpy_broadcast"),
    case("add", _X, _Y31, axis=1, suffix="_axis1_trailing_one"),
    case("add", _X, r(4), suffix="_last"),
    case("add", _Y34, _X, axis=1, suffix="_x_smaller_axis"),  # X placed in Y: Out is Y's shape
    case("sub", _Y3, _X, axis=1, suffix="_x_smaller_mid"),
    case("mul", r(3, 1), _X, axis=1, suffix="_x_smaller_ones"),
    case("add", r(3, 3), r(3, 3), axis=1, suffix="_equal_shapes_axis1"),  # Fluid ignores axis then
    case("mul", r(2, 3), r(2, 3)),
    case("mul", _X, _Y34, axis=1, suffix="_axis1"),
    case("mul", _X, r(2), axis=0, suffix="_axis0"),
    case("mul", r(2, 3, 4), r(1, 3, 1), suffix="_ones_numpy"),
    case("div", r(2, 3), rng.uniform(0.5, 2.0, (2, 3)) * np.sign(r(2, 3))),
    case("div", _X, rng.uniform(0.5, 2.0, (3, 4)), axis=1, suffix="_axis1"),
    case("max", away_from(r(2, 3), _Y23), _Y23),
    case("max", away_from(_X, _Y3.reshape(1, 3, 1)), _Y3, axis=1, suffix="_axis1"),
    case("min", away_from(_X, _Y34), _Y34, suffix="_trailing"),
    case("min", away_from(r(3, 4), np.full((3, 4), 0.2)), np.array([0.2]), suffix="_scalar_y"),
    case("pow", rng.uniform(0.5, 2.0, (2, 3)), r(2, 3)),
    case("pow", rng.uniform(0.5, 2.0, (2, 3, 4)), rng.uniform(1.0, 3.0, (3,)), axis=1, suffix="_axis1"),
    OpCase(
        "elementwise_max",
        {"X": np.array([[1.0, 2.0, 3.0]]), "Y": np.array([[1.0, 0.0, 5.0]])},
        lambda i, a: {"Out": np.array([[1.0, 2.0, 5.0]])},
        name="elementwise_max_tie",
    ),
    OpCase(
        "elementwise_mul",
        {"X": r(2, 3).astype(np.float32), "Y": r(3).astype(np.float32)},
        lambda i, a: {"Out": (i["X"] * i["Y"]).astype(np.float32)},
        name="elementwise_mul_float32",
        rtol=1e-6,
        atol=1e-7,
    ),
    OpCase(
        "elementwise_add",
        {"X": np.array([[1, 2], [3, 4]], dtype=np.int64), "Y": np.array([10, 20])},
        lambda i, a: {"Out": np.array([[11, 22], [13, 24]])},
        name="elementwise_add_int64",
    ),
]


def _clip_by_norm(i, a):
    x = i["X"]
    norm = np.sqrt((x**2).sum())
    return {"Out": x * a["max_norm"] / norm if norm > a["max_norm"] else x}


_special = np.array([[1.0, np.inf], [np.nan, -2.0]])
CASES += [
    OpCase(
        "elementwise_add",
        {"X": r(2, 3, 4), "Y": r(3)},
        name="elementwise_add_axis1",
        ref=lambda i, a: {"Out": i["X"] + i["Y"].reshape(1, 3, 1)},
        attrs={"axis": 1},
        grad=("X", "Y"),
    ),
    OpCase("elementwise_add", {"X": r(2, 3), "Y": r(2, 3)}, lambda i, a: {"Out": i["X"] + i["Y"]}, grad=("X", "Y")),
    OpCase(
        "scale",
        {"X": r(3, 4)},
        lambda i, a: {"Out": 2.5 * i["X"] + 1.0},
        attrs={"scale": 2.5, "bias": 1.0},
        grad=("X",),
    ),
    OpCase(
        "scale",
        {"X": r(3, 4), "ScaleTensor": np.array([-1.5])},
        lambda i, a: {"Out": -1.5 * i["X"] + 1.0},
        attrs={"scale": 2.5, "bias": 1.0},
        grad=("X",),
        name="scale_tensor",
    ),  # the tensor wins (Fluid 1.8)
    OpCase("sum", {"X": [r(2, 3), r(2, 3), r(2, 3)]}, lambda i, a: {"Out": sum(i["X"])}, grad=("X",)),
    *(  # two (one pass), four (one pass), five to seven (passes of up to four, then two, then one): numpy's order
        OpCase(
            "sum",
            {"X": [r(*shape).astype(dtype) for _ in range(count)]},
            lambda i, a: {"Out": sum(i["X"])},
            grad=("X",) if dtype == np.float64 else (),  # (gradient checks run in float64)
            name=f"sum_{count}_{np.dtype(dtype).name}",
        )
        for count, shape, dtype in [
            (2, (4, 5), np.float32),
            (4, (3, 4), np.float64),
            (5, (2, 3, 4), np.float32),
            (6, (3, 3), np.float64),
            (7, (5,), np.float32),
        ]
    ),
    OpCase(
        "clip",
        {"X": np.array([[-2.0, -0.9, -0.3, 0.2], [0.6, 0.75, 1.4, 3.0]])},
        lambda i, a: {"Out": np.clip(i["X"], -0.5, 0.7)},
        attrs={"min": -0.5, "max": 0.7},
        grad=("X",),
    ),
    OpCase(
        "clip",
        {"X": r(3, 4).astype(np.float32)},
        lambda i, a: {"Out": np.clip(i["X"], -1.0, 1.0).astype(np.float32)},
        attrs={"min": -1.0, "max": 1.0},
        name="clip_float32",
    ),
    OpCase("clip_by_norm", {"X": r(3, 4)}, _clip_by_norm, attrs={"max_norm": 1.0}),
    OpCase("clip_by_norm", {"X": 0.01 * r(3, 4)}, _clip_by_norm, attrs={"max_norm": 1.0}, name="clip_by_norm_inside"),
    OpCase("isfinite", {"X": r(2, 3)}, lambda i, a: {"Out": np.array([True])}),
    OpCase("isfinite", {"X": _special}, lambda i, a: {"Out": np.array([False])}, name="isfinite_special"),
    OpCase("isinf", {"X": _special}, lambda i, a: {"Out": np.array([True])}),
    OpCase("isinf", {"X": np.array([1.0, np.nan])}, lambda i, a: {"Out": np.array([False])}, name="isinf_nan_only"),
    OpCase("isnan", {"X": _special.astype(np.float32)}, lambda i, a: {"Out": np.array([True])}),
    OpCase("isnan", {"X": np.array([1.0, -np.inf])}, lambda i, a: {"Out": np.array([False])}, name="isnan_inf_only"),
    OpCase(
        "elementwise_floordiv",
        {"X": np.array([[7, -7, 6], [-9, 0, 5]], dtype=np.int64), "Y": np.array([2, 2, -4], dtype=np.int64)},
        lambda i, a: {"Out": np.array([[3, -3, -1], [-4, 0, -1]], dtype=np.int64)},
    ),
    OpCase(
        "elementwise_floordiv",
        {"X": np.array([[9, 8], [7, 6], [5, 4]], dtype=np.int32), "Y": np.array([2, 3, 4], dtype=np.int32)},
        lambda i, a: {"Out": np.array([[4, 4], [2, 2], [1, 1]], dtype=np.int32)},
        attrs={"axis": 0},
        name="elementwise_floordiv_axis0_int32",
    ),
    OpCase(
        "elementwise_mod",
        {"X": np.array([7, -7, 7, -7, 6], dtype=np.int64), "Y": np.array([3, 3, -3, -3, 3], dtype=np.int64)},
        lambda i, a: {"Out": np.array([1, -1, 1, -1, 0], dtype=np.int64)},
    ),
    OpCase(
        "elementwise_mod",
        {"X": np.array([[5.5, -5.5], [1.0, -3.0]]), "Y": np.array([2.0, -2.0])},
        lambda i, a: {"Out": np.mod(i["X"], i["Y"])},
        name="elementwise_mod_float",
    ),
]


# Fluid 1.8's attributes given by tensors (pe_cli/kernels/tensor_attrs.py): the tensor holds a value other
# than the attribute's, so a kernel that read the attribute fails the reference.
def _kept_off(x, *bounds):
    """x with no value within 0.05 of a clip bound (the gradient jumps there)."""
    for b in bounds:
        x = np.where(np.abs(x - b) < 0.05, b + 0.1, x)
    return x


CASES += [
    OpCase(
        "clip",
        {"X": _kept_off(rng.uniform(-1.0, 1.0, (4, 5)), -0.3, 0.4), "Min": np.array([-0.3]), "Max": np.array([0.4])},
        lambda i, a: {"Out": np.clip(i["X"], -0.3, 0.4)},
        attrs={"min": -5.0, "max": 5.0},
        grad=("X",),
        name="clip_min_max_tensors",
    ),
]
CASES += [  # no attributes at all: the tensors' values as they are (floats)
    OpCase(
        "clip",
        {
            "X": _kept_off(rng.uniform(-1.0, 1.0, (3, 4)), -0.25, 0.35),
            "Min": np.array([-0.25]),
            "Max": np.array([0.35]),
        },
        lambda i, a: {"Out": np.clip(i["X"], -0.25, 0.35)},
        name="clip_tensors_only",
    ),
]


# elementwise_div's gradient op has a gradient: Fluid's one elementwise_div_grad_grad op, against finite
# differences of X@GRAD = dOut / Y and Y@GRAD = -(dOut Out / Y) summed to Y's shape (Out an input here)
def _div_grad_ref(i, a):
    y = _fluid_y(i["X"], i["Y"], a["axis"])
    dy = -i["Out@GRAD"] * i["Out"] / y
    return {
        "X@GRAD": i["Out@GRAD"] / y,
        "Y@GRAD": dy.sum(axis=tuple(k for k in range(dy.ndim) if y.shape[k] == 1)).reshape(i["Y"].shape),
    }


_Y_POS = rng.uniform(1.0, 2.0, size=3)
CASES += [
    OpCase(
        "elementwise_div_grad",
        {"X": r(2, 3, 2), "Y": _Y_POS, "Out": r(2, 3, 2), "Out@GRAD": r(2, 3, 2)},
        _div_grad_ref,
        attrs={"axis": 1},
        grad=("Y", "Out", "Out@GRAD"),
        name="elementwise_div_grad_double",
    ),
    OpCase(
        "elementwise_div_grad",
        {"X": r(2, 3), "Y": rng.uniform(1.0, 2.0, size=(2, 3)), "Out": r(2, 3), "Out@GRAD": r(2, 3)},
        lambda i, a: {"Y@GRAD": -i["Out@GRAD"] * i["Out"] / i["Y"]},
        outputs=("Y@GRAD",),
        grad=("Y", "Out", "Out@GRAD"),
        name="elementwise_div_grad_double_y_only",
    ),
]

_G = np.array([[3.0, 4.0], [0.0, 12.0]])  # ||G|| = 13
CASES += [
    OpCase(
        "dgc_clip_by_norm",
        {"current_step": np.array([5.0]), "X": _G},
        lambda i, a: {"Out": i["X"] * (2.0 / 13.0)},
        attrs={"max_norm": 2.0, "rampup_begin_step": 5.0},
    ),
    OpCase(
        "dgc_clip_by_norm",
        {"current_step": np.array([4.0]), "X": _G},
        lambda i, a: {"Out": i["X"]},
        attrs={"max_norm": 2.0, "rampup_begin_step": 5.0},
        name="dgc_clip_by_norm_before_rampup",
    ),
]
CASES.append(OpCase("minus", {"X": r(2, 3), "Y": r(2, 3)}, lambda i, a: {"Out": i["X"] - i["Y"]}, grad=("X", "Y")))

# grad_add (Paddle 2.x's, elementwise_add's kernel): Paddle 2.6.2's recorded values
from tests.ops.paddle26 import recorded_cases  # noqa: E402

CASES += recorded_cases("elementwise")
