"""``paddle.vision.models.ShuffleNetV2`` (Paddle's module ``shufflenetv2``): a strided conv and
max-pool, three stages of shuffle units (the first of each downsampling, both branches convolved; the
others convolving half the channels), channels shuffled in two groups after each unit; ``scale`` picks
the stage widths (0.25-2.0), ``act`` 'relu' or 'swish'."""

from ... import nn
from ...tensor_manip import concat, flatten, reshape, split, transpose
from ._common import ConvNormActivation, refuse_pretrained

__all__ = [
    "ShuffleNetV2",
    "shufflenet_v2_x0_25",
    "shufflenet_v2_x0_33",
    "shufflenet_v2_x0_5",
    "shufflenet_v2_x1_0",
    "shufflenet_v2_x1_5",
    "shufflenet_v2_x2_0",
    "shufflenet_v2_swish",
]

_WIDTHS = {
    0.25: [-1, 24, 24, 48, 96, 512],
    0.33: [-1, 24, 32, 64, 128, 512],
    0.5: [-1, 24, 48, 96, 192, 1024],
    1.0: [-1, 24, 116, 232, 464, 1024],
    1.5: [-1, 24, 176, 352, 704, 1024],
    2.0: [-1, 24, 224, 488, 976, 2048],
}


def create_activation_layer(act):
    layers = {"swish": nn.Swish, "relu": nn.ReLU, None: None}
    if act not in layers:
        raise RuntimeError(f"The activation function is not supported: {act}")
    return layers[act]


def channel_shuffle(x, groups):
    _, channels, height, width = x.shape[0:4]
    x = reshape(x, [-1, groups, channels // groups, height, width])
    return reshape(transpose(x, [0, 2, 1, 3, 4]), [-1, channels, height, width])


def _cna(cin, cout, kernel, stride, groups, act):
    return ConvNormActivation(
        cin, cout, kernel_size=kernel, stride=stride, padding=(kernel - 1) // 2, groups=groups, activation_layer=act
    )


class InvertedResidual(nn.Layer):
    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = _cna(in_channels // 2, half, 1, 1, 1, activation_layer)
        self._conv_dw = _cna(half, half, 3, stride, half, None)
        self._conv_linear = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        x1, x2 = split(inputs, [inputs.shape[1] // 2, inputs.shape[1] // 2], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = _cna(in_channels, in_channels, 3, stride, in_channels, None)
        self._conv_linear_1 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_pw_2 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_dw_2 = _cna(half, half, 3, stride, half, None)
        self._conv_linear_2 = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        if scale not in _WIDTHS:
            raise NotImplementedError(f"This scale size:[{scale}] is not implemented!")  # as Paddle 2.6.2 refuses
        widths, act_layer = _WIDTHS[scale], create_activation_layer(act)
        self._conv1 = _cna(3, widths[1], 3, 2, 1, act_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate([4, 8, 4]):
            for i in range(repeats):
                block = (
                    InvertedResidualDS(widths[stage + 1], widths[stage + 2], 2, act_layer)
                    if i == 0
                    else InvertedResidual(widths[stage + 2], widths[stage + 2], 1, act_layer)
                )
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", block))
        self._last_conv = _cna(widths[-2], widths[-1], 1, 1, 1, act_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = widths[-1]
            self._fc = nn.Linear(widths[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, start_axis=1, stop_axis=-1))
        return x


def _shufflenet(arch, scale, pretrained, act="relu", **kwargs):
    refuse_pretrained(arch, pretrained)
    return ShuffleNetV2(scale=scale, act=act, **kwargs)


def shufflenet_v2_x0_25(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x0_25", 0.25, pretrained, **kwargs)


def shufflenet_v2_x0_33(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x0_33", 0.33, pretrained, **kwargs)


def shufflenet_v2_x0_5(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x0_5", 0.5, pretrained, **kwargs)


def shufflenet_v2_x1_0(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x1_0", 1.0, pretrained, **kwargs)


def shufflenet_v2_x1_5(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x1_5", 1.5, pretrained, **kwargs)


def shufflenet_v2_x2_0(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_x2_0", 2.0, pretrained, **kwargs)


def shufflenet_v2_swish(pretrained=False, **kwargs):
    return _shufflenet("shufflenet_v2_swish", 1.0, pretrained, act="swish", **kwargs)
