"""``paddle.nn``'s pooling layers: MaxPool1D/2D/3D, AvgPool1D/2D/3D, the adaptive ones and
MaxUnPool1D/2D/3D (forward(x, indices)), each calling its ``paddle.nn.functional`` form with the
arguments it was made with."""

from .. import functional as F
from ..layer import Layer

__all__ = [
    "MaxPool1D",
    "MaxPool2D",
    "MaxPool3D",
    "AvgPool1D",
    "AvgPool2D",
    "AvgPool3D",
    "AdaptiveAvgPool1D",
    "AdaptiveAvgPool2D",
    "AdaptiveAvgPool3D",
    "AdaptiveMaxPool1D",
    "AdaptiveMaxPool2D",
    "AdaptiveMaxPool3D",
    "MaxUnPool1D",
    "MaxUnPool2D",
    "MaxUnPool3D",
]


class _Pool(Layer):
    _fn = None

    def __init__(self, **kwargs):
        super().__init__()
        self._kwargs = kwargs

    def forward(self, x):
        return type(self)._fn(x, **self._kwargs)

    def extra_repr(self):
        return ", ".join(f"{k}={v}" for k, v in self._kwargs.items() if v is not None)


class MaxPool1D(_Pool):
    _fn = staticmethod(F.max_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, name=None):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            return_mask=return_mask,
            ceil_mode=ceil_mode,
            name=name,
        )


class MaxPool2D(_Pool):
    _fn = staticmethod(F.max_pool2d)

    def __init__(
        self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCHW", name=None
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            return_mask=return_mask,
            ceil_mode=ceil_mode,
            data_format=data_format,
            name=name,
        )


class MaxPool3D(_Pool):
    _fn = staticmethod(F.max_pool3d)

    def __init__(
        self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False, data_format="NCDHW", name=None
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            return_mask=return_mask,
            ceil_mode=ceil_mode,
            data_format=data_format,
            name=name,
        )


class AvgPool1D(_Pool):
    _fn = staticmethod(F.avg_pool1d)

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False, name=None):
        super().__init__(
            kernel_size=kernel_size, stride=stride, padding=padding, exclusive=exclusive, ceil_mode=ceil_mode, name=name
        )


class AvgPool2D(_Pool):
    _fn = staticmethod(F.avg_pool2d)

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        exclusive=True,
        divisor_override=None,
        data_format="NCHW",
        name=None,
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            ceil_mode=ceil_mode,
            exclusive=exclusive,
            divisor_override=divisor_override,
            data_format=data_format,
            name=name,
        )


class AvgPool3D(_Pool):
    _fn = staticmethod(F.avg_pool3d)

    def __init__(
        self,
        kernel_size,
        stride=None,
        padding=0,
        ceil_mode=False,
        exclusive=True,
        divisor_override=None,
        data_format="NCDHW",
        name=None,
    ):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            ceil_mode=ceil_mode,
            exclusive=exclusive,
            divisor_override=divisor_override,
            data_format=data_format,
            name=name,
        )


class AdaptiveAvgPool1D(_Pool):
    _fn = staticmethod(F.adaptive_avg_pool1d)

    def __init__(self, output_size, name=None):
        super().__init__(output_size=output_size, name=name)


class AdaptiveAvgPool2D(_Pool):
    _fn = staticmethod(F.adaptive_avg_pool2d)

    def __init__(self, output_size, data_format="NCHW", name=None):
        super().__init__(output_size=output_size, data_format=data_format, name=name)


class AdaptiveAvgPool3D(_Pool):
    _fn = staticmethod(F.adaptive_avg_pool3d)

    def __init__(self, output_size, data_format="NCDHW", name=None):
        super().__init__(output_size=output_size, data_format=data_format, name=name)


class AdaptiveMaxPool1D(_Pool):
    _fn = staticmethod(F.adaptive_max_pool1d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask, name=name)


class AdaptiveMaxPool2D(_Pool):
    _fn = staticmethod(F.adaptive_max_pool2d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask, name=name)


class AdaptiveMaxPool3D(_Pool):
    _fn = staticmethod(F.adaptive_max_pool3d)

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size=output_size, return_mask=return_mask, name=name)


class _UnPool(_Pool):
    def forward(self, x, indices):
        return type(self)._fn(x, indices, **self._kwargs)


class MaxUnPool1D(_UnPool):
    _fn = staticmethod(F.max_unpool1d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCL", output_size=None, name=None):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            data_format=data_format,
            output_size=output_size,
            name=name,
        )


class MaxUnPool2D(_UnPool):
    _fn = staticmethod(F.max_unpool2d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCHW", output_size=None, name=None):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            data_format=data_format,
            output_size=output_size,
            name=name,
        )


class MaxUnPool3D(_UnPool):
    _fn = staticmethod(F.max_unpool3d)

    def __init__(self, kernel_size, stride=None, padding=0, data_format="NCDHW", output_size=None, name=None):
        super().__init__(
            kernel_size=kernel_size,
            stride=stride,
            padding=padding,
            data_format=data_format,
            output_size=output_size,
            name=name,
        )
