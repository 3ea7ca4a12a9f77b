"""``paddle.vision.datasets``: MNIST, FashionMNIST, Cifar10, Cifar100 from Paddle's cache folder (or
the paths given; pe downloads nothing: an absent file is one line naming it), DatasetFolder and
ImageFolder over local images; Flowers and VOC2012 say in one line that pe does not read them yet."""

from . import cifar, flowers, folder, mnist, voc  # noqa: F401
from .cifar import Cifar10, Cifar100  # noqa: F401
from .folder import DatasetFolder, ImageFolder  # noqa: F401
from .mnist import MNIST, FashionMNIST  # noqa: F401
from .others import Flowers, VOC2012  # noqa: F401

__all__ = ["DatasetFolder", "ImageFolder", "MNIST", "FashionMNIST", "Flowers", "Cifar10", "Cifar100", "VOC2012"]
