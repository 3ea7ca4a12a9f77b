"""``paddle.dataset.image``: Paddle's image helpers for readers: decode (``load_image_bytes``,
``load_image``: HWC uint8 in OpenCV's BGR order, or HW for gray), ``resize_short`` (bicubic),
``center_crop`` / ``random_crop``, ``left_right_flip``, ``to_chw``, ``simple_transform`` (resize, crop,
flip when training, CHW float32, minus a mean), ``load_and_transform``, and
``batch_images_from_tar`` (an archive's labelled images pickled in batches, with a list file).
Paddle decodes and resizes with OpenCV; pe does too where opencv-python is installed, else with
Pillow (the same pixels for PNG and BMP; a JPEG's and a bicubic resize's may differ by a level)."""

import io
import os
import pickle
import tarfile

import numpy as np

from ...fluid.unsupported import MissingModule, optional_module
from .common import member

__all__ = [
    "load_image_bytes",
    "load_image",
    "resize_short",
    "to_chw",
    "center_crop",
    "random_crop",
    "left_right_flip",
    "simple_transform",
    "load_and_transform",
    "batch_images_from_tar",
]
cv2 = optional_module("cv2", "opencv-python")
Image = optional_module("PIL.Image", "Pillow")
six = optional_module("six")


def _have_cv2():
    return not isinstance(cv2, MissingModule)


def _pil_decode(source, is_color):
    with Image.open(source) as img:
        array = np.asarray(img.convert("RGB" if is_color else "L"))
    return array[:, :, ::-1].copy() if is_color else array  # RGB -> BGR, as OpenCV gives


def batch_images_from_tar(data_file, dataset_name, img2label, num_per_batch=1024):
    """Pickles the archive's images named in ``img2label`` in batches ({'label': [...], 'data':
    [bytes...]}) under ``<data_file>_batch/<dataset_name>/`` and lists them in
    ``<data_file>_batch/<dataset_name>.txt``, whose path it returns (at once when the folder exists)."""
    batch_dir = data_file + "_batch"
    out_path, meta_file = f"{batch_dir}/{dataset_name}", f"{batch_dir}/{dataset_name}.txt"
    if os.path.exists(out_path):
        return meta_file
    os.makedirs(out_path)
    data, labels, file_id = [], [], 0
    with tarfile.open(data_file) as tf:
        for mem in tf.getmembers():
            if mem.name not in img2label:
                continue
            data.append(member("image", tf, mem))
            labels.append(img2label[mem.name])
            if len(data) == num_per_batch:
                with open(f"{out_path}/batch_{file_id}", "wb") as f:
                    pickle.dump({"label": labels, "data": data}, f, protocol=2)
                file_id, data, labels = file_id + 1, [], []
    if data:
        with open(f"{out_path}/batch_{file_id}", "wb") as f:
            pickle.dump({"label": labels, "data": data}, f, protocol=2)
    with open(meta_file, "a") as meta:
        for name in os.listdir(out_path):
            meta.write(os.path.abspath(f"{out_path}/{name}") + "\n")
    return meta_file


def load_image_bytes(bytes, is_color=True):  # noqa: A002 -- Paddle's argument name
    """The pixels of an encoded image (HWC BGR uint8, or HW gray)."""
    if _have_cv2():
        return cv2.imdecode(np.asarray(bytearray(bytes), dtype=np.uint8), 1 if is_color else 0)
    return _pil_decode(io.BytesIO(bytes), is_color)


def load_image(file, is_color=True):
    """The pixels of an image file (HWC BGR uint8, or HW gray)."""
    if _have_cv2():
        return cv2.imread(file, 1 if is_color else 0)
    return _pil_decode(file, is_color)


def resize_short(im, size):
    """The image scaled (bicubic) so its shorter side is ``size``."""
    h, w = im.shape[:2]
    h_new, w_new = (size * h // w, size) if h > w else (size, size * w // h)
    if _have_cv2():
        return cv2.resize(im, (w_new, h_new), interpolation=cv2.INTER_CUBIC)
    return np.asarray(Image.fromarray(im).resize((w_new, h_new), Image.BICUBIC))


def to_chw(im, order=(2, 0, 1)):
    assert len(im.shape) == len(order)
    return im.transpose(order)


def center_crop(im, size, is_color=True):
    h, w = im.shape[:2]
    y, x = (h - size) // 2, (w - size) // 2
    return im[y : y + size, x : x + size]


def random_crop(im, size, is_color=True):
    h, w = im.shape[:2]
    y, x = np.random.randint(0, h - size + 1), np.random.randint(0, w - size + 1)
    return im[y : y + size, x : x + size]


def left_right_flip(im, is_color=True):
    return im[:, ::-1]


def simple_transform(im, resize_size, crop_size, is_train, is_color=True, mean=None):
    """resize_short, then a random crop (mirrored half of the time) when training, else the centre
    crop; CHW float32, minus ``mean`` (per channel when 1-D)."""
    im = resize_short(im, resize_size)
    if is_train:
        im = random_crop(im, crop_size, is_color=is_color)
        if np.random.randint(2) == 0:
            im = left_right_flip(im, is_color)
    else:
        im = center_crop(im, crop_size, is_color=is_color)
    if len(im.shape) == 3:
        im = to_chw(im)
    im = im.astype("float32")
    if mean is not None:
        mean = np.array(mean, dtype=np.float32)
        if mean.ndim == 1 and is_color:
            mean = mean[:, np.newaxis, np.newaxis]
        elif mean.ndim != 1:
            assert len(mean.shape) == len(im)
        im -= mean
    return im


def load_and_transform(filename, resize_size, crop_size, is_train, is_color=True, mean=None):
    return simple_transform(load_image(filename, is_color), resize_size, crop_size, is_train, is_color, mean)
