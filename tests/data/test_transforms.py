"""Transforms and fitting columns to feeds."""

import numpy as np
import pytest

from pe_cli.data import DataError, apply_transforms, conform
from pe_cli.data.transforms import check_transform


def test_scale_normalize_reshape():
    x = np.arange(2 * 2 * 4, dtype=np.uint8).reshape(2, 2, 4)
    out = apply_transforms(x, [{"scale": 0.5}, {"reshape": [1, 2, 4]}])
    assert out.dtype == np.float32 and out.shape == (2, 1, 2, 4) and out[0, 0, 0, 1] == 0.5
    per_channel = apply_transforms(
        np.ones((3, 2, 5), dtype=np.float64), [{"normalize": {"mean": [1.0, 0.0], "std": [1.0, 2.0]}}]
    )
    assert per_channel.dtype == np.float64
    assert np.all(per_channel[:, 0] == 0) and np.all(per_channel[:, 1] == 0.5)
    scalar = apply_transforms(np.full((2, 3), 2.0, np.float32), [{"normalize": {"mean": 1, "std": 0.5}}])
    assert scalar.dtype == np.float32 and np.all(scalar == 2.0)


def test_one_hot_and_cast():
    labels = np.array([0, 2, 1])
    out = apply_transforms(labels, [{"one_hot": 3}])
    assert out.dtype == np.float32 and out.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    with pytest.raises(DataError, match=r"outside one_hot: 2") as e:
        apply_transforms(labels, [{"one_hot": 2}])
    assert e.value.key == (0, "one_hot")
    assert apply_transforms(labels, [{"cast": "float64"}]).dtype == np.float64


@pytest.mark.parametrize(
    "item, message",
    [
        ({"scal": 1}, "unknown transform 'scal'"),
        ({"scale": "big"}, "scale takes a number"),
        ({"normalize": {"mean": 0}}, "normalize takes {mean"),
        ({"normalize": {"mean": 0, "std": 0}}, "must not be 0"),
        ({"reshape": [0, 2]}, "reshape takes the shape"),
        ({"one_hot": 1}, "one_hot takes the number"),
        ({"cast": "float33"}, "unknown dtype"),
        ({"scale": 1, "cast": "int64"}, "one 'kind: argument' pair"),
    ],
)
def test_bad_transforms(item, message):
    with pytest.raises(DataError, match=message):
        check_transform(item)


def test_reshape_that_does_not_fit():
    with pytest.raises(DataError, match="cannot reshape samples of shape"):
        apply_transforms(np.zeros((2, 6)), [{"reshape": [4]}])


def test_conform_fits_layout_and_dtype():
    images = np.zeros((5, 28, 28), np.uint8)
    out = conform(images, "image", [-1, 784], "float32")
    assert out.shape == (5, 784) and out.dtype == np.float32
    labels = conform(np.arange(5), "label", [-1, 1], "int64")
    assert labels.shape == (5, 1)
    with pytest.raises(DataError, match=r"takes samples of shape \[10\]"):
        conform(images, "image", [-1, 10], "float32")
    with pytest.raises(DataError, match="fractional"):
        conform(np.array([0.5, 1.0]), "label", [-1, 1], "int64")
    assert conform(np.zeros((3, 4)), "seq", [-1, -1], "float32").shape == (3, 4)
