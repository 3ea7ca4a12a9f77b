"""``paddle.vision.transforms``' functions on numpy HWC images (as Paddle 2.6's numpy backend:
warp.py resamples, color.py adjusts colours) and on PIL images (resize and colours by Pillow; the
geometric ones through the numpy path and back to an image of the same mode). pe has no eager
tensors: ``to_tensor`` returns a float32 numpy array."""

import math
import numbers
from collections.abc import Sequence

import numpy as np

from ....data.images import pillow
from . import warp
from .color import adjust_brightness, adjust_contrast, adjust_hue, adjust_saturation, gray, is_pil  # noqa: F401

__all__ = [
    "to_tensor",
    "hflip",
    "vflip",
    "resize",
    "pad",
    "rotate",
    "affine",
    "perspective",
    "to_grayscale",
    "normalize",
    "center_crop",
    "crop",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_saturation",
    "adjust_hue",
    "erase",
    "image_size",
]

_PIL_RESAMPLE = {"nearest": 0, "bilinear": 2, "bicubic": 3, "lanczos": 1, "box": 4, "hamming": 5}


def _check(img):
    if is_pil(img):
        return True
    if isinstance(img, np.ndarray) and img.ndim in (2, 3):
        return False
    raise TypeError(f"img should be PIL Image or ndarray with dim=[2 or 3]. Got {type(img)}")


def _through_numpy(img, fn):
    """``fn`` of a PIL image's array, back as an image of its mode; of an array, directly."""
    if not _check(img):
        return fn(img)
    return pillow().fromarray(fn(np.asarray(img)), img.mode)


def image_size(img):
    """(width, height)."""
    return img.size if _check(img) else (img.shape[1], img.shape[0])


def to_tensor(pic, data_format="CHW"):
    """A float32 array, CHW (or HWC); uint8 values divided by 255."""
    if data_format not in ("CHW", "HWC"):
        raise ValueError(f"data_format should be CHW or HWC. Got {data_format}")
    array = np.asarray(pic) if _check(pic) else pic
    if array.ndim == 2:
        array = array[:, :, None]
    if data_format == "CHW":
        array = array.transpose((2, 0, 1))
    return array.astype(np.float32) / 255.0 if array.dtype == np.uint8 else array.astype(np.float32, copy=False)


def hflip(img):
    return _through_numpy(img, lambda a: np.ascontiguousarray(a[:, ::-1]))


def vflip(img):
    return _through_numpy(img, lambda a: np.ascontiguousarray(a[::-1]))


def _target_size(size, h, w):
    if isinstance(size, int):
        if (w <= h and w == size) or (h <= w and h == size):
            return None
        return (int(size * h / w), size) if w < h else (size, int(size * w / h))
    if isinstance(size, Sequence) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise TypeError(f"Got inappropriate size arg: {size}")


def resize(img, size, interpolation="bilinear"):
    """To (height, width), or the shorter side to ``size`` (an int) keeping the aspect ratio."""
    w, h = image_size(img)
    target = _target_size(size, h, w)
    if target is None:
        return img
    if is_pil(img):
        if interpolation not in _PIL_RESAMPLE:
            raise ValueError(f"interpolation '{interpolation}' is not one of {', '.join(_PIL_RESAMPLE)}")
        return img.resize((target[1], target[0]), _PIL_RESAMPLE[interpolation])
    return warp.resize_array(img, target[0], target[1], interpolation)


def _paddings(padding):
    if not isinstance(padding, (numbers.Number, list, tuple)):
        raise TypeError("Got inappropriate padding arg")
    if isinstance(padding, numbers.Number):
        return int(padding), int(padding), int(padding), int(padding)
    if len(padding) == 2:
        return padding[0], padding[1], padding[0], padding[1]
    if len(padding) == 4:
        return tuple(padding)
    raise ValueError(f"Padding must be an int or a 2, or 4 element tuple, not a {len(padding)} element tuple")


def pad(img, padding, fill=0, padding_mode="constant"):
    """Padding (left, top, right, bottom) by ``padding_mode``: constant (``fill``), edge, reflect
    (without the edge value) or symmetric (with it)."""
    if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
        raise AssertionError("Padding mode should be either constant, edge, reflect or symmetric")
    left, top, right, bottom = _paddings(padding)

    def apply(a):
        widths = [(top, bottom), (left, right)] + [(0, 0)] * (a.ndim - 2)
        if padding_mode != "constant":
            return np.pad(a, widths, mode=padding_mode)
        fills = np.atleast_1d(np.asarray(fill, dtype=a.dtype))
        out = np.empty((a.shape[0] + top + bottom, a.shape[1] + left + right) + a.shape[2:], a.dtype)
        out[...] = fills if a.ndim == 3 and fills.size == a.shape[2] else fills[0]
        out[top : top + a.shape[0], left : left + a.shape[1]] = a
        return out

    return _through_numpy(img, apply)


def crop(img, top, left, height, width):
    if is_pil(img):
        return img.crop((left, top, left + width, top + height))
    _check(img)
    return img[top : top + height, left : left + width]


