"""``paddle.utils.preprocess_img``: Paddle's old image-classification dataset creator: a folder per
class under ``train`` and ``test``, each image resized (short side ``target_size``) and pickled as
JPEG bytes in batches, with the mean image in the meta file (preprocess_util.py)."""

import io
import os
import random
import sys  # noqa: F401 -- Fluid's module has these names

import numpy as np

from . import preprocess_util
from .image_util import Image, crop_img, resize_image  # noqa: F401

StringIO = io.BytesIO


class DiskImage:
    """An image file, read (and resized) on first use."""

    def __init__(self, path, target_size):
        self.path, self.target_size, self.img = path, target_size, None

    def read_image(self):
        if self.img is None:
            print("reading: " + self.path)
            self.img = resize_image(Image.open(self.path), self.target_size)

    def convert_to_array(self):
        """The pixels, CHW for a color image."""
        self.read_image()
        array = np.array(self.img)
        return np.transpose(array, (2, 0, 1)) if array.ndim == 3 else array

    def convert_to_paddle_format(self):
        """The image as JPEG bytes."""
        self.read_image()
        out = StringIO()
        self.img.save(out, "jpeg")
        return out.getvalue()


class ImageClassificationDatasetCreater(preprocess_util.DatasetCreater):
    def __init__(self, data_path, target_size, color=True):
        super().__init__(data_path)
        self.target_size, self.color = target_size, color
        self.keys, self.permute_key = ["images", "labels"], "labels"

    def create_meta_file(self, data):
        """Saves the mean of the centre crops and the dataset's sizes in ``batches/batches.meta``."""
        mean = np.zeros(((3,) if self.color else ()) + (self.target_size, self.target_size))
        for sample in data.data:
            mean += crop_img(sample[0].convert_to_array(), self.target_size, self.color)
        mean = (mean / len(data.data)).astype("int32").flatten()
        preprocess_util.save_file(
            {
                "data_mean": mean,
                "image_size": self.target_size,
                "mean_image_size": self.target_size,
                "num_classes": self.num_classes,
                "color": self.color,
            },
            os.path.join(self.data_path, self.batch_dir_name, self.meta_filename),
        )

    def create_dataset_from_list(self, path):
        """Samples from a list file of ``image_path label_name`` lines."""
        data, label_set = [], {}
        with open(path) as f:
            for line in f:
                image_path, label_name = line.split()[:2]
                label_set.setdefault(label_name, len(label_set))
                data.append(
                    (DiskImage(image_path, self.target_size), preprocess_util.Label(label_set[label_name], label_name))
                )
        return preprocess_util.Dataset(data, self.keys), label_set

    def create_dataset_from_dir(self, path):
        """Samples from a folder per class, shuffled."""
        if self.from_list:
            return self.create_dataset_from_list(path)
        label_set = preprocess_util.get_label_set_from_dir(path)
        data = [
            (DiskImage(p, self.target_size), preprocess_util.Label(label, name))
            for name, label in label_set.items()
            for p in preprocess_util.list_images(os.path.join(path, name))
        ]
        random.shuffle(data)
        return preprocess_util.Dataset(data, self.keys), label_set
