"""``paddle.vision.models``: the image classification architectures of Paddle 2.6, built in static
mode from pe's ``paddle.nn`` with Paddle's sublayer names (its state dicts load); ``pretrained=True``
is refused in one line (pe downloads nothing)."""

from . import alexnet as _alexnet_module, lenet, mobilenet_one, mobilenet_three, mobilenet_two, resnet  # noqa: F401
from . import densenet, googlenet, inception_three, shufflenet_two, squeezenet, vgg  # noqa: F401
from .inception_three import InceptionV3, inception_v3  # noqa: F401
from .densenet import DenseNet, densenet121, densenet161, densenet169, densenet201, densenet264  # noqa: F401
from .googlenet import GoogLeNet  # noqa: F401
from .alexnet import AlexNet, alexnet  # noqa: F401
from .lenet import LeNet  # noqa: F401
from .mobilenet_one import MobileNetV1, mobilenet_v1  # noqa: F401
from .mobilenet_two import MobileNetV2, mobilenet_v2  # noqa: F401
from .mobilenet_three import MobileNetV3Large, MobileNetV3Small, mobilenet_v3_large, mobilenet_v3_small  # noqa: F401
from .shufflenet_two import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import SqueezeNet, squeezenet1_0, squeezenet1_1  # noqa: F401
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19  # noqa: F401

__all__ = [
    "AlexNet",
    "LeNet",
    "MobileNetV1",
    "MobileNetV2",
    "ResNet",
    "SqueezeNet",
    "VGG",
    "alexnet",
    "mobilenet_v1",
    "mobilenet_v2",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnet152",
    "resnext50_32x4d",
    "resnext50_64x4d",
    "resnext101_32x4d",
    "resnext101_64x4d",
    "resnext152_32x4d",
    "resnext152_64x4d",
    "wide_resnet50_2",
    "wide_resnet101_2",
    "squeezenet1_0",
    "squeezenet1_1",
    "vgg11",
    "vgg13",
    "vgg16",
    "vgg19",
    "MobileNetV3Small",
    "MobileNetV3Large",
    "mobilenet_v3_small",
    "mobilenet_v3_large",
    "ShuffleNetV2",
    "shufflenet_v2_x0_25",
    "shufflenet_v2_x0_33",
    "shufflenet_v2_x0_5",
    "shufflenet_v2_x1_0",
    "shufflenet_v2_x1_5",
    "shufflenet_v2_x2_0",
    "shufflenet_v2_swish",
    "DenseNet",
    "densenet121",
    "densenet161",
    "densenet169",
    "densenet201",
    "densenet264",
    "GoogLeNet",
    "googlenet",
    "InceptionV3",
    "inception_v3",
]

googlenet = googlenet.googlenet  # the function, as Paddle's package binds it over its module
