"""``paddle.vision.transforms``' classes that resize, crop, flip, pad and convert (Paddle 2.6's
semantics and randomness: Python's ``random`` and numpy's global generators). A transform maps
its input (or, with ``keys``, a tuple of inputs: the ``image`` ones transformed, the others
passed on) to its output; ``Compose`` chains them."""

import math
import numbers
import random
import traceback

import numpy as np

from . import functional as F

__all__ = [
    "BaseTransform",
    "Compose",
    "ToTensor",
    "Resize",
    "RandomResizedCrop",
    "CenterCrop",
    "RandomCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "Normalize",
    "Transpose",
    "Pad",
    "Grayscale",
]


def _pair(value, name):
    if isinstance(value, numbers.Number):
        return (int(value), int(value))
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return tuple(value)
    raise TypeError(f"{name} should be an int or a sequence of 2 ints, got {value!r}")


class Compose:
    """Applies ``transforms`` in order."""

    def __init__(self, transforms):
        self.transforms = list(transforms)

    def __call__(self, data):
        for f in self.transforms:
            try:
                data = f(data)
            except Exception:
                print(f"fail to perform transform [{f}] with error: {traceback.format_exc().splitlines()[-1]}")
                raise
        return data

    def __repr__(self):
        return "Compose(" + ", ".join(repr(t) for t in self.transforms) + ")"


class BaseTransform:
    """The base: ``_get_params(inputs)`` draws the random parameters once per call, then
    ``_apply_image`` (and ``_apply_<key>`` for other keys, when defined) transforms each input."""

    def __init__(self, keys=None):
        if keys is None:
            keys = ("image",)
        elif not isinstance(keys, (list, tuple)):
            raise ValueError(f"keys should be a sequence, but got keys={keys}")
        self.keys = tuple(keys)

    def _get_params(self, inputs):
        pass

    def __call__(self, inputs):
        single = not isinstance(inputs, tuple)
        inputs = (inputs,) if single else inputs
        self.params = self._get_params(inputs)
        outputs = []
        for key, value in zip(self.keys, inputs):
            apply = getattr(self, f"_apply_{key}", None)
            outputs.append(apply(value) if apply is not None else value)
        outputs.extend(inputs[len(self.keys) :])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _apply_image(self, image):
        raise NotImplementedError


class ToTensor(BaseTransform):
    def __init__(self, data_format="CHW", keys=None):
        super().__init__(keys)
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


class Resize(BaseTransform):
    def __init__(self, size, interpolation="bilinear", keys=None):
        super().__init__(keys)
        if not (isinstance(size, int) or (isinstance(size, (list, tuple)) and len(size) == 2)):
            raise AssertionError(f"size should be an int or a sequence of 2 ints, got {size!r}")
        self.size, self.interpolation = size, interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class RandomResizedCrop(BaseTransform):
    """A crop of random area (``scale`` of the image) and aspect ``ratio``, resized to ``size``."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4, 4.0 / 3), interpolation="bilinear", keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, int) else _pair(size, "size")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise AssertionError("scale and ratio should be of kind (min, max)")
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _get_param(self, image, attempts=10):
        width, height = F.image_size(image)
        area = height * width
        log_ratio = tuple(math.log(x) for x in self.ratio)
        for _ in range(attempts):
            target_area = np.random.uniform(*self.scale) * area
            aspect_ratio = math.exp(np.random.uniform(*log_ratio))
            w = int(round(math.sqrt(target_area * aspect_ratio)))
            h = int(round(math.sqrt(target_area / aspect_ratio)))
            if 0 < w <= width and 0 < h <= height:
                return random.randint(0, height - h), random.randint(0, width - w), h, w
        in_ratio = float(width) / float(height)
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            h, w = height, int(round(height * max(self.ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _apply_image(self, img):
        i, j, h, w = self._get_param(img)
        return F.resize(F.crop(img, i, j, h, w), self.size, self.interpolation)


class CenterCrop(BaseTransform):
    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = (size, size) if isinstance(size, numbers.Number) else size

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class RandomCrop(BaseTransform):
    """A crop of ``size`` at a random place, after ``padding`` (and enough padding to reach
    ``size`` with ``pad_if_needed``)."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant", keys=None):
        super().__init__(keys)
        self.size = (int(size), int(size)) if isinstance(size, numbers.Number) else size
        self.padding, self.pad_if_needed, self.fill, self.padding_mode = padding, pad_if_needed, fill, padding_mode

    def _get_param(self, img, output_size):
        w, h = F.image_size(img)
        th, tw = output_size
        if w == tw and h == th:
            return 0, 0, h, w
        return random.randint(0, h - th), random.randint(0, w - tw), th, tw

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        w, h = F.image_size(img)
        if self.pad_if_needed and w < self.size[1]:
            img = F.pad(img, (self.size[1] - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < self.size[0]:
            img = F.pad(img, (0, self.size[0] - h), self.fill, self.padding_mode)
        i, j, h, w = self._get_param(img, self.size)
        return F.crop(img, i, j, h, w)


class _RandomFlip(BaseTransform):
    flip = None

    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise AssertionError("probability must be between 0 and 1")
        self.prob = prob

    def _apply_image(self, img):
        return type(self).flip(img) if random.random() < self.prob else img


class RandomHorizontalFlip(_RandomFlip):
    flip = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomFlip):
    flip = staticmethod(F.vflip)


class Normalize(BaseTransform):
    def __init__(self, mean=0.0, std=1.0, data_format="CHW", to_rgb=False, keys=None):
        super().__init__(keys)
        self.mean = [mean, mean, mean] if isinstance(mean, numbers.Number) else mean
        self.std = [std, std, std] if isinstance(std, numbers.Number) else std
        self.data_format, self.to_rgb = data_format, to_rgb

    def _apply_image(self, img):
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Transpose(BaseTransform):
    """The array's axes in ``order`` (HWC -> CHW by default); a PIL image becomes its array."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = order

    def _apply_image(self, img):
        img = np.asarray(img) if F.is_pil(img) else img
        return (img[..., np.newaxis] if img.ndim == 2 else img).transpose(self.order)


class Pad(BaseTransform):
    def __init__(self, padding, fill=0, padding_mode="constant", keys=None):
        if not isinstance(padding, (numbers.Number, list, tuple)):
            raise AssertionError("padding should be a number or a sequence")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise AssertionError("padding_mode should be constant, edge, reflect or symmetric")
        if isinstance(padding, (list, tuple)) and len(padding) not in (2, 4):
            raise ValueError(f"Padding must be an int or a 2, or 4 element tuple, not a {len(padding)} element tuple")
        super().__init__(keys)
        self.padding, self.fill, self.padding_mode = padding, fill, padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class Grayscale(BaseTransform):
    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)
