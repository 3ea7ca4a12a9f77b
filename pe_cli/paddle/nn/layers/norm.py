"""``paddle.nn``'s normalization layers: BatchNorm (2.x's Fluid-style one), BatchNorm1D/2D/3D,
SyncBatchNorm (one device's batch norm: pe's data parallelism averages gradients, not statistics),
LayerNorm, GroupNorm, InstanceNorm1D/2D/3D, LocalResponseNorm and SpectralNorm (a weight divided by
its largest singular value, the spectral_norm op). Batch norms keep ``_mean`` and
``_variance`` as non-trainable parameters (as Paddle's static mode does) and use the batch's
statistics while ``training``, the running ones after ``eval()``. A ``weight_attr``/``bias_attr`` of
False fixes that parameter (1 and 0, not trained)."""

import numpy as np

from .. import functional as F
from ..initializer import Constant, Normal
from ..layer import Layer
from ....training.param_attr import ParamAttr

__all__ = [
    "BatchNorm",
    "BatchNorm1D",
    "BatchNorm2D",
    "BatchNorm3D",
    "SyncBatchNorm",
    "LayerNorm",
    "GroupNorm",
    "InstanceNorm1D",
    "InstanceNorm2D",
    "InstanceNorm3D",
    "LocalResponseNorm",
    "SpectralNorm",
]


def _affine(layer, shape, weight_attr, bias_attr, dtype=None):
    """(weight, bias): ones and zeros by default; False makes that one fixed (not trainable)."""
    fixed = {"trainable": False}
    w_attr = ParamAttr(initializer=Constant(1.0), **fixed) if weight_attr is False else weight_attr
    b_attr = ParamAttr(initializer=Constant(0.0), **fixed) if bias_attr is False else bias_attr
    weight = layer.create_parameter(shape, w_attr, dtype, default_initializer=Constant(1.0))
    bias = layer.create_parameter(shape, b_attr, dtype, is_bias=True)
    return weight, bias


class _BatchNormBase(Layer):
    _formats = ("NCHW", "NHWC")

    def __init__(
        self,
        num_features,
        momentum=0.9,
        epsilon=1e-05,
        weight_attr=None,
        bias_attr=None,
        data_format="NCHW",
        use_global_stats=None,
        name=None,
        *,
        moving_mean_name=None,
        moving_variance_name=None,
        dtype="float32",
    ):
        super().__init__(dtype=dtype)
        if data_format not in self._formats:
            raise ValueError(f"{type(self).__name__}: data_format={data_format!r} must be one of {list(self._formats)}")
        self._momentum, self._epsilon, self._data_format = momentum, epsilon, data_format
        self._use_global_stats, self._num_features = use_global_stats, num_features
        self.weight, self.bias = _affine(self, [num_features], weight_attr, bias_attr)
        self._mean = self.create_parameter(
            [num_features], ParamAttr(name=moving_mean_name, initializer=Constant(0.0), trainable=False)
        )
        self._variance = self.create_parameter(
            [num_features], ParamAttr(name=moving_variance_name, initializer=Constant(1.0), trainable=False)
        )

    def forward(self, x):
        return F.batch_norm(
            x,
            self._mean,
            self._variance,
            self.weight,
            self.bias,
            self.training,
            self._momentum,
            self._epsilon,
            self._data_format,
            self._use_global_stats,
        )

    def extra_repr(self):
        return f"num_features={self._num_features}, momentum={self._momentum}, epsilon={self._epsilon}"


class BatchNorm1D(_BatchNormBase):
    _formats = ("NC", "NCL", "NLC")

    def __init__(
        self,
        num_features,
        momentum=0.9,
        epsilon=1e-05,
        weight_attr=None,
        bias_attr=None,
        data_format="NCL",
        use_global_stats=None,
        name=None,
    ):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    pass


class BatchNorm3D(_BatchNormBase):
    _formats = ("NCDHW", "NDHWC")

    def __init__(
        self,
        num_features,
        momentum=0.9,
        epsilon=1e-05,
        weight_attr=None,
        bias_attr=None,
        data_format="NCDHW",
        use_global_stats=None,
        name=None,
    ):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, use_global_stats, name)


class SyncBatchNorm(_BatchNormBase):
    def __init__(
        self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None, bias_attr=None, data_format="NCHW", name=None
    ):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format, None, name)


