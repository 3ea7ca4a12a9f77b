"""``paddle.vision.datasets.MNIST`` and ``FashionMNIST``: the IDX files (gzip) of Paddle's cache
(``mnist/``, ``fashion-mnist/``: train-images-idx3-ubyte.gz, ...) or the paths given; samples are
(a 28x28 image: a PIL image of mode 'L' with the 'pil' backend, else float pixels 0..255 in the
default dtype, after ``transform``; label int64 [1])."""

import numpy as np

from ....base.errors import PeError
from ....data.idx import read_idx
from ...io import Dataset
from ...device import get_default_dtype
from ._cache import check_backend, local_file

__all__ = ["MNIST", "FashionMNIST"]


class MNIST(Dataset):
    NAME = "mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/mnist/"

    def __init__(self, image_path=None, label_path=None, mode="train", transform=None, download=True, backend=None):
        if mode.lower() not in ("train", "test"):
            raise AssertionError(f"mode should be 'train' or 'test', but got {mode}")
        self.backend = check_backend(type(self).__name__, backend)
        self.mode = mode.lower()
        prefix = "train" if self.mode == "train" else "t10k"
        where = f"vision.datasets.{type(self).__name__}"
        self.image_path = local_file(
            where, image_path, f"{self.URL_PREFIX}{prefix}-images-idx3-ubyte.gz", self.NAME, download
        )
        self.label_path = local_file(
            where, label_path, f"{self.URL_PREFIX}{prefix}-labels-idx1-ubyte.gz", self.NAME, download
        )
        self.transform = transform
        images, labels = read_idx(self.image_path), read_idx(self.label_path)
        if len(images) != len(labels):
            raise PeError(
                f"paddle.{where}: {self.image_path} holds {len(images)} images but {self.label_path} "
                f"{len(labels)} labels"
            )
        self.images = images.reshape(len(images), -1).astype("float32")
        self.labels = [np.array([v]).astype("int64") for v in labels]
        self.dtype = get_default_dtype()

    def __getitem__(self, idx):
        image, label = np.reshape(self.images[idx], [28, 28]), self.labels[idx]
        if self.backend == "pil":
            from PIL import Image

            image = Image.fromarray(image.astype("uint8"), mode="L")
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == "pil":
            return image, label.astype("int64")
        return image.astype(self.dtype), label.astype("int64")

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    NAME = "fashion-mnist"
    URL_PREFIX = "https://dataset.bj.bcebos.com/fashion_mnist/"