def center_crop(img, output_size):
    if isinstance(output_size, numbers.Number):
        output_size = (int(output_size), int(output_size))
    w, h = image_size(img)
    th, tw = output_size
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def rotate(img, angle, interpolation="nearest", expand=False, center=None, fill=0):
    """Counter-clockwise by ``angle`` degrees about ``center`` (default the image's centre);
    ``expand`` enlarges the output to hold the whole rotated image."""
    if not isinstance(angle, numbers.Number):
        raise TypeError("Argument angle should be int or float")

    def apply(a):
        h, w = a.shape[:2]
        c = (w / 2.0, h / 2.0) if center is None else center
        m = warp.rotation_matrix(c, angle, 1.0)
        if expand:
            m, w, h = _expanded(m, c, angle, w, h)
        return warp.warp(a, m, (w, h), interpolation, fill)

    return _through_numpy(img, apply)


def _expanded(m, center, angle, w, h):
    a = -math.radians(angle)
    cos, sin = round(math.cos(a), 15), round(math.sin(a), 15)
    tx = cos * -center[0] + sin * -center[1] + center[0]
    ty = -sin * -center[0] + cos * -center[1] + center[1]
    xs = [cos * x + sin * y + tx for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    ys = [-sin * x + cos * y + ty for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    nw, nh = math.ceil(max(xs)) - math.floor(min(xs)), math.ceil(max(ys)) - math.floor(min(ys))
    m = m.copy()
    m[0, 2] += (nw - w) * 0.5
    m[1, 2] += (nh - h) * 0.5
    return m, int(nw), int(nh)


def _shear(shear):
    if isinstance(shear, numbers.Number):
        return [float(shear), 0.0]
    if isinstance(shear, (list, tuple)) and len(shear) == 1:
        return [float(shear[0]), float(shear[0])]
    if isinstance(shear, (list, tuple)) and len(shear) == 2:
        return [float(s) for s in shear]
    raise ValueError(f"Shear should be a sequence containing two values. Got {shear}")


def affine(img, angle, translate, scale, shear, interpolation="nearest", fill=0, center=None):
    """Rotation by ``angle`` and ``scale`` about ``center``, ``shear`` (x, y degrees), then the
    translation (tx, ty) as the matrix's offset (Paddle 2.6's numpy backend)."""
    if not isinstance(angle, (int, float)):
        raise TypeError("Argument angle should be int or float")
    if not isinstance(translate, (list, tuple)) or len(translate) != 2:
        raise ValueError("Argument translate should be a sequence of length 2")
    if scale <= 0.0:
        raise ValueError("Argument scale should be positive")
    sx, sy = (math.tan(math.radians(s)) for s in _shear(shear))

    def apply(a):
        h, w = a.shape[:2]
        r = warp.rotation_matrix((w / 2.0, h / 2.0) if center is None else center, angle, scale)
        m = np.stack([r[0] + sy * r[1], r[1] + sx * r[0]])
        m[0, 2], m[1, 2] = translate
        return warp.warp(a, m, (w, h), interpolation, fill)

    return _through_numpy(img, apply)


def perspective(img, startpoints, endpoints, interpolation="nearest", fill=0):
    """The homography taking ``startpoints`` to ``endpoints`` ([top-left, top-right, bottom-right,
    bottom-left], each [x, y]) applied to the image."""

    def apply(a):
        m = warp.perspective_matrix(startpoints, endpoints)
        return warp.warp(a, m, (a.shape[1], a.shape[0]), interpolation, fill)

    return _through_numpy(img, apply)


def to_grayscale(img, num_output_channels=1):
    """Luma 0.299 R + 0.587 G + 0.114 B, one channel or three equal ones."""
    if num_output_channels not in (1, 3):
        raise ValueError("num_output_channels should be either 1 or 3")
    if is_pil(img):
        grey = img.convert("L")
        return grey if num_output_channels == 1 else grey.convert("RGB")
    _check(img)
    y = gray(img)
    y = np.clip(np.rint(y), 0, 255).astype(img.dtype) if img.dtype == np.uint8 else y.astype(img.dtype)
    return y[:, :, None] if num_output_channels == 1 else np.repeat(y[:, :, None], 3, axis=2)


def normalize(img, mean, std, data_format="CHW", to_rgb=False):
    """(img - mean) / std per channel (float32); ``to_rgb`` reverses the channels first (HWC)."""
    if is_pil(img):
        img = np.asarray(img, dtype=np.float32)
    shape = (-1, 1, 1) if data_format == "CHW" else (1, 1, -1)
    mean, std = np.float32(np.array(mean).reshape(shape)), np.float32(np.array(std).reshape(shape))
    if to_rgb:
        img = img[..., ::-1]
    return (img - mean) / std


def erase(img, i, j, h, w, v, inplace=False):
    """The region rows i..i+h, columns j..j+w set to ``v``."""
    if is_pil(img):
        array = np.array(img, dtype=np.uint8)
        array[i : i + h, j : j + w, ...] = v
        return pillow().fromarray(array, img.mode)
    if not inplace:
        img = img.copy()
    img[i : i + h, j : j + w, ...] = v
    return img
