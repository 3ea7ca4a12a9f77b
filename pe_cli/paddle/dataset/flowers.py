"""``paddle.dataset.flowers``: Oxford's 102 Category Flowers as Paddle 1.8's readers give them, from
Paddle's cache ``~/.cache/paddle/dataset/flowers/``: ``102flowers.tgz`` (``jpg/image_00001.jpg``,
...), ``imagelabels.mat`` (``labels``: the class 1..102 of each image) and ``setid.mat``
(``trnid``, ``valid``, ``tstid``: image numbers), the .mat files read by pe_cli/data/matfile.py.
Nothing downloads, and Paddle's intermediate pickled batch files are neither written nor read.

As in Paddle, ``train()`` reads the ``tstid`` images (the larger split) and ``test()`` the ``trnid``
ones. A sample is ``mapper((jpeg bytes, label - 1))``; the default mappers decode the image (BGR,
as OpenCV gives it), resize its short side to 256 (bicubic, by Pillow: values differ from OpenCV's
by a few levels), crop 224x224 (at random and flipped half the time for training, the centre
otherwise), and return (float32[3 * 224 * 224] CHW minus the BGR mean, label). With ``use_xmap``
the mapper runs on ``CPU_NUM`` (or all the cores') threads, samples coming as they are ready."""

import functools
import os

import numpy as np

from ...base.errors import PeError
from ...data.images import decode_image_bytes, pillow
from ...data.matfile import read_mat
from ...data.reader_decorators import map_readers, xmap_readers
from .common import cached_file, member, members, open_tar

__all__ = ["train", "test", "valid", "fetch"]

_URL = "http://paddlemodels.cdn.bcebos.com/flowers/"
TRAIN_FLAG, TEST_FLAG, VALID_FLAG = "tstid", "trnid", "valid"
MEAN_BGR = [103.94, 116.78, 123.68]


def _file(name):
    return cached_file("flowers", "flowers", name, _URL + name)


def resize_short(im, size):
    """``im`` (HWC uint8) resized so that its short side is ``size`` (bicubic)."""
    h, w = im.shape[:2]
    h_new, w_new = (size * h // w, size) if h > w else (size, size * w // h)
    image_module = pillow()
    return np.asarray(image_module.fromarray(im).resize((w_new, h_new), image_module.BICUBIC))


def simple_transform(im, resize_size, crop_size, is_train, mean=None):
    im = resize_short(im, resize_size)
    h, w = im.shape[:2]
    if is_train:
        top, left = np.random.randint(0, h - crop_size + 1), np.random.randint(0, w - crop_size + 1)
    else:
        top, left = (h - crop_size) // 2, (w - crop_size) // 2
    im = im[top : top + crop_size, left : left + crop_size]
    if is_train and np.random.randint(2) == 0:
        im = im[:, ::-1]
    im = im.transpose(2, 0, 1).astype("float32")
    if mean is not None:
        im -= np.array(mean, dtype=np.float32)[:, None, None]
    return im


def default_mapper(is_train, sample):
    img, label = sample
    bgr = decode_image_bytes(img, "a flowers image")[:, :, ::-1]
    return simple_transform(bgr, 256, 224, is_train, mean=MEAN_BGR).flatten().astype("float32"), label


train_mapper = functools.partial(default_mapper, True)
test_mapper = functools.partial(default_mapper, False)


def _image_labels(label_file, setid_file, dataset_name):
    labels, splits = read_mat(label_file), read_mat(setid_file)
    if "labels" not in labels or dataset_name not in splits:
        raise PeError(
            f"paddle.dataset.flowers: {label_file} needs a 'labels' matrix and {setid_file} a '{dataset_name}' one"
        )
    labels = labels["labels"].reshape(-1)
    img2label = {}
    for i in splits[dataset_name].reshape(-1).astype(np.int64):
        if not 1 <= i <= len(labels):
            raise PeError(f"paddle.dataset.flowers: {setid_file}: image number {i} has no label in {label_file}")
        img2label["jpg/image_%05d.jpg" % i] = int(labels[i - 1])
    return img2label


def reader_creator(
    data_file, label_file, setid_file, dataset_name, mapper, buffered_size=1024, use_xmap=True, cycle=False
):
    img2label = _image_labels(label_file, setid_file, dataset_name)

    def reader():
        while True:
            with open_tar("flowers", data_file) as tf:
                for info in members("flowers", tf):
                    if info.name in img2label:
                        yield member("flowers", tf, info), img2label[info.name] - 1
            if not cycle:
                return

    if use_xmap:
        cpu_num = int(os.environ.get("CPU_NUM", os.cpu_count() or 1))
        return xmap_readers(mapper, reader, cpu_num, buffered_size)
    return map_readers(mapper, reader)


def _reader(flag, mapper, buffered_size, use_xmap, cycle):
    return reader_creator(
        _file("102flowers.tgz"),
        _file("imagelabels.mat"),
        _file("setid.mat"),
        flag,
        mapper,
        buffered_size,
        use_xmap,
        cycle=cycle,
    )


def train(mapper=train_mapper, buffered_size=1024, use_xmap=True, cycle=False):
    return _reader(TRAIN_FLAG, mapper, buffered_size, use_xmap, cycle)


def test(mapper=test_mapper, buffered_size=1024, use_xmap=True, cycle=False):
    return _reader(TEST_FLAG, mapper, buffered_size, use_xmap, cycle)


def valid(mapper=test_mapper, buffered_size=1024, use_xmap=True):
    return _reader(VALID_FLAG, mapper, buffered_size, use_xmap, False)


def fetch():
    """Checks that the three files are in place (pe downloads nothing)."""
    for name in ("102flowers.tgz", "imagelabels.mat", "setid.mat"):
        _file(name)
