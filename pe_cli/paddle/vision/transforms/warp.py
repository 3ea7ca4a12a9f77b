"""Resampling an HWC numpy image without OpenCV, with the conventions of the cv2 calls Paddle
2.6's numpy backend makes: ``resize`` (cv2.resize: half-pixel centres, edges clamped), and
``warp`` (cv2.warpAffine / warpPerspective: output pixel (x, y) reads the source at the inverse
map of (x, y), outside the source the ``fill``) with ``nearest`` (rounded coordinates) or
``bilinear`` sampling; the matrices of cv2.getRotationMatrix2D and getPerspectiveTransform."""

import math

import numpy as np

__all__ = ["resize_array", "warp", "rotation_matrix", "perspective_matrix", "INTERPOLATIONS"]

INTERPOLATIONS = ("nearest", "bilinear")


def _check_interpolation(interpolation):
    if interpolation not in INTERPOLATIONS:
        raise ValueError(
            f"interpolation '{interpolation}' is not supported on numpy images by pe (no OpenCV): "
            f"use one of {', '.join(INTERPOLATIONS)}"
        )


def _as_hwc(img):
    return img[:, :, None] if img.ndim == 2 else img


def _restore(out, img):
    """``out`` (float, HWC) back to ``img``'s dtype (rounded and clipped for integers) and rank."""
    if np.issubdtype(img.dtype, np.integer):
        info = np.iinfo(img.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    out = out.astype(img.dtype)
    return out[:, :, 0] if img.ndim == 2 else out


def _axis_linear(n_out, n_in):
    """Source indices (lower, upper) and the upper weight of each output position (cv2 INTER_LINEAR)."""
    src = (np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5
    src = np.maximum(src, 0.0)
    lo = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    hi = np.minimum(lo + 1, n_in - 1)
    return lo, hi, (src - lo).astype(np.float64)


def resize_array(img, height, width, interpolation="bilinear"):
    """``img`` resized to [height, width]."""
    _check_interpolation(interpolation)
    src = _as_hwc(img).astype(np.float64)
    h, w = src.shape[:2]
    if interpolation == "nearest":
        rows = np.minimum(np.floor(np.arange(height) * (h / height)).astype(np.int64), h - 1)
        cols = np.minimum(np.floor(np.arange(width) * (w / width)).astype(np.int64), w - 1)
        return _restore(src[rows][:, cols], img)
    r0, r1, fr = _axis_linear(height, h)
    c0, c1, fc = _axis_linear(width, w)
    top = src[r0][:, c0] * (1 - fc)[None, :, None] + src[r0][:, c1] * fc[None, :, None]
    bottom = src[r1][:, c0] * (1 - fc)[None, :, None] + src[r1][:, c1] * fc[None, :, None]
    return _restore(top * (1 - fr)[:, None, None] + bottom * fr[:, None, None], img)


def rotation_matrix(center, angle, scale):
    """cv2.getRotationMatrix2D: [2, 3], counter-clockwise ``angle`` degrees about ``center``."""
    a = math.radians(angle)
    alpha, beta = scale * math.cos(a), scale * math.sin(a)
    cx, cy = center
    return np.array(
        [[alpha, beta, (1 - alpha) * cx - beta * cy], [-beta, alpha, beta * cx + (1 - alpha) * cy]], dtype=np.float64
    )


def perspective_matrix(startpoints, endpoints):
    """cv2.getPerspectiveTransform: the [3, 3] homography taking the 4 start points to the end points."""
    a, b = [], []
    for (x, y), (u, v) in zip(np.asarray(startpoints, np.float64), np.asarray(endpoints, np.float64)):
        a.append([x, y, 1, 0, 0, 0, -x * u, -y * u])
        b.append(u)
        a.append([0, 0, 0, x, y, 1, -x * v, -y * v])
        b.append(v)
    h = np.linalg.solve(np.array(a), np.array(b))
    return np.append(h, 1.0).reshape(3, 3)


def _fill_vector(fill, channels):
    fill = np.atleast_1d(np.asarray(fill, dtype=np.float64))
    return np.resize(fill, channels) if fill.size != channels else fill


def warp(img, matrix, out_size, interpolation="nearest", fill=0):
    """``img`` warped by ``matrix`` ([2, 3] affine or [3, 3] homography, source -> output) into an
    image of ``out_size`` (width, height)."""
    _check_interpolation(interpolation)
    src = _as_hwc(img).astype(np.float64)
    h, w, c = src.shape
    full = np.eye(3)
    full[: np.asarray(matrix).shape[0]] = matrix
    inv = np.linalg.inv(full)
    out_w, out_h = int(out_size[0]), int(out_size[1])
    ys, xs = np.mgrid[0:out_h, 0:out_w].astype(np.float64)
    pts = inv @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
    with np.errstate(divide="ignore", invalid="ignore"):
        sx, sy = pts[0] / pts[2], pts[1] / pts[2]
    sx, sy = np.nan_to_num(sx, nan=-2.0), np.nan_to_num(sy, nan=-2.0)
    padded = np.empty((h + 2, w + 2, c))
    padded[:] = _fill_vector(fill, c)
    padded[1:-1, 1:-1] = src
    if interpolation == "nearest":
        px = np.clip(np.floor(sx + 0.5), -1, w).astype(np.int64) + 1
        py = np.clip(np.floor(sy + 0.5), -1, h).astype(np.int64) + 1
        out = padded[py, px]
    else:
        x0, y0 = np.floor(sx), np.floor(sy)
        fx, fy = (sx - x0)[:, None], (sy - y0)[:, None]
        xi0, yi0 = np.clip(x0, -1, w).astype(np.int64) + 1, np.clip(y0, -1, h).astype(np.int64) + 1
        xi1, yi1 = np.clip(x0 + 1, -1, w).astype(np.int64) + 1, np.clip(y0 + 1, -1, h).astype(np.int64) + 1
        out = (
            padded[yi0, xi0] * (1 - fx) * (1 - fy)
            + padded[yi0, xi1] * fx * (1 - fy)
            + padded[yi1, xi0] * (1 - fx) * fy
            + padded[yi1, xi1] * fx * fy
        )
    return _restore(out.reshape(out_h, out_w, c), img)
