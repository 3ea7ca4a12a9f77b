"""``fluid.dygraph.nn``'s normalization layers, Fluid 1.8's classes in a static program: BatchNorm,
InstanceNorm, LayerNorm, GroupNorm and SpectralNorm (the base and the refusal inside ``guard()`` are
pe_cli/fluid/dygraph/layers.py's FluidLayer)."""

import numpy as np

from ...layers.checks import check_variable_and_dtype
from ...training.initializer import Constant, Normal
from ...training.param_attr import ParamAttr
from .layers import FluidLayer

__all__ = ["BatchNorm", "InstanceNorm", "LayerNorm", "GroupNorm", "SpectralNorm"]

FLOATS = ("float16", "float32", "float64")


class _Normalization(FluidLayer):
    def _affine(self, shape, param_attr, bias_attr, dtype):
        """(scale, bias): ones and zeros unless the attrs say otherwise (False: none)."""
        self.weight = self.create_parameter(shape, param_attr, dtype, default_initializer=Constant(1.0))
        self.bias = self.create_parameter(shape, bias_attr, dtype, is_bias=True)

    def _normalize(self, op_type, input, stats, attrs):
        """Appends ``op_type`` of X, Scale and Bias; Y, and the statistics outputs ``stats``."""
        inputs = {"X": [input]}
        if self.weight is not None:
            inputs["Scale"] = [self.weight]
        if self.bias is not None:
            inputs["Bias"] = [self.bias]
        out = self._tmp(input.dtype)
        outputs = {"Y": [out], **{slot: [self._tmp(input.dtype, stop_gradient=True)] for slot in stats}}
        self._append(op_type, inputs, outputs, attrs)
        return out


class BatchNorm(_Normalization):
    """Batch normalization; ``is_test`` normalizes by the running statistics (by the batch's with
    ``trainable_statistics``), ``use_global_stats`` always by the running ones."""

    def __init__(
        self,
        num_channels,
        act=None,
        is_test=False,
        momentum=0.9,
        epsilon=1e-05,
        param_attr=None,
        bias_attr=None,
        dtype="float32",
        data_layout="NCHW",
        in_place=False,
        moving_mean_name=None,
        moving_variance_name=None,
        do_model_average_for_mean_and_var=True,
        use_global_stats=False,
        trainable_statistics=False,
    ):
        super().__init__(dtype=dtype)
        self._act, self._in_place = act, in_place
        param_dtype = "float32" if dtype == "float16" else dtype
        self._affine([num_channels], param_attr, bias_attr, param_dtype)
        average = bool(do_model_average_for_mean_and_var)
        self._mean = self.create_parameter(
            [num_channels],
            ParamAttr(name=moving_mean_name, initializer=Constant(0.0), trainable=False, do_model_average=average),
            param_dtype,
        )
        self._variance = self.create_parameter(
            [num_channels],
            ParamAttr(name=moving_variance_name, initializer=Constant(1.0), trainable=False, do_model_average=average),
            param_dtype,
        )
        self._mean.stop_gradient = self._variance.stop_gradient = True
        self._attrs = {
            "momentum": float(momentum),
            "epsilon": float(epsilon),
            "is_test": bool(is_test),
            "data_layout": data_layout,
            "fuse_with_relu": False,
            "use_global_stats": bool(use_global_stats),
            "trainable_statistics": bool(trainable_statistics),
        }

    def forward(self, input):
        check_variable_and_dtype(input, "input", FLOATS, "BatchNorm")
        out = input if self._in_place else self._tmp(input.dtype)
        saved = [self._tmp(input.dtype, stop_gradient=True) for _ in range(2)]
        self._append(
            "batch_norm",
            {
                "X": [input],
                "Scale": [self.weight],
                "Bias": [self.bias],
                "Mean": [self._mean],
                "Variance": [self._variance],
            },
            {
                "Y": [out],
                "MeanOut": [self._mean],
                "VarianceOut": [self._variance],
                "SavedMean": [saved[0]],
                "SavedVariance": [saved[1]],
            },
            self._attrs,
        )
        return self._helper.append_activation(out, act=self._act)


