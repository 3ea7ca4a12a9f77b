"""``paddle.nn``'s convolution layers: Conv1D, Conv2D, Conv1DTranspose, Conv2DTranspose with 2.x's
arguments and parameter layouts (weight [out, in/groups, *k]; transposed [in, out/groups, *k]; bias
[out]) and initializers (Normal(0, sqrt(2 / (k * in))) for convolutions, Xavier for transposed ones).
``padding_mode`` other than 'zeros' pads with ``paddle.nn.functional.pad`` first. Conv3D and
Conv3DTranspose over pe's conv3d / conv3d_transpose ops."""

import numpy as np

from .. import functional as F
from ..initializer import Normal
from ..layer import Layer

__all__ = ["Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]


def _ntuple(value, n):
    return [int(value)] * n if isinstance(value, int) else [int(v) for v in value]


def conv_parameters(layer, in_channels, out_channels, kernel, groups, weight_attr, bias_attr, transposed=False):
    """(weight, bias) of a convolution layer, created on ``layer`` in that order: weight [out, in/groups, *kernel]
    with Normal(0, sqrt(2 / (prod(kernel) * in))), or [in, out/groups, *kernel] with the default (Xavier) for a
    transposed one; bias [out]."""
    if transposed:
        shape, init = [in_channels, out_channels // groups] + kernel, None
    else:
        shape = [out_channels, in_channels // groups] + kernel
        init = Normal(0.0, (2.0 / (np.prod(kernel) * in_channels)) ** 0.5)
    weight = layer.create_parameter(shape, weight_attr, default_initializer=init)
    return weight, layer.create_parameter([out_channels], bias_attr, is_bias=True)


class _ConvNd(Layer):
    def __init__(
        self,
        dims,
        in_channels,
        out_channels,
        kernel_size,
        transposed,
        stride,
        padding,
        dilation,
        groups,
        padding_mode,
        weight_attr,
        bias_attr,
        data_format,
        output_padding=0,
    ):
        super().__init__()
        if in_channels % groups or out_channels % groups:
            raise ValueError(
                f"{type(self).__name__}: groups={groups} must divide in_channels={in_channels} "
                f"and out_channels={out_channels}"
            )
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                f"{type(self).__name__}: padding_mode={padding_mode!r} must be 'zeros', 'reflect', "
                f"'replicate' or 'circular'"
            )
        self._in_channels, self._out_channels, self._groups = in_channels, out_channels, groups
        self._kernel_size = _ntuple(kernel_size, dims)
        self._stride, self._padding, self._dilation = stride, padding, dilation
        self._padding_mode, self._data_format, self._output_padding = padding_mode, data_format, output_padding
        self.weight, self.bias = conv_parameters(
            self, in_channels, out_channels, self._kernel_size, groups, weight_attr, bias_attr, transposed
        )

    def _padded(self, x, dims):
        """(x, padding): x padded by padding_mode when that is not 'zeros' (then padding 0)."""
        if self._padding_mode == "zeros" or isinstance(self._padding, str):
            return x, self._padding
        p = _ntuple(self._padding, dims)
        if len(p) == dims:
            p = [v for v in p for _ in range(2)]
        pairs = [p[i : i + 2] for i in range(0, len(p), 2)][::-1]  # last spatial dim first, as F.pad takes
        return F.pad(x, [v for pair in pairs for v in pair], self._padding_mode, data_format=self._data_format), 0

    def extra_repr(self):
        return (
            f"{self._in_channels}, {self._out_channels}, kernel_size={self._kernel_size}, stride={self._stride}, "
            f"padding={self._padding}, data_format={self._data_format}"
        )


class Conv1D(_ConvNd):
    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        padding_mode="zeros",
        weight_attr=None,
        bias_attr=None,
        data_format="NCL",
    ):
        super().__init__(
            1,
            in_channels,
            out_channels,
            kernel_size,
            False,
            stride,
            padding,
            dilation,
            groups,
            padding_mode,
            weight_attr,
            bias_attr,
            data_format,
        )

    def forward(self, x):
        x, padding = self._padded(x, 1)
        return F.conv1d(
            x, self.weight, self.bias, self._stride, padding, self._dilation, self._groups, self._data_format
        )


class Conv2D(_ConvNd):
    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        padding_mode="zeros",
        weight_attr=None,
        bias_attr=None,
        data_format="NCHW",
    ):
        super().__init__(
            2,
            in_channels,
            out_channels,
            kernel_size,
            False,
            stride,
            padding,
            dilation,
            groups,
            padding_mode,
            weight_attr,
            bias_attr,
            data_format,
        )

    def forward(self, x):
        x, padding = self._padded(x, 2)
        return F.conv2d(
            x, self.weight, self.bias, self._stride, padding, self._dilation, self._groups, self._data_format
        )


class Conv1DTranspose(_ConvNd):
    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        groups=1,
        dilation=1,
        weight_attr=None,
        bias_attr=None,
        data_format="NCL",
    ):
        super().__init__(
            1,
            in_channels,
            out_channels,
            kernel_size,
            True,
            stride,
            padding,
            dilation,
            groups,
            "zeros",
            weight_attr,
            bias_attr,
            data_format,
            output_padding,
        )

    def forward(self, x, output_size=None):
        return F.conv1d_transpose(
            x,
            self.weight,
            self.bias,
            self._stride,
            self._padding,
            self._output_padding,
            self._groups,
            self._dilation,
            output_size,
            self._data_format,
        )


class Conv2DTranspose(_ConvNd):
    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        dilation=1,
        groups=1,
        weight_attr=None,
        bias_attr=None,
        data_format="NCHW",
    ):
        super().__init__(
            2,
            in_channels,
            out_channels,
            kernel_size,
            True,
            stride,
            padding,
            dilation,
            groups,
            "zeros",
            weight_attr,
            bias_attr,
            data_format,
            output_padding,
        )

    def forward(self, x, output_size=None):
        return F.conv2d_transpose(
            x,
            self.weight,
            self.bias,
            self._stride,
            self._padding,
            self._output_padding,
            self._dilation,
            self._groups,
            output_size,
            self._data_format,
        )


class Conv3D(_ConvNd):
    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        dilation=1,
        groups=1,
        padding_mode="zeros",
        weight_attr=None,
        bias_attr=None,
        data_format="NCDHW",
    ):
        super().__init__(
            3,
            in_channels,
            out_channels,
            kernel_size,
            False,
            stride,
            padding,
            dilation,
            groups,
            padding_mode,
            weight_attr,
            bias_attr,
            data_format,
        )

    def forward(self, x):
        x, padding = self._padded(x, 3)
        return F.conv3d(
            x, self.weight, self.bias, self._stride, padding, self._dilation, self._groups, self._data_format
        )


class Conv3DTranspose(_ConvNd):
    def __init__(
        self,
        in_channels,
        out_channels,
        kernel_size,
        stride=1,
        padding=0,
        output_padding=0,
        dilation=1,
        groups=1,
        weight_attr=None,
        bias_attr=None,
        data_format="NCDHW",
    ):
        super().__init__(
            3,
            in_channels,
            out_channels,
            kernel_size,
            True,
            stride,
            padding,
            dilation,
            groups,
            "zeros",
            weight_attr,
            bias_attr,
            data_format,
            output_padding,
        )

    def forward(self, x, output_size=None):
        return F.conv3d_transpose(
            x,
            self.weight,
            self.bias,
            self._stride,
            self._padding,
            self._output_padding,
            self._groups,
            self._dilation,
            output_size,
            self._data_format,
        )
