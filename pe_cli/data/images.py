"""Image files (PNG, JPEG, ...) decoded through Pillow, an optional extra (``pip install
'pe-cli[images]'``): only an image preprocessing loads it.

    load_images(paths, size=[28, 28], crop=None, mode="L", scale=1/255, mean=None, std=None)
    -> float32 [N, C, H, W]

``size`` resizes to [height, width] (bilinear), then ``crop`` cuts the centre [height, width];
``mode`` L (gray, one channel), RGB or BGR (the channels reversed); the values are multiplied by
``scale``, then ``(x - mean) / std`` per channel. A folder of class folders
(``folder/<class>/<image>``) gives each image its folder's name as its class (``class_folders``).
"""

import io
import os

import numpy as np

from ..base.limits import LimitError, check_bytes, file_kind
from .readers import DataError

IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".webp")
MODES = ("L", "RGB", "BGR")


def missing_pillow_message():
    return "image preprocessing needs Pillow: pip install 'pe-cli[images]' (or pip install Pillow)"


def pillow():
    """Pillow's Image module; a DataError saying how to install it when it is absent."""
    try:
        from PIL import Image  # the optional extra
    except ImportError:
        raise DataError(missing_pillow_message()) from None
    return Image


def image_files(directory):
    """The image files under ``directory`` (recursively), in name order."""
    out = []
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        out += [
            os.path.join(root, f)
            for f in sorted(files)
            if f.lower().endswith(IMAGE_EXTENSIONS) and not f.startswith(".")
        ]
    return out


def class_folders(directory):
    """(image paths, class names): each image of ``directory/<class>/`` with its folder's name,
    the classes taken in turn (the first image of each, then the second, ...), so that the first N
    samples (data.train.limit, pe smoke --samples) hold every class, not the first classes only."""
    if not os.path.isdir(directory):
        raise DataError(
            f"image folder {directory} does not exist",
            ("path",),
            "point path at a directory with one folder of images per class",
        )
    classes = sorted(
        d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)) and not d.startswith(".")
    )
    per_class = {name: image_files(os.path.join(directory, name)) for name in classes}
    paths, names = [], []
    for k in range(max((len(files) for files in per_class.values()), default=0)):
        for name, files in per_class.items():
            if k < len(files):
                paths.append(files[k])
                names.append(name)
    if not paths:
        raise DataError(
            f"{directory} holds no images in class folders",
            ("path",),
            f"lay the images out as {directory}/<class>/<image>.png",
        )
    return paths, names


def load_images(paths, size=None, crop=None, mode="RGB", scale=1 / 255, mean=None, std=None):
    image_module = pillow()
    channels = 1 if mode == "L" else 3
    out = None
    for i, path in enumerate(paths):
        array = _decode(image_module, path, size, crop, mode)
        if out is None:
            try:  # every image the size of the first: bounded first
                check_bytes(len(paths) * array.nbytes, f"{len(paths):,} images of {array.shape}")
            except LimitError as e:
                raise DataError(str(e), (), "use fewer or smaller images (size: [height, width])") from None
            out = np.empty((len(paths),) + array.shape, dtype=np.float32)
        elif array.shape != out.shape[1:]:
            raise DataError(
                f"{path}: the image is {array.shape[2]}x{array.shape[1]}, the first one {out.shape[3]}x{out.shape[2]}",
                (),
                "give size: [height, width] to resize them all",
            )
        out[i] = array
    if out is None:
        return np.zeros((0, channels, 1, 1), dtype=np.float32)
    out *= np.float32(scale)
    for key, value, op in (("mean", mean, np.subtract), ("std", std, np.divide)):
        if value is not None:
            op(out, _per_channel(value, channels, key), out=out)
    return out


def decode_image_bytes(data, where):
    """The image file's bytes ``data`` decoded: uint8 [height, width, 3] in RGB order. ``where`` names
    it in the error when it is not a readable image."""
    image_module = pillow()
    try:
        with image_module.open(io.BytesIO(data)) as img:
            return np.asarray(img.convert("RGB"), dtype=np.uint8)
    except (OSError, ValueError, image_module.DecompressionBombError) as e:
        raise DataError(f"{where}: not a readable image ({e})") from None


def _decode(image_module, path, size, crop, mode):
    kind = file_kind(path)
    if kind == "missing":
        raise DataError(f"image file {path} does not exist", (), "image paths are relative to the table's folder")
    if kind is not None:
        raise DataError(f"{path} is {kind}, not a regular file, so pe does not read it", (), "give PNG or JPEG files")
    try:
        with image_module.open(path) as img:
            img = img.convert("L" if mode == "L" else "RGB")
            if size:
                img = img.resize((size[1], size[0]), image_module.BILINEAR)
            if crop:
                w, h = img.size
                if crop[0] > h or crop[1] > w:
                    raise DataError(f"{path}: crop {crop} is larger than the image ({h}x{w})", ("crop",))
                top, left = (h - crop[0]) // 2, (w - crop[1]) // 2
                img = img.crop((left, top, left + crop[1], top + crop[0]))
            array = np.asarray(img, dtype=np.float32)
    except (OSError, ValueError, image_module.DecompressionBombError) as e:
        raise DataError(f"{path}: not a readable image ({e})", (), "give PNG or JPEG files") from None
    if mode == "L":
        return array[None]
    array = array.transpose(2, 0, 1)
    return array[::-1] if mode == "BGR" else array


def _per_channel(value, channels, key):
    values = np.asarray(value if isinstance(value, list) else [value], dtype=np.float32)
    if len(values) not in (1, channels):
        raise DataError(
            f"{key} has {len(values)} values for {channels} channel(s)", (key,), f"give one number or {channels}"
        )
    return values.reshape(-1, 1, 1)
