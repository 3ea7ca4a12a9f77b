"""``paddle.vision.datasets.Cifar10`` and ``Cifar100``: the Python versions' archives of Paddle's
cache (``cifar/cifar-10-python.tar.gz``, ``cifar-100-python.tar.gz``) or the file given; the batches
are parsed as plain data, never unpickled (pe_cli/paddle/dataset/cifar.py). Samples are (a 32x32x3
image: PIL with the 'pil' backend, else float in the default dtype, after ``transform``; label int64)."""

import numpy as np

from ...io import Dataset
from ...dataset.cifar import CIFAR10_URL, CIFAR100_URL, _batch
from ...dataset.common import member, members, open_tar
from ...device import get_default_dtype
from ._cache import check_backend, local_file

__all__ = ["Cifar10", "Cifar100"]


class Cifar10(Dataset):
    URL, FLAGS = CIFAR10_URL, {"train": "data_batch", "test": "test_batch"}

    def __init__(self, data_file=None, mode="train", transform=None, download=True, backend=None):
        if mode.lower() not in ("train", "test"):
            raise AssertionError(f"mode.lower() should be 'train' or 'test', but got {mode}")
        self.mode = mode.lower()
        self.backend = check_backend(type(self).__name__, backend)
        self.flag = self.FLAGS[self.mode]
        self.data_file = local_file(f"vision.datasets.{type(self).__name__}", data_file, self.URL, "cifar", download)
        self.transform = transform
        self.data = []
        with open_tar("cifar", self.data_file) as tf:
            found = sorted((info for info in members("cifar", tf) if self.flag in info.name), key=lambda i: i.name)
            for info in found:
                images, labels = _batch(self.data_file, info.name, member("cifar", tf, info))
                self.data.extend(zip(images, labels))
        self.dtype = get_default_dtype()

    def __getitem__(self, idx):
        image, label = self.data[idx]
        image = np.reshape(image, [3, 32, 32]).transpose([1, 2, 0])
        if self.backend == "pil":
            from PIL import Image

            image = Image.fromarray(image.astype("uint8"))
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, np.array(label).astype("int64")
        return image.astype(self.dtype), np.array(label).astype("int64")

    def __len__(self):
        return len(self.data)


class Cifar100(Cifar10):
    URL, FLAGS = CIFAR100_URL, {"train": "train", "test": "test"}
