"""Op cases for the binary elementwise ops with Fluid's axis broadcasting (and numpy's)."""
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


_FNS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
        "max": np.maximum, "min": np.minimum, "pow": np.power}


def case(name, x, y, axis=-1, suffix="", grad=("X", "Y"), **kw):
    fn = _FNS[name]
    return OpCase(f"elementwise_{name}", {"X": x, "Y": y},
                  lambda i, a: {"Out": fn(i["X"], _fluid_y(i["X"], i["Y"], a["axis"]))},
                  attrs={"axis": axis}, grad=grad, name=f"elementwise_{name}{suffix}", **kw)


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
    case("add", r(3, 3), r(3, 3), axis=1, suffix="_equal_shapes_axis1"),     # Fluid ignores axis then
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
    OpCase("elementwise_max", {"X": np.array([[1.0, 2.0, 3.0]]), "Y": np.array([[1.0, 0.0, 5.0]])},
           lambda i, a: {"Out": np.array([[1.0, 2.0, 5.0]])}, name="elementwise_max_tie"),
    OpCase("elementwise_mul", {"X": r(2, 3).astype(np.float32), "Y": r(3).astype(np.float32)},
           lambda i, a: {"Out": (i["X"] * i["Y"]).astype(np.float32)}, name="elementwise_mul_float32",
           rtol=1e-6, atol=1e-7),
    OpCase("elementwise_add", {"X": np.array([[1, 2], [3, 4]], dtype=np.int64), "Y": np.array([10, 20])},
           lambda i, a: {"Out": np.array([[11, 22], [13, 24]])}, name="elementwise_add_int64"),
]
