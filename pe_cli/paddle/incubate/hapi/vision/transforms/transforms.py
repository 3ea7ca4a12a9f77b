"""``paddle.incubate.hapi.vision.transforms.transforms`` (Paddle 1.8.5): random colour changes of an
HWC image in OpenCV's BGR order, each by a factor drawn with numpy's generator: brightness (x * a),
contrast (towards the mean gray level), saturation (towards each pixel's gray level), hue (a shift of
the hue channel, as OpenCV's full-range HSV), and ColorJitter (those asked for, in a random order).
Paddle computes gray and HSV with OpenCV; pe with OpenCV's formulas in numpy."""

import collections.abc
import random
import sys  # noqa: F401 -- Paddle's module has these names

import numpy as np

__all__ = ["BrightnessTransform", "SaturationTransform", "ContrastTransform", "HueTransform", "ColorJitter"]
Sequence, Iterable = collections.abc.Sequence, collections.abc.Iterable


def _gray(img):
    """OpenCV's BGR to gray: 0.114 B + 0.587 G + 0.299 R."""
    return img[..., 0] * 0.114 + img[..., 1] * 0.587 + img[..., 2] * 0.299


def _factor(value):
    return np.random.uniform(max(0, 1 - value), 1 + value)


class _Blend:
    what = ""

    def __init__(self, value):
        if value < 0:
            raise ValueError(f"{self.what} value should be non-negative")
        self.value = value

    def __call__(self, img):
        if self.value == 0:
            return img
        dtype, img = img.dtype, img.astype(np.float32)
        alpha = _factor(self.value)
        return (img * alpha + self._towards(img) * (1 - alpha)).clip(0, 255).astype(dtype)


class BrightnessTransform(_Blend):
    what = "brightness"

    def _towards(self, img):
        return 0.0


class ContrastTransform(_Blend):
    what = "contrast"

    def _towards(self, img):
        return _gray(img).mean()


class SaturationTransform(_Blend):
    what = "saturation"

    def _towards(self, img):
        return _gray(img)[..., np.newaxis]


def _bgr_to_hsv_full(img):
    b, g, r = (img[..., i].astype(np.float64) for i in range(3))
    v, low = np.maximum(np.maximum(r, g), b), np.minimum(np.minimum(r, g), b)
    diff = v - low
    s = np.where(v > 0, diff * 255.0 / np.where(v > 0, v, 1), 0.0)
    safe = np.where(diff > 0, diff, 1)
    h = np.where(
        v == r, 60.0 * (g - b) / safe, np.where(v == g, 120.0 + 60.0 * (b - r) / safe, 240.0 + 60.0 * (r - g) / safe)
    )
    h = np.where(diff > 0, np.where(h < 0, h + 360.0, h), 0.0)
    return np.round(h * 256.0 / 360.0).astype(np.int64) % 256, np.round(s).astype(np.uint8), v.astype(np.uint8)


def _hsv_full_to_bgr(h, s, v):
    hue, sat, val = h.astype(np.float64) * 360.0 / 256.0 / 60.0, s / 255.0, v.astype(np.float64)
    sector, frac = np.floor(hue).astype(np.int64) % 6, hue - np.floor(hue)
    p, q, t = val * (1 - sat), val * (1 - sat * frac), val * (1 - sat * (1 - frac))
    r = np.choose(sector, [val, q, p, p, t, val])
    g = np.choose(sector, [t, val, val, q, p, p])
    b = np.choose(sector, [p, p, t, val, val, q])
    return np.clip(np.round(np.stack([b, g, r], axis=-1)), 0, 255).astype(np.uint8)


class HueTransform:
    def __init__(self, value):
        if value < 0 or value > 0.5:
            raise ValueError("hue value should be in [0.0, 0.5]")
        self.value = value

    def __call__(self, img):
        if self.value == 0:
            return img
        dtype = img.dtype
        h, s, v = _bgr_to_hsv_full(img.astype(np.uint8))
        alpha = np.random.uniform(-self.value, self.value)
        h = (h + int(np.uint8(alpha * 255) if alpha >= 0 else np.int64(alpha * 255) % 256)) % 256
        return _hsv_full_to_bgr(h, s, v).astype(dtype)


class ColorJitter:
    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        chosen = [
            (brightness, BrightnessTransform),
            (contrast, ContrastTransform),
            (saturation, SaturationTransform),
            (hue, HueTransform),
        ]
        self.transforms = [cls(value) for value, cls in chosen if value != 0]
        random.shuffle(self.transforms)

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img
