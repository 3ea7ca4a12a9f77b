"""paddle.vision.transforms on numpy HWC images (Paddle 2.6's numpy backend, no OpenCV) and PIL
images: each function against a numpy reference on small images, the classes' randomness seeded,
and Paddle's errors for bad arguments."""

import random

import numpy as np
import pytest
from PIL import Image  # Pillow: pe's optional `images` extra, installed where the tests run

from pe_cli.paddle.vision import transforms as T

IMG = (np.arange(6 * 8 * 3) * 7 % 256).astype("uint8").reshape(6, 8, 3)
SQ = (np.arange(4 * 4 * 3) * 11 % 256).astype("uint8").reshape(4, 4, 3)


def test_the_38_names():
    assert len(T.__all__) == 38 and all(hasattr(T, n) for n in T.__all__)


def test_to_tensor_normalize_transpose():
    t = T.to_tensor(IMG)
    assert t.dtype == np.float32 and t.shape == (3, 6, 8)
    np.testing.assert_allclose(t, IMG.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    assert T.to_tensor(IMG, "HWC").shape == (6, 8, 3)
    n = T.normalize(t, [0.5, 0.4, 0.3], [0.2, 0.2, 0.1])
    np.testing.assert_allclose(n[2], (t[2] - 0.3) / 0.1, rtol=1e-5)
    hwc = T.Normalize(0.5, 0.5, data_format="HWC", to_rgb=True)(IMG.astype("float32"))
    np.testing.assert_allclose(hwc, (IMG[..., ::-1] - 0.5) / 0.5)
    assert T.Transpose()(IMG).shape == (3, 6, 8) and T.ToTensor()(Image.fromarray(IMG)).shape == (3, 6, 8)


def test_flips_crops_and_pads():
    np.testing.assert_array_equal(T.hflip(IMG), IMG[:, ::-1])
    np.testing.assert_array_equal(T.vflip(IMG), IMG[::-1])
    np.testing.assert_array_equal(np.asarray(T.hflip(Image.fromarray(IMG))), IMG[:, ::-1])
    np.testing.assert_array_equal(T.crop(IMG, 1, 2, 3, 4), IMG[1:4, 2:6])
    np.testing.assert_array_equal(T.center_crop(IMG, 4), IMG[1:5, 2:6])
    np.testing.assert_array_equal(np.asarray(T.center_crop(Image.fromarray(IMG), (2, 4))), IMG[2:4, 2:6])
    for mode in ("edge", "reflect", "symmetric"):
        np.testing.assert_array_equal(
            T.pad(IMG, (1, 2, 3, 4), padding_mode=mode), np.pad(IMG, [(2, 4), (1, 3), (0, 0)], mode=mode)
        )
    filled = T.pad(IMG, 2, fill=(1, 2, 3))
    assert filled.shape == (10, 12, 3) and filled[0, 0].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(filled[2:-2, 2:-2], IMG)
    assert T.pad(IMG, (1, 2)).shape == (10, 10, 3)
    with pytest.raises(ValueError, match="Padding must be an int or a 2, or 4 element tuple, not a 3 element tuple"):
        T.pad(IMG, (1, 2, 3))


def bilinear_reference(img, oh, ow):
    """cv2.resize's INTER_LINEAR: half-pixel centres, edges clamped."""
    h, w = img.shape[:2]
    out = np.zeros((oh, ow, img.shape[2]))
    for y in range(oh):
        for x in range(ow):
            sy, sx = max((y + 0.5) * h / oh - 0.5, 0), max((x + 0.5) * w / ow - 0.5, 0)
            y0, x0 = min(int(sy), h - 1), min(int(sx), w - 1)
            y1, x1 = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
            fy, fx = sy - y0, sx - x0
            out[y, x] = (1 - fy) * ((1 - fx) * img[y0, x0] + fx * img[y0, x1]) + fy * (
                (1 - fx) * img[y1, x0] + fx * img[y1, x1]
            )
    return out


def test_resize():
    f = IMG.astype("float32")
    np.testing.assert_allclose(T.resize(f, (4, 5)), bilinear_reference(f, 4, 5), rtol=1e-5)
    np.testing.assert_allclose(T.resize(f, (9, 13)), bilinear_reference(f, 9, 13), rtol=1e-5)
    np.testing.assert_array_equal(T.resize(IMG, (3, 4), "nearest"), IMG[::2, ::2])
    assert T.resize(IMG, 3).shape == (3, 4, 3) and T.resize(IMG, 6) is IMG  # the shorter side
    assert T.resize(Image.fromarray(IMG), (3, 5)).size == (5, 3)
    with pytest.raises(ValueError, match="not supported on numpy images"):
        T.resize(IMG, (3, 4), "bicubic")


def test_rotate_affine_perspective():
    # about the pixel centre of a square, 90 degrees counter-clockwise is np.rot90
    np.testing.assert_array_equal(T.rotate(SQ, 90, center=(1.5, 1.5)), np.rot90(SQ))
    # Paddle's default centre is (w / 2, h / 2): one pixel further, the uncovered row is the fill
    moved = T.rotate(SQ, 90, fill=9)
    np.testing.assert_array_equal(moved[1:], np.rot90(SQ)[:-1])
    assert (moved[0] == 9).all()
    assert T.rotate(IMG, 90, expand=True).shape == (8, 6, 3)
    np.testing.assert_array_equal(T.affine(IMG, 0, (2, 1), 1.0, 0), np.pad(IMG, [(1, 0), (2, 0), (0, 0)])[:6, :8])
    corners = [[0, 0], [7, 0], [7, 5], [0, 5]]
    np.testing.assert_array_equal(T.perspective(IMG, corners, corners), IMG)
    shifted = T.perspective(IMG, corners, [[x + 1, y] for x, y in corners], fill=0)
    np.testing.assert_array_equal(shifted[:, 1:], IMG[:, :-1])
    half = T.rotate(IMG.astype("float32"), 180, interpolation="bilinear", center=(3.5, 2.5))
    np.testing.assert_allclose(half, IMG[::-1, ::-1], atol=1e-3)
    rotated = T.rotate(Image.fromarray(SQ), 90, center=(1.5, 1.5))
    np.testing.assert_array_equal(np.asarray(rotated), np.rot90(SQ))


def test_colour():
    np.testing.assert_array_equal(T.adjust_brightness(IMG, 1.5), np.clip(IMG * 1.5, 0, 255).astype("uint8"))
    np.testing.assert_array_equal(
        T.adjust_contrast(IMG, 0.5), np.clip((IMG.astype(float) - 74) * 0.5 + 74, 0, 255).astype("uint8")
    )
    grey = T.to_grayscale(IMG)
    np.testing.assert_array_equal(grey[..., 0], np.rint(IMG @ [0.299, 0.587, 0.114]).astype("uint8"))
    assert T.to_grayscale(IMG, 3).shape == (6, 8, 3) and T.to_grayscale(Image.fromarray(IMG)).mode == "L"
    assert np.abs(T.adjust_hue(IMG, 0.0).astype(int) - IMG).max() <= 1
    pure = np.zeros((1, 3, 3), "uint8")
    pure[0, 0, 2], pure[0, 1, 1], pure[0, 2, 0] = 255, 255, 255  # cv2 order: B, G, R read as BGR
    turned = T.adjust_hue(pure, 1 / 3)  # a third of the circle: red -> green -> blue -> red
    assert [int(np.argmax(p)) for p in turned[0]] == [1, 0, 2]
    assert np.asarray(T.adjust_hue(Image.fromarray(pure), 0.25)).shape == (1, 3, 3)
    with pytest.raises(ValueError, match=r"hue_factor:0\.7 is not in \[-0\.5, 0\.5\]\."):
        T.adjust_hue(IMG, 0.7)
    erased = T.erase(IMG, 1, 2, 2, 3, 0)
    assert (erased[1:3, 2:5] == 0).all() and erased[0].tolist() == IMG[0].tolist() and IMG[1, 2].any()


def test_random_transforms_seeded_on_arrays_and_images():
    pipeline = T.Compose(
        [
            T.RandomResizedCrop(4),
            T.RandomHorizontalFlip(),
            T.RandomVerticalFlip(),
            T.ColorJitter(0.4, 0.4, 0.4, 0.1),
            T.RandomRotation(10),
            T.Pad(1),
            T.RandomAffine(10, (0.1, 0.1), (0.9, 1.1), 5),
            T.RandomPerspective(1.0),
            T.RandomCrop(4),
            T.Grayscale(3),
            T.ToTensor(),
            T.RandomErasing(1.0, value="random"),
        ]
    )
    outs = []
    for _ in range(2):
        random.seed(5)
        np.random.seed(5)
        outs.append(pipeline(IMG))
    assert outs[0].shape == (3, 4, 4) and np.array_equal(outs[0], outs[1])
    assert pipeline(Image.fromarray(IMG)).shape == (3, 4, 4)
    img_out, label = T.RandomCrop(3, keys=("image", "label"))((IMG, 7))
    assert img_out.shape == (3, 3, 3) and label == 7
    for t in (
        T.BrightnessTransform(0.5),
        T.ContrastTransform(0.5),
        T.SaturationTransform(0.5),
        T.HueTransform(0.2),
        T.Resize((3, 3)),
        T.CenterCrop(2),
    ):
        assert t(IMG).dtype == np.uint8
    with pytest.raises(ValueError, match="contrast value should be non-negative"):
        T.ContrastTransform(-1)
    with pytest.raises(ValueError, match="value must be 'random' when type is str"):
        T.RandomErasing(value="noise")
