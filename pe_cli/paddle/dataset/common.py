"""Where Paddle keeps its datasets: ``$PADDLE_DATA_HOME`` or ``~/.cache/paddle/dataset``, one folder
per dataset, each file under the name Paddle's download gives it (the last part of its URL). pe
reads what is there and downloads nothing: a missing file is one error naming it, the folder to put
it in and where Paddle downloads it from."""
import os
import tarfile

from ...base.errors import PeError


def data_home():
    return os.environ.get("PADDLE_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "paddle", "dataset")


def dataset_dir(name):
    return os.path.join(data_home(), name)


def cached_file(module, folder, filename, url, also=()):
    """The path of ``filename`` (or of one of the names ``also``) in the dataset's ``folder``."""
    where = dataset_dir(folder)
    for name in (filename,) + tuple(also):
        path = os.path.join(where, name)
        if os.path.isfile(path):
            return path
    raise PeError(f"paddle.dataset.{module}: {os.path.join(where, filename)} is absent (pe downloads nothing): "
                  f"put {filename} in {where} (Paddle downloads it from {url})")


def open_tar(module, path):
    """``path`` opened as a tar archive (gzip or not); one error line when it is not one."""
    try:
        return tarfile.open(path)
    except (tarfile.TarError, OSError) as e:
        raise PeError(f"paddle.dataset.{module}: {path} is not a readable tar archive ({e})") from None


def member(module, tf, name):
    """The bytes of the archive member ``name``; one error line naming the archive when it lacks it."""
    try:
        data = tf.extractfile(name)
    except KeyError:
        data = None
    if data is None:
        raise PeError(f"paddle.dataset.{module}: {tf.name} has no member {name}")
    return data.read()
