"""``paddle.vision.models.MobileNetV1`` (Paddle's module ``mobilenetv1``): a strided conv, thirteen
depthwise-separable blocks, pooling and a linear classifier; ``scale`` widens every layer."""

from ... import nn
from ...tensor_manip import flatten
from ._common import ConvNormActivation, refuse_pretrained

__all__ = ["MobileNetV1", "mobilenet_v1"]


class DepthwiseSeparable(nn.Layer):
    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(
            in_channels,
            int(out_channels1 * scale),
            kernel_size=3,
            stride=stride,
            padding=1,
            groups=int(num_groups * scale),
        )
        self._pointwise_conv = ConvNormActivation(
            int(out_channels1 * scale), int(out_channels2 * scale), kernel_size=1, stride=1, padding=0
        )

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


# name, (in channels before scaling, out_channels1, out_channels2, groups, stride)
_BLOCKS = (
    [
        ("conv2_1", (32, 32, 64, 32, 1)),
        ("conv2_2", (64, 64, 128, 64, 2)),
        ("conv3_1", (128, 128, 128, 128, 1)),
        ("conv3_2", (128, 128, 256, 128, 2)),
        ("conv4_1", (256, 256, 256, 256, 1)),
        ("conv4_2", (256, 256, 512, 256, 2)),
    ]
    + [(f"conv5_{i}", (512, 512, 512, 512, 1)) for i in range(1, 6)]
    + [("conv5_6", (512, 512, 1024, 512, 2)), ("conv6", (1024, 1024, 1024, 1024, 1))]
)


class MobileNetV1(nn.Layer):
    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2, padding=1)
        self.dwsl = [
            self.add_sublayer(name, DepthwiseSeparable(int(c * scale), o1, o2, g, s, scale))
            for name, (c, o1, o2, g, s) in _BLOCKS
        ]
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    refuse_pretrained("mobilenet_v1", pretrained)
    return MobileNetV1(scale=scale, **kwargs)
