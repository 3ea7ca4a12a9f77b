"""Op cases for attributes given by tensors (Fluid 1.8's; pe_cli/kernels/tensor_attrs.py): clip's Min/Max,
adam's Beta1Tensor/Beta2Tensor, concat's AxisTensor, slice's and strided_slice's StartsTensor(List) /
EndsTensor(List) / StridesTensor, batch_norm's MomentumTensor. Each case's tensor holds a value other
than the attribute's, so a kernel that read the attribute fails the reference."""
import numpy as np

from op_test import OpCase
from tests.ops.cases_normalization import bn_ref
from tests.ops.cases_optimizer import _adam

rng = np.random.default_rng(53)


def r(*shape):
    return rng.uniform(-1.0, 1.0, size=shape)


def i32(*values):
    return np.array(values, dtype=np.int32)


def one(value, dtype=np.float64):
    return np.array([value], dtype=dtype)


def _kept_off(x, *bounds):
    """x with no value within 0.05 of a clip bound (the gradient jumps there)."""
    for b in bounds:
        x = np.where(np.abs(x - b) < 0.05, b + 0.1, x)
    return x


def _adam_tensors(i, a):
    return _adam(i, dict(a, beta1=float(i["Beta1Tensor"][0]), beta2=float(i["Beta2Tensor"][0])))


def _bn_momentum(i, a):
    out = bn_ref(i["X"], i["Scale"], i["Bias"], i["Mean"], i["Variance"], float(i["MomentumTensor"][0]),
                 a["epsilon"])
    return {slot: out[slot] for slot in ("Y", "MeanOut", "VarianceOut")}


_x = r(3, 4, 5)
CASES = [
    OpCase("clip", {"X": _kept_off(r(4, 5), -0.3, 0.4), "Min": one(-0.3), "Max": one(0.4)},
           lambda i, a: {"Out": np.clip(i["X"], -0.3, 0.4)}, attrs={"min": -5.0, "max": 5.0}, grad=("X",),
           name="clip_min_max_tensors"),
    OpCase("adam", {"Param": r(3, 4), "Grad": r(3, 4), "LearningRate": one(0.1), "Moment1": r(3, 4),
                    "Moment2": rng.uniform(0.1, 1.0, (3, 4)), "Beta1Pow": one(0.6 ** 2), "Beta2Pow": one(0.8 ** 2),
                    "Beta1Tensor": one(0.6), "Beta2Tensor": one(0.8)},
           _adam_tensors, attrs={"epsilon": 1e-3}, name="adam_beta_tensors"),
    OpCase("concat", {"X": [r(2, 3), r(2, 4)], "AxisTensor": i32(1)},
           lambda i, a: {"Out": np.concatenate(i["X"], axis=1)}, attrs={"axis": 0}, grad=("X",),
           name="concat_axis_tensor"),
    OpCase("slice", {"Input": _x, "StartsTensor": i32(1, -3), "EndsTensor": i32(3, 100)},
           lambda i, a: {"Out": i["Input"][1:3, :, -3:]}, attrs={"axes": [0, 2], "infer_flags": [-1, -1]},
           grad=("Input",), name="slice_starts_ends_tensors"),
    OpCase("slice", {"Input": _x, "StartsTensorList": [i32(2), i32(1)]},
           lambda i, a: {"Out": i["Input"][:, 2, 1:3]},
           attrs={"axes": [1, 2], "starts": [-1, 1], "ends": [3, 3], "infer_flags": [-1, 1], "decrease_axis": [1]},
           grad=("Input",), name="slice_starts_tensor_list"),
    OpCase("slice", {"Input": _x, "StartsTensorList": [i32(-1)], "EndsTensorList": [i32(0)]},
           lambda i, a: {"Out": i["Input"][:, :, -1]},
           attrs={"axes": [2], "starts": [-1], "ends": [-1], "infer_flags": [-1], "decrease_axis": [2]},
           grad=("Input",), name="slice_variable_index_last"),        # var[i] with a Variable i of -1: Fluid's kernel takes the last
    OpCase("strided_slice", {"Input": _x, "StartsTensor": i32(4), "EndsTensorList": [i32(0)],
                             "StridesTensor": i32(-2)},
           lambda i, a: {"Out": i["Input"][:, :, 4:0:-2]},
           attrs={"axes": [2], "starts": [0], "ends": [5], "strides": [1], "infer_flags": [-1]},
           grad=("Input",), name="strided_slice_tensors"),
    OpCase("strided_slice", {"Input": _x, "StartsTensorList": [i32(0), i32(1)], "EndsTensor": i32(3, 4),
                             "StridesTensorList": [i32(2), i32(2)]},
           lambda i, a: {"Out": i["Input"][0:3:2, :, 1:4:2]},
           attrs={"axes": [0, 2], "starts": [-1, -1], "ends": [1, 1], "strides": [-1, -1], "infer_flags": [-1, -1]},
           grad=("Input",), name="strided_slice_tensor_lists"),
    OpCase("batch_norm", {"X": r(4, 3, 2, 2), "Scale": rng.uniform(0.5, 1.5, 3), "Bias": r(3), "Mean": r(3) * 0.1,
                          "Variance": rng.uniform(0.5, 1.5, 3), "MomentumTensor": one(0.5)},
           _bn_momentum, attrs={"momentum": 0.9},
           name="batch_norm_momentum_tensor"),
]
