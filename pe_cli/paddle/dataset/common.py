"""Where Paddle keeps its datasets: ``$PADDLE_DATA_HOME`` or ``~/.cache/paddle/dataset``, one folder
per dataset, each file under the name Paddle's download gives it (the last part of its URL). pe
reads what is there and downloads nothing: a missing file is one error naming it, the folder to put
it in and where Paddle downloads it from. ``download``, ``md5file`` and ``DATA_HOME`` are Paddle's
names of this module, which programs call themselves; so are ``split`` (a reader's samples into
files of ``line_count`` samples) and ``cluster_files_reader`` (a trainer's share of those files). Their
default dumper and loader are pickle's, as Paddle's: load only files you wrote (pickle runs what a
file holds). Files are written and read in binary (Paddle 1.8.5's text mode fails on Python 3).)"""

import contextlib
import glob
import gzip
import hashlib
import io
import os
import pickle
import tarfile

from ...base.errors import PeError
from ...base.limits import check, check_bytes, limit


_RATIO_FLOOR = 64 << 20  # members smaller than this are not held to the unpack ratio


class DownloadRefused(PeError, RuntimeError):
    """``download`` of a file the cache lacks: pe downloads nothing (Paddle, offline, raises a
    RuntimeError too: it cannot download within its retry limit)."""


def data_home():
    return os.environ.get("PADDLE_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "paddle", "dataset")


DATA_HOME = data_home()  # Paddle's constant: the folder at import time


def md5file(fname):
    """The hex md5 of the file's bytes, read 4 MiB at a time."""
    digest = hashlib.md5()
    with open(fname, "rb") as f:
        for chunk in iter(lambda: f.read(4 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def download(url, module_name, md5sum, save_name=None):
    """The path of the file ``url`` names in the dataset folder ``module_name`` (under ``save_name``
    where given), as Paddle's download returns it. pe downloads nothing: a file already there is
    taken as it is (its md5 is not compared with ``md5sum``, as pe's datasets take the files they
    find), and a missing one is a DownloadRefused (a RuntimeError) naming where to put it."""
    name = save_name or url.split("/")[-1]
    path = os.path.join(data_home(), module_name, name)
    if os.path.isfile(path):
        return path
    raise DownloadRefused(
        f"paddle.dataset.common.download: {path} is absent and pe downloads nothing: put the "
        f"file from {url} there (md5 {md5sum})"
    )


def dataset_dir(name):
    return os.path.join(data_home(), name)


def cached_file(module, folder, filename, url, also=()):
    """The path of ``filename`` (or of one of the names ``also``) in the dataset's ``folder``."""
    where = dataset_dir(folder)
    for name in (filename,) + tuple(also):
        path = os.path.join(where, name)
        if os.path.isfile(path):
            return path
    raise PeError(
        f"paddle.dataset.{module}: {os.path.join(where, filename)} is absent (pe downloads nothing): "
        f"put {filename} in {where} (Paddle downloads it from {url})"
    )


@contextlib.contextmanager
def open_tar(module, path):
    """``with open_tar(module, path) as tf``: ``path`` opened as a tar archive (gzip or not); one error
    line when it is not one, or when it turns out damaged as it is read within the block (a member
    whose header claims more bytes than follow: tarfile's "unexpected end of data")."""
    try:
        tf = tarfile.open(path)
    except (tarfile.TarError, OSError) as e:
        raise PeError(f"paddle.dataset.{module}: {path} is not a readable tar archive ({e})") from None
    with tf:
        try:
            yield tf
        except (tarfile.TarError, EOFError) as e:
            raise PeError(f"paddle.dataset.{module}: {path} is a damaged tar archive ({e})") from None


def member(module, tf, name):
    """The bytes of the archive member ``name`` (or TarInfo); one error line naming the archive when it lacks it, or
    when the size its header declares is beyond pe's data limit (checked before a byte is read: a small
    gzip of zeros can declare gigabytes)."""
    try:
        info = name if isinstance(name, tarfile.TarInfo) else tf.getmember(name)
        data = tf.extractfile(info)
    except KeyError:
        data = None
    if data is None:
        raise PeError(f"paddle.dataset.{module}: {tf.name} has no member {name}")
    check_member(module, tf, info)
    return data.read()


def members(module, tf):
    """The archive's members in order, each checked (``check_member``) as its header is read, before
    the archive is read past it: a bomb is refused at its header, not after unpacking it to skip it."""
    for info in tf:
        check_member(module, tf, info)
        yield info


def check_member(module, tf, info):
    """The size a member's header declares, against pe's data limit and the unpack ratio."""
    where = f"paddle.dataset.{module}: {tf.name}: member {info.name}"
    check_bytes(info.size, f"{where}, of {info.size:,} bytes by its header,")
    _check_ratio(info.size, os.path.getsize(tf.name), where)


def _check_ratio(size, packed, where):
    """A member above 64 MiB unpacks to at most PE_MAX_UNPACK_RATIO times its archive's size: a few MB
    of gzip holding gigabytes of zeros is a bomb, whatever the machine's memory."""
    if size > _RATIO_FLOOR:
        check("unpack_ratio", size // max(packed, 1), f"{where}: its {size:,} bytes over the archive's {packed:,}")


def gunzip(module, data, where):
    """The bytes the gzip ``data`` holds, read no further than pe's data limit (a gzip of zeros
    holds a thousand times its size)."""
    most = min(limit("data_bytes"), max(_RATIO_FLOOR, limit("unpack_ratio") * len(data)))
    out = gzip.GzipFile(fileobj=io.BytesIO(data)).read(most + 1)
    if len(out) > most:
        check_bytes(len(out), f"paddle.dataset.{module}: {where}, unzipped,")
        _check_ratio(len(out), len(data), f"paddle.dataset.{module}: {where}, unzipped,")
    return out


def split(reader, line_count, suffix="%05d.pickle", dumper=pickle.dump):
    """Writes ``reader()``'s samples into files ``suffix % n`` (``dumper(list, file)``): the first
    holds samples 0..line_count, each next one ``line_count`` more, the last the rest."""
    if not callable(dumper):
        raise TypeError("dumper should be callable.")
    lines, index = [], 0
    for i, d in enumerate(reader()):
        lines.append(d)
        if i >= line_count and i % line_count == 0:
            with open(suffix % index, "wb") as f:
                dumper(lines, f)
            lines, index = [], index + 1
    if lines:
        with open(suffix % index, "wb") as f:
            dumper(lines, f)


def cluster_files_reader(files_pattern, trainer_count, trainer_id, loader=pickle.load):
    """A reader of the samples in this trainer's files: of the files matching ``files_pattern`` (sorted),
    those whose position modulo ``trainer_count`` is ``trainer_id``, each read with ``loader(file)``."""

    def reader():
        if not callable(loader):
            raise TypeError("loader should be callable.")
        mine = [fn for i, fn in enumerate(sorted(glob.glob(files_pattern))) if i % trainer_count == trainer_id]
        for fn in mine:
            print(f"append file: {fn}")
        for fn in mine:
            with open(fn, "rb") as f:
                yield from loader(f)

    return reader