class BatchNorm(_BatchNormBase):
    """2.x's Fluid-style batch norm: ``act`` after it; ``is_test`` fixes the running statistics. In static
    mode Paddle 2.6 builds it from ``is_test`` alone: ``eval()`` leaves it on the batch's statistics
    (checked on the wheel: its batch_norm op has is_test False after eval(); BatchNorm2D's True)."""

    _formats = ("NCHW", "NHWC")

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
        super().__init__(
            num_channels,
            momentum,
            epsilon,
            param_attr,
            bias_attr,
            data_layout,
            use_global_stats or None,
            None,
            moving_mean_name=moving_mean_name,
            moving_variance_name=moving_variance_name,
            dtype=dtype,
        )
        self._act, self._is_test, self._trainable_statistics = act, is_test, trainable_statistics

    def forward(self, x):
        training = not self._is_test
        out = F.batch_norm(
            x,
            self._mean,
            self._variance,
            self.weight,
            self.bias,
            training,
            self._momentum,
            self._epsilon,
            self._data_format,
            self._use_global_stats,
        )
        return out if self._act is None else getattr(F, self._act)(out)


class LayerNorm(Layer):
    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
        self._normalized_shape, self._epsilon = shape, epsilon
        size = [int(np.prod(shape))]
        self.weight = (
            None
            if weight_attr is False
            else self.create_parameter(size, weight_attr, default_initializer=Constant(1.0))
        )
        self.bias = None if bias_attr is False else self.create_parameter(size, bias_attr, is_bias=True)

    def forward(self, x):
        return F.layer_norm(x, self._normalized_shape, self.weight, self.bias, self._epsilon)

    def extra_repr(self):
        return f"normalized_shape={self._normalized_shape}, epsilon={self._epsilon}"


class GroupNorm(Layer):
    def __init__(
        self, num_groups, num_channels, epsilon=1e-05, weight_attr=None, bias_attr=None, data_format="NCHW", name=None
    ):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels={num_channels} is not divisible by num_groups={num_groups}")
        self._num_groups, self._epsilon, self._data_format = num_groups, epsilon, data_format
        self.weight = (
            None
            if weight_attr is False
            else self.create_parameter([num_channels], weight_attr, default_initializer=Constant(1.0))
        )
        self.bias = None if bias_attr is False else self.create_parameter([num_channels], bias_attr, is_bias=True)

    def forward(self, x):
        return F.group_norm(x, self._num_groups, self._epsilon, self.weight, self.bias, self._data_format)


class _InstanceNorm(Layer):
    _format = "NCHW"

    def __init__(
        self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None, data_format=None, name=None
    ):
        super().__init__()
        self._epsilon, self._data_format = epsilon, data_format or self._format
        self.scale = (
            None
            if weight_attr is False
            else self.create_parameter([num_features], weight_attr, default_initializer=Constant(1.0))
        )
        self.bias = None if bias_attr is False else self.create_parameter([num_features], bias_attr, is_bias=True)

    def forward(self, x):
        return F.instance_norm(x, weight=self.scale, bias=self.bias, eps=self._epsilon, data_format=self._data_format)


class InstanceNorm1D(_InstanceNorm):
    def __init__(
        self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None, data_format="NCL", name=None
    ):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm2D(_InstanceNorm):
    def __init__(
        self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None, bias_attr=None, data_format="NCHW", name=None
    ):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class InstanceNorm3D(_InstanceNorm):
    def __init__(
        self,
        num_features,
        epsilon=1e-05,
        momentum=0.9,
        weight_attr=None,
        bias_attr=None,
        data_format="NCDHW",
        name=None,
    ):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format, name)


class LocalResponseNorm(Layer):
    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format="NCHW", name=None):
        super().__init__()
        self._args = (size, alpha, beta, k, data_format)

    def forward(self, x):
        return F.local_response_norm(x, *self._args)


class SpectralNorm(Layer):
    """forward(weight): ``weight`` (of ``weight_shape``) divided by its largest singular value as a matrix
    [weight_shape[dim], rest], estimated by ``power_iters`` power iterations from weight_u [h] and
    weight_v [rest], parameters drawn from N(0, 1) that take no gradient (as Paddle's)."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__(dtype=dtype)
        self._weight_shape, self._dim = list(weight_shape), dim
        self._power_iters, self._eps = power_iters, eps
        if int(np.prod(self._weight_shape)) <= 0:
            raise ValueError(f"SpectralNorm: weight_shape {self._weight_shape} must have no zero or unknown dim")
        h = self._weight_shape[dim]
        w = int(np.prod(self._weight_shape)) // h
        self.weight_u = self.create_parameter([h], ParamAttr(), dtype, default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter([w], ParamAttr(), dtype, default_initializer=Normal(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def forward(self, x):
        if x.dtype not in ("float32", "float64"):
            raise TypeError(f"SpectralNorm: the weight must be float32 or float64, got {x.dtype}")
        out = self._helper.create_variable_for_type_inference(self._dtype)
        self._helper.append_op(
            "spectral_norm",
            {"Weight": [x], "U": [self.weight_u], "V": [self.weight_v]},
            {"Out": [out]},
            {"dim": self._dim, "power_iters": self._power_iters, "eps": self._eps},
        )
        return out