class InstanceNorm(_Normalization):
    def __init__(self, num_channels, epsilon=1e-05, param_attr=None, bias_attr=None, dtype="float32"):
        super().__init__(dtype=dtype)
        self._epsilon = float(epsilon)
        self._affine([num_channels], param_attr, bias_attr, dtype)

    def forward(self, input):
        check_variable_and_dtype(input, "input", ("float32", "float64"), "InstanceNorm")
        return self._normalize("instance_norm", input, ("SavedMean", "SavedVariance"), {"epsilon": self._epsilon})


class LayerNorm(_Normalization):
    """Normalizes over the trailing dims ``normalized_shape``; ``scale`` / ``shift`` False: no
    scale / bias parameter."""

    def __init__(
        self,
        normalized_shape,
        scale=True,
        shift=True,
        epsilon=1e-05,
        param_attr=None,
        bias_attr=None,
        act=None,
        dtype="float32",
    ):
        super().__init__(dtype=dtype)
        self._shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self._epsilon, self._act = float(epsilon), act
        size = [int(np.prod(self._shape))]
        self.weight = self.create_parameter(size, param_attr, default_initializer=Constant(1.0)) if scale else None
        self.bias = self.create_parameter(size, bias_attr, is_bias=True) if shift else None

    def forward(self, input):
        check_variable_and_dtype(input, "input", ("float32", "float64"), "LayerNorm")
        shape = list(input.shape)
        axis = len(shape) - len(self._shape)
        if axis < 0 or shape[axis:] != self._shape:
            raise ValueError(
                f"Given normalized_shape is {self._shape}, expected input with shape "
                f"[*, {str(self._shape)[1:]}, but got input shape {shape}"
            )
        out = self._normalize(
            "layer_norm", input, ("Mean", "Variance"), {"epsilon": self._epsilon, "begin_norm_axis": axis}
        )
        return self._helper.append_activation(out, act=self._act)


class GroupNorm(_Normalization):
    def __init__(
        self,
        channels,
        groups,
        epsilon=1e-05,
        param_attr=None,
        bias_attr=None,
        act=None,
        data_layout="NCHW",
        dtype="float32",
    ):
        super().__init__(dtype=dtype)
        if data_layout != "NCHW":
            raise ValueError("unsupported data layout:" + data_layout)
        self._attrs, self._act = {"epsilon": float(epsilon), "groups": int(groups)}, act
        self._affine([channels], param_attr, bias_attr, dtype)

    def forward(self, input):
        check_variable_and_dtype(input, "input", ("float32", "float64"), "GroupNorm")
        out = self._normalize("group_norm", input, ("Mean", "Variance"), self._attrs)
        return self._helper.append_activation(out, act=self._act)


class SpectralNorm(FluidLayer):
    """A weight of ``weight_shape`` divided by its largest singular value (``power_iters`` power
    iterations on the persistent vectors U and V) along ``dim``."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__(dtype=dtype)
        self._attrs = {"dim": int(dim), "power_iters": int(power_iters), "eps": float(eps)}
        rows = int(weight_shape[dim])
        cols = int(np.prod(weight_shape)) // rows
        self.weight_u = self.create_parameter([rows], ParamAttr(), default_initializer=Normal(0.0, 1.0))
        self.weight_v = self.create_parameter([cols], ParamAttr(), default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = self.weight_v.stop_gradient = True

    def forward(self, weight):
        check_variable_and_dtype(weight, "weight", ("float32", "float64"), "SpectralNorm")
        out = self._tmp(weight.dtype)
        self._append(
            "spectral_norm",
            {"Weight": [weight], "U": [self.weight_u], "V": [self.weight_v]},
            {"Out": [out]},
            self._attrs,
        )
        return out
