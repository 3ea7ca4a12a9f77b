"""``paddle.text.datasets.UCIHousing``: the Boston housing file of Paddle's cache
(``uci_housing/housing.data``) or the file given, each feature centred on its mean and divided by its
range over the whole file; the first 80% of the houses are 'train', the rest 'test'. Samples are
(features [13], price [1]) in the default dtype."""

import numpy as np

from ....base.errors import PeError
from ...dataset.uci_housing import URL
from ...device import get_default_dtype
from ...io import Dataset
from ...vision.datasets._cache import local_file

__all__ = ["UCIHousing"]


class UCIHousing(Dataset):
    def __init__(self, data_file=None, mode="train", download=True):
        if mode.lower() not in ("train", "test"):
            raise AssertionError(f"mode should be 'train' or 'test', but got {mode}")
        self.mode = mode.lower()
        self.data_file = local_file("text.datasets.UCIHousing", data_file, URL, "uci_housing", download)
        self._load_data()
        self.dtype = get_default_dtype()

    def _load_data(self, feature_num=14, ratio=0.8):
        data = np.fromfile(self.data_file, sep=" ")
        if data.size == 0 or data.size % feature_num:
            raise PeError(
                f"paddle.text.datasets.UCIHousing: {self.data_file} holds {data.size} numbers, not a "
                f"multiple of {feature_num} (13 features and the price per house)"
            )
        data = data.reshape(data.shape[0] // feature_num, feature_num)
        maximums, minimums = data.max(axis=0), data.min(axis=0)
        avgs = data.sum(axis=0) / data.shape[0]
        for i in range(feature_num - 1):
            data[:, i] = (data[:, i] - avgs[i]) / (maximums[i] - minimums[i])
        offset = int(data.shape[0] * ratio)
        self.data = data[:offset] if self.mode == "train" else data[offset:]

    def __getitem__(self, idx):
        row = self.data[idx]
        return np.array(row[:-1]).astype(self.dtype), np.array(row[-1:]).astype(self.dtype)

    def __len__(self):
        return len(self.data)
