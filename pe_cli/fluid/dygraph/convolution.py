"""``fluid.dygraph.nn``'s convolution classes: Conv2D, Conv3D, Conv2DTranspose and Conv3DTranspose, with Fluid
1.8's constructor parameters, in a static program (as the other classes of pe_cli/fluid/dygraph/nn.py, which
offers these under its names)."""

import numpy as np

from ...layers.checks import FLOATS, check_variable_and_dtype
from ...training.initializer import Normal
from .layers import FluidLayer


def _ints(value, n, what):
    values = [value] * n if isinstance(value, (int, np.integer)) else list(value)
    if len(values) != n or not all(isinstance(v, (int, np.integer)) for v in values):
        raise ValueError(f"{what} must be an int or {n} ints, got {value!r}")
    return [int(v) for v in values]


class _ConvND(FluidLayer):
    """Conv2D and Conv3D (``_n`` spatial dims): the convolution, the bias along channels, ``act``."""

    _n, _op = 2, "conv2d"

    def __init__(
        self,
        num_channels,
        num_filters,
        filter_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=None,
        param_attr=None,
        bias_attr=None,
        use_cudnn=True,
        act=None,
        dtype="float32",
    ):
        assert param_attr is not False, "param_attr should not be False here."
        super().__init__(dtype=dtype)
        if not isinstance(use_cudnn, bool):
            raise ValueError("use_cudnn should be True or False")
        if groups is not None and num_channels % groups != 0:
            raise ValueError("num_channels must be divisible by groups.")
        n = self._n
        self._stride, self._padding = _ints(stride, n, "stride"), _ints(padding, n, "padding")
        self._dilation, self._groups, self._act = _ints(dilation, n, "dilation"), groups or 1, act
        self._l_type = self._op
        if n == 2 and num_channels == groups and num_filters % num_channels == 0 and not use_cudnn:
            self._l_type = "depthwise_conv2d"
        size = _ints(filter_size, n, "filter_size")
        std = (2.0 / (int(np.prod(size)) * num_channels)) ** 0.5
        self.weight = self.create_parameter(
            [num_filters, num_channels // self._groups] + size, param_attr, default_initializer=Normal(0.0, std, 0)
        )
        self.bias = self.create_parameter([num_filters], bias_attr, is_bias=True)

    def forward(self, input):
        check_variable_and_dtype(input, "input", FLOATS, type(self).__name__)
        out = self._tmp()
        self._append(
            self._l_type,
            {"Input": [input], "Filter": [self.weight]},
            {"Output": [out]},
            {"strides": self._stride, "paddings": self._padding, "dilations": self._dilation, "groups": self._groups},
        )
        return self._helper.append_activation(self._add_bias(out, self.bias, 1), act=self._act)


class Conv2D(_ConvND):
    pass


class Conv3D(_ConvND):
    _n, _op = 3, "conv3d"


class _ConvNDTranspose(FluidLayer):
    _n, _op = 2, "conv2d_transpose"

    def __init__(
        self,
        num_channels,
        num_filters,
        filter_size,
        output_size=None,
        padding=0,
        stride=1,
        dilation=1,
        groups=None,
        param_attr=None,
        bias_attr=None,
        use_cudnn=True,
        act=None,
        dtype="float32",
    ):
        assert param_attr is not False, "param_attr should not be False in conv2d_transpose."
        super().__init__(dtype=dtype)
        n = self._n
        self._padding, self._stride = _ints(padding, n, "padding"), _ints(stride, n, "stride")
        self._dilation, self._groups, self._act = _ints(dilation, n, "dilation"), groups or 1, act
        self._output_size = [] if output_size is None else _ints(output_size, n, "output_size")
        self.weight = self.create_parameter(
            [num_channels, num_filters // self._groups] + _ints(filter_size, n, "filter_size"), param_attr
        )
        self.bias = self.create_parameter([num_filters], bias_attr, is_bias=True)

    def forward(self, input):
        check_variable_and_dtype(input, "input", FLOATS, type(self).__name__)
        out = self._tmp()
        self._append(
            self._op,
            {"Input": [input], "Filter": [self.weight]},
            {"Output": [out]},
            {
                "output_size": self._output_size,
                "strides": self._stride,
                "paddings": self._padding,
                "dilations": self._dilation,
                "groups": self._groups,
            },
        )
        return self._helper.append_activation(self._add_bias(out, self.bias, 1), act=self._act)


class Conv2DTranspose(_ConvNDTranspose):
    pass


class Conv3DTranspose(_ConvNDTranspose):
    _n, _op = 3, "conv3d_transpose"
