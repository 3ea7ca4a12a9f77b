"""Colour adjustments of an image: numpy HWC arrays as Paddle 2.6's numpy backend (its cv2 calls
done in numpy: lookup tables for brightness and contrast, cv2's 8-bit HSV_FULL for hue, which
reads the channels as BGR), PIL images as its Pillow backend (ImageEnhance, the HSV mode).
``adjust_saturation`` blends with the grey image by the given factor (Paddle's numpy backend
draws that factor again at random; pe does not)."""

import numpy as np

from ....data.images import pillow

__all__ = ["is_pil", "adjust_brightness", "adjust_contrast", "adjust_saturation", "adjust_hue", "gray"]


def is_pil(img):
    """True for a PIL image (without importing Pillow when the value is not one)."""
    return any(c.__module__.startswith("PIL.") and c.__name__ == "Image" for c in type(img).__mro__)


def _enhance(img, kind, factor):
    pillow()
    from PIL import ImageEnhance  # noqa: PLC0415  (Pillow is optional: loaded for PIL images only)

    return getattr(ImageEnhance, kind)(img).enhance(factor)


def _lut(img, table):
    table = np.clip(table, 0, 255)
    if img.dtype == np.uint8:
        return table.astype(np.uint8)[img]
    raise TypeError(f"a numpy image must be uint8 for this colour adjustment (as cv2.LUT), got {img.dtype}")


def adjust_brightness(img, brightness_factor):
    """Pixel values times ``brightness_factor`` (clipped to [0, 255])."""
    if is_pil(img):
        return _enhance(img, "Brightness", brightness_factor)
    return _lut(img, np.arange(256) * brightness_factor)


def adjust_contrast(img, contrast_factor):
    """(value - 74) * ``contrast_factor`` + 74, as Paddle's numpy backend (PIL: about the mean grey)."""
    if is_pil(img):
        return _enhance(img, "Contrast", contrast_factor)
    return _lut(img, (np.arange(256) - 74) * contrast_factor + 74)


def gray(img, weights=(0.299, 0.587, 0.114)):
    """The luma of an RGB HWC image (float64 [H, W])."""
    img = np.asarray(img, dtype=np.float64)
    return img[..., 0] * weights[0] + img[..., 1] * weights[1] + img[..., 2] * weights[2]


def adjust_saturation(img, saturation_factor):
    """A blend of the image and its grey: factor 0 grey, 1 unchanged, 2 twice as saturated."""
    if is_pil(img):
        return _enhance(img, "Color", saturation_factor)
    grey = gray(img, (0.114, 0.587, 0.299))[..., None]  # cv2.COLOR_BGR2GRAY
    out = img.astype(np.float32) * saturation_factor + grey * (1 - saturation_factor)
    return out.clip(0, 255).astype(img.dtype)


def _bgr_to_hsv_full(img):
    b, g, r = (img[..., i].astype(np.float64) for i in range(3))
    v = np.maximum(np.maximum(r, g), b)
    diff = v - np.minimum(np.minimum(r, g), b)
    s = np.where(v > 0, np.rint(diff * 255.0 / np.where(v > 0, v, 1)), 0)
    safe = np.where(diff > 0, diff, 1)
    h = np.where(
        v == r, (g - b) * 60.0 / safe, np.where(v == g, 120.0 + (b - r) * 60.0 / safe, 240.0 + (r - g) * 60.0 / safe)
    )
    h = np.where(diff > 0, h, 0.0)
    h = np.where(h < 0, h + 360.0, h)
    return np.minimum(np.rint(h * 256.0 / 360.0), 255).astype(np.uint8), s, v


def _hsv_full_to_bgr(h, s, v):
    h6 = h.astype(np.float64) * 6.0 / 256.0
    s, v = s / 255.0, v / 255.0
    sector = np.floor(h6).astype(np.int64) % 6
    f = h6 - np.floor(h6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    r = np.choose(sector, [c[0] for c in choices])
    g = np.choose(sector, [c[1] for c in choices])
    b = np.choose(sector, [c[2] for c in choices])
    return np.rint(np.stack([b, g, r], axis=-1) * 255.0).clip(0, 255)


def adjust_hue(img, hue_factor):
    """The hue turned by ``hue_factor`` of a full circle (in [-0.5, 0.5])."""
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError(f"hue_factor:{hue_factor} is not in [-0.5, 0.5].")
    shift = np.uint8(np.int64(hue_factor * 255) % 256)
    if is_pil(img):
        image = pillow()
        if img.mode in ("L", "1", "I", "F"):
            return img
        h, s, v = img.convert("HSV").split()
        with np.errstate(over="ignore"):
            h = image.fromarray((np.array(h, dtype=np.uint8) + shift).astype(np.uint8), "L")
        return image.merge("HSV", (h, s, v)).convert(img.mode)
    h, s, v = _bgr_to_hsv_full(img.astype(np.uint8))
    with np.errstate(over="ignore"):
        h = (h + shift).astype(np.uint8)
    return _hsv_full_to_bgr(h, s, v).astype(img.dtype)
