"""``paddle.vision.models.DenseNet`` (121, 161, 169, 201, 264 layers): a strided conv and max-pool,
dense blocks (each layer BatchNorm-ReLU-conv 1x1 then 3x3, its output concatenated to its input) joined
by transitions (BatchNorm-ReLU-conv 1x1, 2x2 average pooling), a last BatchNorm-ReLU, pooling and a
linear classifier initialised uniform in +-1/sqrt(features); sublayer names as Paddle's."""

import math

from ... import nn
from ...nn.initializer import Uniform
from ...tensor_manip import concat, flatten
from ._common import ParamAttr, refuse_pretrained

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201", "densenet264"]

_SPECS = {
    121: (64, 32, [6, 12, 24, 16]),
    161: (96, 48, [6, 12, 36, 24]),
    169: (64, 32, [6, 12, 32, 32]),
    201: (64, 32, [6, 12, 48, 32]),
    264: (64, 32, [6, 12, 64, 48]),
}


def _conv(cin, cout, kernel, stride, pad, groups=1):
    return nn.Conv2D(
        cin, cout, kernel, stride=stride, padding=pad, groups=groups, weight_attr=ParamAttr(), bias_attr=False
    )


class BNACConvLayer(nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = _conv(num_channels, num_filters, filter_size, stride, pad, groups)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, pad=0, stride=1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1, stride=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        for layer in range(num_layers):
            self.dense_layer_func.append(
                self.add_sublayer(
                    f"{name}_{layer + 1}", DenseLayer(num_channels + layer * growth_rate, growth_rate, bn_size, dropout)
                )
            )

    def forward(self, input):
        for func in self.dense_layer_func:
            input = func(input)
        return input


class TransitionLayer(nn.Layer):
    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, pad=0, stride=1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1, act="relu"):
        super().__init__()
        self._conv = _conv(num_channels, num_filters, filter_size, stride, pad, groups)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseNet(nn.Layer):
    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        if layers not in _SPECS:
            raise AssertionError(f"supported layers are {sorted(_SPECS)} but input layer is {layers}")
        num_init_features, growth_rate, block_config = _SPECS[layers]
        self.conv1_func = ConvBNLayer(3, num_init_features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.block_config = block_config
        self.dense_block_func_list, self.transition_func_list = [], []
        features = num_init_features
        for i, num_layers in enumerate(block_config):
            self.dense_block_func_list.append(
                self.add_sublayer(
                    f"db_conv_{i + 2}",
                    DenseBlock(features, num_layers, bn_size, growth_rate, dropout, name=f"conv{i + 2}"),
                )
            )
            features += num_layers * growth_rate
            if i != len(block_config) - 1:
                self.transition_func_list.append(
                    self.add_sublayer(f"tr_conv{i + 2}_blk", TransitionLayer(features, features // 2))
                )
                features //= 2
        self.batch_norm = nn.BatchNorm(features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(features * 1.0)
            self.out = nn.Linear(
                features, num_classes, weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)), bias_attr=ParamAttr()
            )

    def forward(self, input):
        y = self.pool2d_max(self.conv1_func(input))
        for i in range(len(self.block_config)):
            y = self.dense_block_func_list[i](y)
            if i != len(self.block_config) - 1:
                y = self.transition_func_list[i](y)
        y = self.batch_norm(y)
        if self.with_pool:
            y = self.pool2d_avg(y)
        if self.num_classes > 0:
            y = self.out(flatten(y, start_axis=1, stop_axis=-1))
        return y


def _densenet(layers, pretrained, **kwargs):
    refuse_pretrained(f"densenet{layers}", pretrained)
    return DenseNet(layers=layers, **kwargs)


def densenet121(pretrained=False, **kwargs):
    return _densenet(121, pretrained, **kwargs)


def densenet161(pretrained=False, **kwargs):
    return _densenet(161, pretrained, **kwargs)


def densenet169(pretrained=False, **kwargs):
    return _densenet(169, pretrained, **kwargs)


def densenet201(pretrained=False, **kwargs):
    return _densenet(201, pretrained, **kwargs)


def densenet264(pretrained=False, **kwargs):
    return _densenet(264, pretrained, **kwargs)
