"""``paddle.vision.transforms`` (Paddle 2.x, seed 002's 38 names) on numpy HWC arrays and PIL
images (Pillow: pe's optional ``images`` extra): functional.py (the functions; warp.py and
color.py, their numpy kernels), transforms.py (resize, crop, flip, pad, convert) and augment.py
(random colour and geometric augmentations). No OpenCV."""

from .augment import (
    BrightnessTransform,
    ColorJitter,
    ContrastTransform,
    HueTransform,  # noqa: F401
    RandomAffine,
    RandomErasing,
    RandomPerspective,
    RandomRotation,
    SaturationTransform,
)
from .functional import (
    adjust_brightness,
    adjust_contrast,
    adjust_hue,
    affine,
    center_crop,
    crop,  # noqa: F401
    erase,
    hflip,
    normalize,
    pad,
    perspective,
    resize,
    rotate,
    to_grayscale,
    to_tensor,
    vflip,
)
from .transforms import (
    BaseTransform,
    CenterCrop,
    Compose,
    Grayscale,
    Normalize,
    Pad,  # noqa: F401
    RandomCrop,
    RandomHorizontalFlip,
    RandomResizedCrop,
    RandomVerticalFlip,
    Resize,
    ToTensor,
    Transpose,
)
from . import functional  # noqa: F401

__all__ = [
    "BaseTransform",
    "Compose",
    "Resize",
    "RandomResizedCrop",
    "CenterCrop",
    "RandomHorizontalFlip",
    "RandomVerticalFlip",
    "Transpose",
    "Normalize",
    "BrightnessTransform",
    "SaturationTransform",
    "ContrastTransform",
    "HueTransform",
    "ColorJitter",
    "RandomCrop",
    "Pad",
    "RandomAffine",
    "RandomRotation",
    "RandomPerspective",
    "Grayscale",
    "ToTensor",
    "RandomErasing",
    "to_tensor",
    "hflip",
    "vflip",
    "resize",
    "pad",
    "affine",
    "rotate",
    "perspective",
    "to_grayscale",
    "crop",
    "center_crop",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_hue",
    "normalize",
    "erase",
]
