"""``paddle.vision.models.AlexNet``: five convolutions (three followed by max-pooling) and three fully
connected layers, each initialised uniform in +-1/sqrt(fan-in) as Paddle's."""

import math

from ... import nn
from ...nn import functional as F
from ...nn.initializer import Uniform
from ...tensor_manip import flatten
from ._common import ParamAttr, refuse_pretrained

__all__ = ["AlexNet", "alexnet"]


def _uniform(fan_in):
    stdv = 1.0 / math.sqrt(fan_in)
    return ParamAttr(initializer=Uniform(-stdv, stdv)), ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvPoolLayer(nn.Layer):
    def __init__(self, input_channels, output_channels, filter_size, stride, padding, fan_in, groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        weight, bias = _uniform(fan_in)
        self._conv = nn.Conv2D(
            input_channels,
            output_channels,
            filter_size,
            stride=stride,
            padding=padding,
            groups=groups,
            weight_attr=weight,
            bias_attr=bias,
        )
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        return self._pool(self.relu(x) if self.relu is not None else x)


class AlexNet(nn.Layer):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 3 * 11 * 11, act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 64 * 5 * 5, act="relu")
        weight, bias = _uniform(192 * 3 * 3)
        self._conv3 = nn.Conv2D(192, 384, 3, stride=1, padding=1, weight_attr=weight, bias_attr=bias)
        weight, bias = _uniform(384 * 3 * 3)
        self._conv4 = nn.Conv2D(384, 256, 3, stride=1, padding=1, weight_attr=weight, bias_attr=bias)
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 256 * 3 * 3, act="relu")
        if num_classes > 0:
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            weight, bias = _uniform(256 * 6 * 6)
            self._fc6 = nn.Linear(256 * 6 * 6, 4096, weight_attr=weight, bias_attr=bias)
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            weight, bias = _uniform(4096.0)
            self._fc7 = nn.Linear(4096, 4096, weight_attr=weight, bias_attr=bias)
            weight, bias = _uniform(4096.0)
            self._fc8 = nn.Linear(4096, num_classes, weight_attr=weight, bias_attr=bias)

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv3(x))
        x = self._conv5(F.relu(self._conv4(x)))
        if self.num_classes > 0:
            x = self._drop1(flatten(x, start_axis=1, stop_axis=-1))
            x = self._drop2(F.relu(self._fc6(x)))
            x = self._fc8(F.relu(self._fc7(x)))
        return x


def alexnet(pretrained=False, **kwargs):
    refuse_pretrained("alexnet", pretrained)
    return AlexNet(**kwargs)
