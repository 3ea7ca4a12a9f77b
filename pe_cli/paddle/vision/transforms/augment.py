"""``paddle.vision.transforms``' random augmentations: colour (``BrightnessTransform``,
``ContrastTransform``, ``SaturationTransform``, ``HueTransform``, ``ColorJitter``) and geometry
(``RandomRotation``, ``RandomAffine``, ``RandomPerspective``, ``RandomErasing``), drawing their
parameters as Paddle 2.6 does (Python's ``random`` and numpy's global generators)."""

import numbers
import random

import numpy as np

from . import functional as F
from .transforms import BaseTransform, Compose

__all__ = [
    "BrightnessTransform",
    "ContrastTransform",
    "SaturationTransform",
    "HueTransform",
    "ColorJitter",
    "RandomRotation",
    "RandomAffine",
    "RandomPerspective",
    "RandomErasing",
]


def _check_input(value, name, center=1, bound=(0, float("inf")), clip_first_on_zero=True):
    if isinstance(value, numbers.Number):
        if value < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - value, center + value]
        if clip_first_on_zero:
            value[0] = max(value[0], 0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        if not bound[0] <= value[0] <= value[1] <= bound[1]:
            raise ValueError(f"{name} values should be between {bound}")
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with lenght 2.")
    return None if value[0] == value[1] == center else value


class _ColorTransform(BaseTransform):
    name, adjust, center, bound, clip = "", None, 1, (0, float("inf")), True

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = _check_input(value, self.name, self.center, self.bound, self.clip)

    def _apply_image(self, img):
        if self.value is None:
            return img
        return type(self).adjust(img, random.uniform(self.value[0], self.value[1]))


class BrightnessTransform(_ColorTransform):
    name, adjust = "brightness", staticmethod(F.adjust_brightness)


class ContrastTransform(_ColorTransform):
    name, adjust = "contrast", staticmethod(F.adjust_contrast)

    def __init__(self, value, keys=None):
        if isinstance(value, numbers.Number) and value < 0:
            raise ValueError("contrast value should be non-negative")
        super().__init__(value, keys)


class SaturationTransform(_ColorTransform):
    name, adjust = "saturation", staticmethod(F.adjust_saturation)


class HueTransform(_ColorTransform):
    name, adjust, center, bound, clip = "hue", staticmethod(F.adjust_hue), 0, (-0.5, 0.5), False


class ColorJitter(BaseTransform):
    """Brightness, contrast, saturation and hue changes, each drawn at random, in a random order."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast, self.saturation, self.hue = brightness, contrast, saturation, hue

    def _get_param(self, brightness, contrast, saturation, hue):
        transforms = []
        for value, cls in (
            (brightness, BrightnessTransform),
            (contrast, ContrastTransform),
            (saturation, SaturationTransform),
            (hue, HueTransform),
        ):
            if value is not None:
                transforms.append(cls(value, self.keys))
        random.shuffle(transforms)
        return Compose(transforms)

    def _apply_image(self, img):
        return self._get_param(self.brightness, self.contrast, self.saturation, self.hue)(img)


def _degrees(degrees, name="degrees"):
    if isinstance(degrees, numbers.Number):
        if degrees < 0:
            raise ValueError(f"If {name} is a single number, it must be positive.")
        return (-degrees, degrees)
    if len(degrees) != 2:
        raise ValueError(f"If {name} is a sequence, it must be of len 2.")
    return tuple(degrees)


class RandomRotation(BaseTransform):
    def __init__(self, degrees, interpolation="nearest", expand=False, center=None, fill=0, keys=None):
        super().__init__(keys)
        self.degrees = _degrees(degrees)
        self.interpolation, self.expand, self.center, self.fill = interpolation, expand, center, fill

    def _apply_image(self, img):
        angle = random.uniform(self.degrees[0], self.degrees[1])
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomAffine(BaseTransform):
    """A random rotation in ``degrees``, translation up to ``translate`` (fractions of width and
    height), ``scale`` in a range and ``shear`` (x range, or x and y ranges)."""

    def __init__(
        self, degrees, translate=None, scale=None, shear=None, interpolation="nearest", fill=0, center=None, keys=None
    ):
        super().__init__(keys)
        self.degrees = _degrees(degrees)
        if translate is not None and (len(translate) != 2 or not all(0.0 <= t <= 1.0 for t in translate)):
            raise ValueError("translate should be a sequence of 2 values between 0 and 1")
        if scale is not None and (len(scale) != 2 or any(s <= 0 for s in scale)):
            raise ValueError("scale values should be positive")
        if shear is not None:
            shear = list(_degrees(shear, "shear")) if isinstance(shear, numbers.Number) else list(shear)
            if len(shear) not in (2, 4):
                raise ValueError("shear should be a number or a sequence of 2 or 4 values")
        self.translate, self.scale, self.shear = translate, scale, shear
        self.interpolation, self.fill, self.center = interpolation, fill, center

    def _get_param(self, img_size, degrees, translate=None, scale=None, shear=None):
        angle = random.uniform(degrees[0], degrees[1])
        translations = (0, 0)
        if translate is not None:
            max_dx, max_dy = float(translate[0] * img_size[0]), float(translate[1] * img_size[1])
            translations = (int(random.uniform(-max_dx, max_dx)), int(random.uniform(-max_dy, max_dy)))
        scale = random.uniform(scale[0], scale[1]) if scale is not None else 1.0
        shear_x = shear_y = 0.0
        if shear is not None:
            shear_x = random.uniform(shear[0], shear[1])
            if len(shear) == 4:
                shear_y = random.uniform(shear[2], shear[3])
        return angle, translations, scale, (shear_x, shear_y)

    def _apply_image(self, img):
        params = self._get_param(list(F.image_size(img)), self.degrees, self.translate, self.scale, self.shear)
        return F.affine(img, *params, interpolation=self.interpolation, fill=self.fill, center=self.center)


class RandomPerspective(BaseTransform):
    """With probability ``prob``, the corners moved inwards by up to ``distortion_scale`` of half
    the width and height, and the image warped to them."""

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation="nearest", fill=0, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise AssertionError("probability must be between 0 and 1")
        if not 0 <= distortion_scale <= 1:
            raise AssertionError("distortion_scale must be between 0 and 1")
        self.prob, self.distortion_scale, self.interpolation, self.fill = prob, distortion_scale, interpolation, fill

    def get_params(self, width, height, distortion_scale):
        dw, dh = int(distortion_scale * (width // 2)), int(distortion_scale * (height // 2))
        top_left = [int(random.uniform(0, dw + 1)), int(random.uniform(0, dh + 1))]
        top_right = [int(random.uniform(width - dw - 1, width)), int(random.uniform(0, dh + 1))]
        bottom_right = [int(random.uniform(width - dw - 1, width)), int(random.uniform(height - dh - 1, height))]
        bottom_left = [int(random.uniform(0, dw + 1)), int(random.uniform(height - dh - 1, height))]
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        return start, [top_left, top_right, bottom_right, bottom_left]

    def _apply_image(self, img):
        width, height = F.image_size(img)
        if random.random() < self.prob:
            start, end = self.get_params(width, height, self.distortion_scale)
            return F.perspective(img, start, end, self.interpolation, self.fill)
        return img


class RandomErasing(BaseTransform):
    """With probability ``prob``, a rectangle of random area (``scale``) and aspect (``ratio``) set
    to ``value`` (a number, per-channel values, or 'random': normal noise)."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False, keys=None):
        super().__init__(keys)
        if not (isinstance(scale, (tuple, list)) and isinstance(ratio, (tuple, list))):
            raise AssertionError("scale and ratio should be sequences")
        if not (0 <= scale[0] <= scale[1] <= 1 and 0 <= ratio[0] <= ratio[1]):
            raise AssertionError("scale should be of kind (min, max) in [0, 1], ratio (min, max) >= 0")
        if not 0 <= prob <= 1:
            raise AssertionError("The probability should be in range [0, 1].")
        if isinstance(value, str) and value != "random":
            raise ValueError("value must be 'random' when type is str")
        self.prob, self.scale, self.ratio, self.value, self.inplace = prob, scale, ratio, value, inplace

    def _get_param(self, img, scale, ratio, value):
        shape = np.asarray(img).shape if F.is_pil(img) else img.shape
        h, w, c = shape[0], shape[1], (shape[2] if len(shape) == 3 else 1)
        log_ratio = np.log(ratio)
        for _ in range(10):
            erase_area = np.random.uniform(*scale) * h * w
            aspect = np.exp(np.random.uniform(*log_ratio))
            eh, ew = int(round(np.sqrt(erase_area * aspect))), int(round(np.sqrt(erase_area / aspect)))
            if eh >= h or ew >= w:
                continue
            dtype = np.asarray(img).dtype
            v = np.random.normal(size=[eh, ew, c]).astype(dtype) if value is None else np.array(value).astype(dtype)
            return np.random.randint(0, h - eh + 1), np.random.randint(0, w - ew + 1), eh, ew, v
        return 0, 0, h, w, img

    def _apply_image(self, img):
        if random.random() < self.prob:
            value = None if isinstance(self.value, str) else self.value
            return F.erase(img, *self._get_param(img, self.scale, self.ratio, value), self.inplace)
        return img
