"""``paddle.dataset.voc2012`` (``pe fluid`` maps that name here: a module name of pe never ends in a
digit): PASCAL VOC 2012 segmentation, read from VOCtrainval_11-May-2012.tar in
``<data home>/voc2012`` (pe downloads nothing). Each sample is (image HWC uint8, class-index mask
HW uint8). Paddle's ``train`` reads the trainval list, ``test`` the train list, ``val`` the val list.
(Paddle 1.8.5's reader formats the list's bytes into the member names and finds none on Python 3.)"""

import io
import tarfile

import numpy as np

from .common import cached_file, download, member  # noqa: F401
from .image import *  # noqa: F401,F403 -- Paddle's module has image's names
from ...fluid.unsupported import optional_module

__all__ = ["train", "test", "val"]
Image = optional_module("PIL.Image", "Pillow")
VOC_URL = "http://host.robots.ox.ac.uk/pascal/VOC/voc2012/VOCtrainval_11-May-2012.tar"
VOC_MD5 = "6cd6e144f989b92b3379bac3b3de84fd"
SET_FILE = "VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt"
DATA_FILE = "VOCdevkit/VOC2012/JPEGImages/{}.jpg"
LABEL_FILE = "VOCdevkit/VOC2012/SegmentationClass/{}.png"
CACHE_DIR = "voc2012"


def reader_creator(filename, sub_name):
    """A reader of the images and masks the list ``sub_name`` names in the archive ``filename``."""

    def reader():
        with tarfile.open(filename) as tar:
            names = member("voc2012", tar, SET_FILE.format(sub_name)).decode().split()
            for name in names:
                data = member("voc2012", tar, DATA_FILE.format(name))
                label = member("voc2012", tar, LABEL_FILE.format(name))
                yield np.array(Image.open(io.BytesIO(data))), np.array(Image.open(io.BytesIO(label)))

    return reader


def _archive():
    return cached_file("voc2012", CACHE_DIR, VOC_URL.split("/")[-1], VOC_URL)


def train():
    return reader_creator(_archive(), "trainval")


def test():
    return reader_creator(_archive(), "train")


def val():
    return reader_creator(_archive(), "val")
