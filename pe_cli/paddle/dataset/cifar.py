"""``paddle.dataset.cifar``: CIFAR-10 and CIFAR-100 as Paddle 1.8's readers give them: samples
(float32[3072] pixels / 255, int label), from Paddle's cache ``~/.cache/paddle/dataset/cifar/``
(``cifar-10-python.tar.gz``, ``cifar-100-python.tar.gz``: the Python versions of the datasets,
batches pickled by Python 2). Nothing is unpickled: each batch is parsed by pe_cli/io/pickle_data.py,
which takes only dicts, lists, text and numpy arrays. Nothing downloads.

``train10(cycle=False)`` / ``test10(cycle=False)`` read the members named ``data_batch*`` /
``test_batch*``, ``train100()`` / ``test100()`` those named ``train`` / ``test``, in the archive's
order; ``cycle`` starts again at the end, without end."""

from ...base.errors import PeError
from ...io.pickle_data import Refused, parse_data
from .common import cached_file, member, members, open_tar

__all__ = ["train100", "test100", "train10", "test10", "fetch", "convert"]

URL_PREFIX = "https://www.cs.toronto.edu/~kriz/"
CIFAR10_URL = URL_PREFIX + "cifar-10-python.tar.gz"
CIFAR100_URL = URL_PREFIX + "cifar-100-python.tar.gz"


def _archive(url):
    return cached_file("cifar", "cifar", url.rsplit("/", 1)[-1], url)


def _batch(path, name, data):
    try:
        batch = parse_data(data)
    except Refused as e:
        raise PeError(f"paddle.dataset.cifar: {path}: member {name} is not a CIFAR batch of plain data: {e}") from None
    if not isinstance(batch, dict):
        raise PeError(f"paddle.dataset.cifar: {path}: member {name} is not a CIFAR batch (a dict)")
    images = batch.get("data")
    labels = batch.get("labels", batch.get("fine_labels"))
    if images is None or labels is None or len(images) != len(labels):
        raise PeError(
            f"paddle.dataset.cifar: {path}: member {name} lacks 'data' and 'labels' (or 'fine_labels') "
            f"of the same length"
        )
    return images, labels


def reader_creator(filename, sub_name, cycle=False):
    def reader():
        while True:
            found = False
            with open_tar("cifar", filename) as tf:
                for info in members("cifar", tf):  # each checked at its header, before it is read
                    if sub_name in info.name:
                        found = True
                        images, labels = _batch(filename, info.name, member("cifar", tf, info))
                        for image, label in zip(images, labels):
                            yield (image / 255.0).astype("float32"), int(label)
            if not cycle or not found:
                return

    return reader


def train100():
    """CIFAR-100's training set: (pixels in [0, 1], label in [0, 99])."""
    return reader_creator(_archive(CIFAR100_URL), "train")


def test100():
    """CIFAR-100's test set."""
    return reader_creator(_archive(CIFAR100_URL), "test")


def train10(cycle=False):
    """CIFAR-10's training set: (pixels in [0, 1], label in [0, 9])."""
    return reader_creator(_archive(CIFAR10_URL), "data_batch", cycle=cycle)


def test10(cycle=False):
    """CIFAR-10's test set."""
    return reader_creator(_archive(CIFAR10_URL), "test_batch", cycle=cycle)


def fetch():
    """Checks that both archives are in place (pe downloads nothing)."""
    _archive(CIFAR10_URL)
    _archive(CIFAR100_URL)


def convert(path):
    raise PeError("paddle.dataset.cifar.convert: pe does not write recordio files; read the dataset with its readers")
