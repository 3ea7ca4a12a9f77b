"""``paddle.dataset.uci_housing``: the Boston housing data as Paddle reads it, from Paddle's cache
``~/.cache/paddle/dataset/uci_housing/housing.data`` (whitespace-separated, 14 numbers per house: 13
features, then the price). Each feature is centred on its mean and divided by its range, over the
whole file; the first 80% of the houses are the training set, the rest the test set. Samples are
(float64[13] features, float64[1] price). Nothing downloads: a missing file is one error naming it.
As Paddle's, ``train()`` and ``test()`` load the file when called, and the first load draws each
feature's range into ``./image/ranges.png`` (creating ``./image`` under the working directory), which
programs that later save their own charts into ``./image`` rely on.
"""

import os

import warnings

import numpy as np

from ...base.errors import PeError
from ...base.limits import check_bytes, regular_file
from .common import cached_file, dataset_dir

URL = "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"
feature_names = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX", "PTRATIO", "B", "LSTAT"]
FEATURES = 14
_loaded = {}


def data_file():
    return os.path.join(dataset_dir("uci_housing"), "housing.data")


def load_data(filename=None, feature_num=FEATURES, ratio=0.8):
    """(train rows, test rows) of ``filename`` (default: Paddle's cache), normalized as Paddle does."""
    filename = filename or data_file()
    key = (filename, feature_num, ratio)
    if key not in _loaded:
        if not os.path.isfile(filename):
            if filename != data_file():
                raise PeError(f"paddle.dataset.uci_housing: {filename} is absent")
            cached_file("uci_housing", "uci_housing", "housing.data", URL)
        data = _numbers(filename)
        if data.size == 0 or data.size % feature_num:
            raise PeError(
                f"paddle.dataset.uci_housing: {filename} holds {data.size} numbers, not a multiple of "
                f"{feature_num} (13 features and the price per house)"
            )
        data = data.reshape(-1, feature_num)
        feature_range(data.max(axis=0)[:-1], data.min(axis=0)[:-1])
        spans = data.max(axis=0) - data.min(axis=0)
        means = data.sum(axis=0) / data.shape[0]
        for i in range(feature_num - 1):
            data[:, i] = (data[:, i] - means[i]) / (spans[i] if spans[i] else 1.0)
        offset = int(data.shape[0] * ratio)
        _loaded[key] = (data[:offset], data[offset:])
    return _loaded[key]


def _numbers(filename):
    """The file's whitespace-separated numbers (float64), or one line naming the first token that is
    not a number and its line (numpy's reader stops there with a traceback)."""
    regular_file(filename, "uci_housing data file")
    check_bytes(os.path.getsize(filename), f"paddle.dataset.uci_housing: {filename}")
    with open(filename, "rb") as f:
        text = f.read().decode("latin-1")
    tokens = text.split()
    try:
        return np.array(tokens, dtype=np.float64)
    except ValueError:
        pass
    for n, line in enumerate(text.splitlines(), 1):
        for token in line.split():
            try:
                float(token)
            except ValueError:
                raise PeError(
                    f"paddle.dataset.uci_housing: {filename}:{n}: {token[:40]!r} is not a number (the file "
                    f"holds {FEATURES} numbers per house, separated by whitespace)"
                ) from None
    raise PeError(f"paddle.dataset.uci_housing: {filename} is not whitespace-separated numbers")


def feature_range(maximums, minimums):
    """Paddle's bar chart of each feature's range (maximum - minimum), saved as ``image/ranges.png``
    under the working directory (48 dpi, 10 x 6 inches; ``./image`` is created if absent). Without
    matplotlib the directory is still made and a warning says the chart is not drawn."""
    os.makedirs("image", exist_ok=True)
    try:
        import matplotlib
    except ImportError:
        warnings.warn(
            "paddle.dataset.uci_housing: matplotlib is not installed, so image/ranges.png (each "
            "feature's range, as Paddle draws it) is not written (pip install matplotlib)"
        )
        return
    matplotlib.use("Agg")  # as Paddle's loader: no screen, draw into the file
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    count = len(maximums)
    ax.bar(list(range(count)), np.asarray(maximums) - np.asarray(minimums), color="r", align="center")
    ax.set_title("feature scale")
    plt.xticks(list(range(count)), feature_names[:count])
    plt.xlim([-1, count])
    fig.set_figheight(6)
    fig.set_figwidth(10)
    fig.savefig(os.path.join("image", "ranges.png"), dpi=48)
    plt.close(fig)


def _reader(part):
    load_data()  # when the reader is made, as Paddle's train()/test()

    def reader():
        for row in load_data()[part]:
            yield row[:-1], row[-1:]

    return reader


def train():
    """A reader of the training houses: (features, price)."""
    return _reader(0)


def test():
    """A reader of the test houses: (features, price)."""
    return _reader(1)


def predict_reader():
    """The first test house's features, as a one-element tuple."""
    return (load_data()[1][0][:-1],)
