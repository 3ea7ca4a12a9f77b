"""``paddle.vision.models.MobileNetV3Small`` / ``MobileNetV3Large`` (Paddle's module ``mobilenetv3``):
inverted residual blocks (an optional 1x1 expansion, a depthwise conv, squeeze-and-excitation with a
hard sigmoid, a linear 1x1), hard-swish, BatchNorm with epsilon 1e-3 and momentum 0.99, channels
rounded to multiples of 8 after ``scale``; the classifier is Linear, Hardswish, Dropout, Linear."""

import functools

from ... import nn
from ...tensor_manip import flatten
from ._common import ConvNormActivation, make_divisible, refuse_pretrained

__all__ = ["MobileNetV3Small", "MobileNetV3Large", "mobilenet_v3_small", "mobilenet_v3_large"]


class SqueezeExcitation(nn.Layer):
    def __init__(self, input_channels, squeeze_channels, activation=nn.ReLU, scale_activation=nn.Sigmoid):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2D(1)
        self.fc1 = nn.Conv2D(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2D(squeeze_channels, input_channels, 1)
        self.activation, self.scale_activation = activation(), scale_activation()

    def forward(self, input):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(input)))))
        return scale * input


class InvertedResidualConfig:
    _ACTS = {None: None, "relu": nn.ReLU, "hardswish": nn.Hardswish}

    def __init__(self, in_channels, kernel, expanded_channels, out_channels, use_se, activation, stride, scale=1.0):
        if activation not in self._ACTS:
            raise RuntimeError(f"The activation function is not supported: {activation}")
        self.in_channels = self.adjust_channels(in_channels, scale)
        self.kernel = kernel
        self.expanded_channels = self.adjust_channels(expanded_channels, scale)
        self.out_channels = self.adjust_channels(out_channels, scale)
        self.use_se, self.activation_layer, self.stride = use_se, self._ACTS[activation], stride

    @staticmethod
    def adjust_channels(channels, scale=1.0):
        return make_divisible(channels * scale, 8)


class InvertedResidual(nn.Layer):
    def __init__(
        self, in_channels, expanded_channels, out_channels, filter_size, stride, use_se, activation_layer, norm_layer
    ):
        super().__init__()
        self.use_res_connect = stride == 1 and in_channels == out_channels
        self.use_se, self.expand = use_se, in_channels != expanded_channels
        if self.expand:
            self.expand_conv = ConvNormActivation(
                in_channels,
                expanded_channels,
                kernel_size=1,
                stride=1,
                padding=0,
                norm_layer=norm_layer,
                activation_layer=activation_layer,
            )
        self.bottleneck_conv = ConvNormActivation(
            expanded_channels,
            expanded_channels,
            kernel_size=filter_size,
            stride=stride,
            padding=int((filter_size - 1) // 2),
            groups=expanded_channels,
            norm_layer=norm_layer,
            activation_layer=activation_layer,
        )
        if use_se:
            self.mid_se = SqueezeExcitation(
                expanded_channels, make_divisible(expanded_channels // 4), scale_activation=nn.Hardsigmoid
            )
        self.linear_conv = ConvNormActivation(
            expanded_channels,
            out_channels,
            kernel_size=1,
            stride=1,
            padding=0,
            norm_layer=norm_layer,
            activation_layer=None,
        )

    def forward(self, x):
        y = self.expand_conv(x) if self.expand else x
        y = self.bottleneck_conv(y)
        if self.use_se:
            y = self.mid_se(y)
        y = self.linear_conv(y)
        return x + y if self.use_res_connect else y


class MobileNetV3(nn.Layer):
    def __init__(self, config, last_channel, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.config, self.scale, self.last_channel = config, scale, last_channel
        self.num_classes, self.with_pool = num_classes, with_pool
        self.firstconv_in_channels = config[0].in_channels
        self.lastconv_in_channels = config[-1].in_channels
        self.lastconv_out_channels = self.lastconv_in_channels * 6
        norm = functools.partial(nn.BatchNorm2D, epsilon=0.001, momentum=0.99)
        self.conv = ConvNormActivation(
            3,
            self.firstconv_in_channels,
            kernel_size=3,
            stride=2,
            padding=1,
            groups=1,
            activation_layer=nn.Hardswish,
            norm_layer=norm,
        )
        self.blocks = nn.Sequential(
            *[
                InvertedResidual(
                    c.in_channels,
                    c.expanded_channels,
                    c.out_channels,
                    c.kernel,
                    c.stride,
                    c.use_se,
                    c.activation_layer,
                    norm,
                )
                for c in config
            ]
        )
        self.lastconv = ConvNormActivation(
            self.lastconv_in_channels,
            self.lastconv_out_channels,
            kernel_size=1,
            stride=1,
            padding=0,
            groups=1,
            norm_layer=norm,
            activation_layer=nn.Hardswish,
        )
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(self.lastconv_out_channels, last_channel),
                nn.Hardswish(),
                nn.Dropout(p=0.2),
                nn.Linear(last_channel, num_classes),
            )

    def forward(self, x):
        x = self.lastconv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


_SMALL = [
    (16, 3, 16, 16, True, "relu", 2),
    (16, 3, 72, 24, False, "relu", 2),
    (24, 3, 88, 24, False, "relu", 1),
    (24, 5, 96, 40, True, "hardswish", 2),
    (40, 5, 240, 40, True, "hardswish", 1),
    (40, 5, 240, 40, True, "hardswish", 1),
    (40, 5, 120, 48, True, "hardswish", 1),
    (48, 5, 144, 48, True, "hardswish", 1),
    (48, 5, 288, 96, True, "hardswish", 2),
    (96, 5, 576, 96, True, "hardswish", 1),
    (96, 5, 576, 96, True, "hardswish", 1),
]
_LARGE = [
    (16, 3, 16, 16, False, "relu", 1),
    (16, 3, 64, 24, False, "relu", 2),
    (24, 3, 72, 24, False, "relu", 1),
    (24, 5, 72, 40, True, "relu", 2),
    (40, 5, 120, 40, True, "relu", 1),
    (40, 5, 120, 40, True, "relu", 1),
    (40, 3, 240, 80, False, "hardswish", 2),
    (80, 3, 200, 80, False, "hardswish", 1),
    (80, 3, 184, 80, False, "hardswish", 1),
    (80, 3, 184, 80, False, "hardswish", 1),
    (80, 3, 480, 112, True, "hardswish", 1),
    (112, 3, 672, 112, True, "hardswish", 1),
    (112, 5, 672, 160, True, "hardswish", 2),
    (160, 5, 960, 160, True, "hardswish", 1),
    (160, 5, 960, 160, True, "hardswish", 1),
]


class MobileNetV3Small(MobileNetV3):
    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__(
            [InvertedResidualConfig(*row, scale) for row in _SMALL],
            make_divisible(1024 * scale, 8),
            scale=scale,
            num_classes=num_classes,
            with_pool=with_pool,
        )


class MobileNetV3Large(MobileNetV3):
    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__(
            [InvertedResidualConfig(*row, scale) for row in _LARGE],
            make_divisible(1280 * scale, 8),
            scale=scale,
            num_classes=num_classes,
            with_pool=with_pool,
        )


def mobilenet_v3_small(pretrained=False, scale=1.0, **kwargs):
    refuse_pretrained("mobilenet_v3_small", pretrained)
    return MobileNetV3Small(scale=scale, **kwargs)


def mobilenet_v3_large(pretrained=False, scale=1.0, **kwargs):
    refuse_pretrained("mobilenet_v3_large", pretrained)
    return MobileNetV3Large(scale=scale, **kwargs)
