"""``paddle.vision.models.InceptionV3`` (Paddle's module ``inceptionv3``): a convolutional stem, then
inception blocks A (x3), B, C (x4, factorized 7x7), D and E (x2, split 1x3/3x1), each branch
conv + BatchNorm + ReLU, average-pool branches counting the padding (``exclusive=False``), pooling and a
linear classifier initialised uniform in +-1/sqrt(2048); sublayer names as Paddle's. Inputs from 75x75."""

import math

from ... import nn
from ...nn.initializer import Uniform
from ...tensor_manip import concat, reshape
from ._common import ConvNormActivation, ParamAttr, refuse_pretrained

__all__ = ["InceptionV3", "inception_v3"]


def _c(cin, cout, kernel, stride=1, padding=0):
    return ConvNormActivation(cin, cout, kernel_size=kernel, stride=stride, padding=padding, activation_layer=nn.ReLU)


def _avg_pool():
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv_1a_3x3 = _c(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _c(32, 32, 3)
        self.conv_2b_3x3 = _c(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _c(64, 80, 1)
        self.conv_4a_3x3 = _c(80, 192, 3)

    def forward(self, x):
        x = self.max_pool(self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x))))
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(nn.Layer):
    def __init__(self, num_channels, pool_features):
        super().__init__()
        self.branch1x1 = _c(num_channels, 64, 1)
        self.branch5x5_1, self.branch5x5_2 = _c(num_channels, 48, 1), _c(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _c(num_channels, 64, 1)
        self.branch3x3dbl_2, self.branch3x3dbl_3 = _c(64, 96, 3, padding=1), _c(96, 96, 3, padding=1)
        self.branch_pool, self.branch_pool_conv = _avg_pool(), _c(num_channels, pool_features, 1)

    def forward(self, x):
        return concat(
            [
                self.branch1x1(x),
                self.branch5x5_2(self.branch5x5_1(x)),
                self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))),
                self.branch_pool_conv(self.branch_pool(x)),
            ],
            axis=1,
        )


class InceptionB(nn.Layer):
    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3 = _c(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _c(num_channels, 64, 1)
        self.branch3x3dbl_2, self.branch3x3dbl_3 = _c(64, 96, 3, padding=1), _c(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        return concat(
            [self.branch3x3(x), self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x))), self.branch_pool(x)],
            axis=1,
        )


class InceptionC(nn.Layer):
    def __init__(self, num_channels, channels_7x7):
        super().__init__()
        c = channels_7x7
        self.branch1x1 = _c(num_channels, 192, 1)
        self.branch7x7_1 = _c(num_channels, c, 1)
        self.branch7x7_2 = _c(c, c, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _c(c, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _c(num_channels, c, 1)
        self.branch7x7dbl_2 = _c(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _c(c, c, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _c(c, c, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _c(c, 192, (1, 7), padding=(0, 3))
        self.branch_pool, self.branch_pool_conv = _avg_pool(), _c(num_channels, 192, 1)

    def forward(self, x):
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        d7 = self.branch7x7dbl_1(x)
        for layer in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4, self.branch7x7dbl_5):
            d7 = layer(d7)
        return concat([self.branch1x1(x), b7, d7, self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionD(nn.Layer):
    def __init__(self, num_channels):
        super().__init__()
        self.branch3x3_1, self.branch3x3_2 = _c(num_channels, 192, 1), _c(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _c(num_channels, 192, 1)
        self.branch7x7x3_2 = _c(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _c(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _c(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x):
        b7 = self.branch7x7x3_4(self.branch7x7x3_3(self.branch7x7x3_2(self.branch7x7x3_1(x))))
        return concat([self.branch3x3_2(self.branch3x3_1(x)), b7, self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    def __init__(self, num_channels):
        super().__init__()
        self.branch1x1 = _c(num_channels, 320, 1)
        self.branch3x3_1 = _c(num_channels, 384, 1)
        self.branch3x3_2a = _c(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _c(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _c(num_channels, 448, 1)
        self.branch3x3dbl_2 = _c(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _c(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _c(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool, self.branch_pool_conv = _avg_pool(), _c(num_channels, 192, 1)

    def forward(self, x):
        b3 = self.branch3x3_1(x)
        b3 = concat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], axis=1)
        d3 = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        d3 = concat([self.branch3x3dbl_3a(d3), self.branch3x3dbl_3b(d3)], axis=1)
        return concat([self.branch1x1(x), b3, d3, self.branch_pool_conv(self.branch_pool(x))], axis=1)


class InceptionV3(nn.Layer):
    def __init__(self, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self.layers_config = {
            "inception_a": [[192, 256, 288], [32, 64, 64]],
            "inception_b": [288],
            "inception_c": [[768, 768, 768, 768], [128, 160, 160, 192]],
            "inception_d": [768],
            "inception_e": [1280, 2048],
        }
        cfg = self.layers_config
        self.inception_stem = InceptionStem()
        self.inception_block_list = nn.LayerList()
        blocks = (
            [InceptionA(c, p) for c, p in zip(*cfg["inception_a"])]
            + [InceptionB(c) for c in cfg["inception_b"]]
            + [InceptionC(c, s) for c, s in zip(*cfg["inception_c"])]
            + [InceptionD(c) for c in cfg["inception_d"]]
            + [InceptionE(c) for c in cfg["inception_e"]]
        )
        for block in blocks:
            self.inception_block_list.append(block)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048 * 1.0)
            self.fc = nn.Linear(
                2048, num_classes, weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)), bias_attr=ParamAttr()
            )

    def forward(self, x):
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            x = self.fc(self.dropout(reshape(x, [-1, 2048])))
        return x


def inception_v3(pretrained=False, **kwargs):
    refuse_pretrained("inception_v3", pretrained)
    return InceptionV3(**kwargs)
