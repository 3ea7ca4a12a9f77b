"""``paddle.vision.models.GoogLeNet``: convolutions, nine inception modules (1x1, 3x3 and 5x5
branches and a pooled projection, concatenated then ReLU) and, as Paddle's, the main output with the two
auxiliary heads' (from inception 4a and 4d): ``[out, out1, out2]``. The heads' flattened size takes
inputs of 192x192 (Paddle's layer sizes)."""

from ... import nn
from ...nn import functional as F
from ...nn.initializer import Uniform
from ...tensor_manip import concat, flatten, squeeze
from ._common import ParamAttr, refuse_pretrained

__all__ = ["GoogLeNet", "googlenet"]


def xavier(channels, filter_size):
    stdv = (3.0 / (filter_size**2 * channels)) ** 0.5
    return ParamAttr(initializer=Uniform(-stdv, stdv))


class ConvLayer(nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, groups=1):
        super().__init__()
        self._conv = nn.Conv2D(
            num_channels,
            num_filters,
            filter_size,
            stride=stride,
            padding=(filter_size - 1) // 2,
            groups=groups,
            bias_attr=False,
        )

    def forward(self, inputs):
        return self._conv(inputs)


class Inception(nn.Layer):
    def __init__(self, input_channels, output_channels, filter1, filter3R, filter3, filter5R, filter5, proj):
        super().__init__()
        self._conv1 = ConvLayer(input_channels, filter1, 1)
        self._conv3r = ConvLayer(input_channels, filter3R, 1)
        self._conv3 = ConvLayer(filter3R, filter3, 3)
        self._conv5r = ConvLayer(input_channels, filter5R, 1)
        self._conv5 = ConvLayer(filter5R, filter5, 5)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=1, padding=1)
        self._convprj = ConvLayer(input_channels, proj, 1)

    def forward(self, inputs):
        branches = [
            self._conv1(inputs),
            self._conv3(self._conv3r(inputs)),
            self._conv5(self._conv5r(inputs)),
            self._convprj(self._pool(inputs)),
        ]
        return F.relu(concat(branches, axis=1))


_INCEPTIONS = [
    ("_ince3a", (192, 192, 64, 96, 128, 16, 32, 32)),
    ("_ince3b", (256, 256, 128, 128, 192, 32, 96, 64)),
    ("_ince4a", (480, 480, 192, 96, 208, 16, 48, 64)),
    ("_ince4b", (512, 512, 160, 112, 224, 24, 64, 64)),
    ("_ince4c", (512, 512, 128, 128, 256, 24, 64, 64)),
    ("_ince4d", (512, 512, 112, 144, 288, 32, 64, 64)),
    ("_ince4e", (528, 528, 256, 160, 320, 32, 128, 128)),
    ("_ince5a", (832, 832, 256, 160, 320, 32, 128, 128)),
    ("_ince5b", (832, 832, 384, 192, 384, 48, 128, 128)),
]


class GoogLeNet(nn.Layer):
    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self._conv = ConvLayer(3, 64, 7, 2)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2)
        self._conv_1 = ConvLayer(64, 64, 1)
        self._conv_2 = ConvLayer(64, 192, 3)
        for name, args in _INCEPTIONS:
            setattr(self, name, Inception(*args))
        if with_pool:
            self._pool_5 = nn.AdaptiveAvgPool2D(1)
            self._pool_o1 = nn.AvgPool2D(kernel_size=5, stride=3)
            self._pool_o2 = nn.AvgPool2D(kernel_size=5, stride=3)
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.4, mode="downscale_in_infer")
            self._fc_out = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            self._conv_o1 = ConvLayer(512, 128, 1)
            self._fc_o1 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o1 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out1 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))
            self._conv_o2 = ConvLayer(528, 128, 1)
            self._fc_o2 = nn.Linear(1152, 1024, weight_attr=xavier(2048, 1))
            self._drop_o2 = nn.Dropout(p=0.7, mode="downscale_in_infer")
            self._out2 = nn.Linear(1024, num_classes, weight_attr=xavier(1024, 1))

    def forward(self, inputs):
        x = self._pool(self._conv_2(self._conv_1(self._pool(self._conv(inputs)))))
        x = self._pool(self._ince3b(self._ince3a(x)))
        ince4a = self._ince4a(x)
        ince4d = self._ince4d(self._ince4c(self._ince4b(ince4a)))
        x = self._pool(self._ince4e(ince4d))
        out, out1, out2 = self._ince5b(self._ince5a(x)), ince4a, ince4d
        if self.with_pool:
            out, out1, out2 = self._pool_5(out), self._pool_o1(out1), self._pool_o2(out2)
        if self.num_classes > 0:
            out = self._fc_out(squeeze(self._drop(out), axis=[2, 3]))
            out1 = self._fc_o1(flatten(self._conv_o1(out1), start_axis=1, stop_axis=-1))
            out1 = self._out1(self._drop_o1(F.relu(out1)))
            out2 = self._fc_o2(flatten(self._conv_o2(out2), start_axis=1, stop_axis=-1))
            out2 = self._out2(self._drop_o2(out2))
        return [out, out1, out2]


def googlenet(pretrained=False, **kwargs):
    refuse_pretrained("googlenet", pretrained)
    return GoogLeNet(**kwargs)
