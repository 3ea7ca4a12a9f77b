"""Fluid 1.8's ``contrib.utils.hdfs_utils``: ``HDFSClient`` drives Hadoop's own command line
(``<hadoop_home>/bin/hadoop fs -D<key>=<value> ... -put/-get/-test/-ls/...``) as Fluid's does, with
its retries and True/False answers; where that command is missing, a call fails with one line
naming it. ``multi_download`` / ``multi_upload`` share the files among processes. (Fluid 1.8's
module is Python 2 code, ``dict.iteritems`` and ``sorted(cmp=)``; this one runs on Python 3.)"""

import logging
import multiprocessing
import os
import re
import subprocess

from ....base.errors import PeError

__all__ = ["HDFSClient", "multi_download", "multi_upload"]

_logger = logging.getLogger("hdfs_utils")


class HDFSClient:
    """``HDFSClient(hadoop_home, configs)``: configs such as {"fs.default.name": ..., "hadoop.job.ugi": ...}."""

    def __init__(self, hadoop_home, configs):
        self.hadoop_bin = os.path.join(hadoop_home, "bin", "hadoop")
        self.pre_commands = [self.hadoop_bin, "fs"] + [f"-D{k}={v}" for k, v in dict(configs).items()]

    def _run(self, commands, retry_times=5):
        """(return code, stdout, stderr) of ``hadoop fs ... <commands>``, tried up to retry_times + 1 times."""
        if not (os.path.isfile(self.hadoop_bin) and os.access(self.hadoop_bin, os.X_OK)):
            raise PeError(
                f"HDFSClient: the command '{self.hadoop_bin}' does not exist or is not executable; "
                f"install Hadoop's client and give its directory as hadoop_home"
            )
        code, out, err = 0, "", ""
        for attempt in range(retry_times + 1):
            proc = subprocess.run(self.pre_commands + list(commands), capture_output=True, text=True, check=False)
            code, out, err = proc.returncode, proc.stdout, proc.stderr
            if not code:
                break
            _logger.warning(
                "Times: %d, Error running command: %s. Return code: %d, Error: %s",
                attempt,
                " ".join(self.pre_commands + list(commands)),
                code,
                err,
            )
        return code, out, err

    def _ok(self, commands, retry_times=1):
        return self._run(commands, retry_times)[0] == 0

    def is_exist(self, hdfs_path=None):
        return self._ok(["-test", "-e", hdfs_path])

    def is_dir(self, hdfs_path=None):
        return self.is_exist(hdfs_path) and self._ok(["-test", "-d", hdfs_path])

    def upload(self, hdfs_path, local_path, overwrite=False, retry_times=5):
        """Puts the local file into the HDFS directory hdfs_path (made if missing); False for a
        local directory, or an existing target without ``overwrite``."""
        assert hdfs_path is not None
        assert local_path is not None and os.path.exists(local_path)
        if os.path.isdir(local_path):
            _logger.warning("The Local path: %s is dir and I will support it later, return", local_path)
            return False
        if not self.is_exist(hdfs_path):
            self.makedirs(hdfs_path)
        elif self.is_exist(os.path.join(hdfs_path, os.path.basename(local_path))):
            if not overwrite:
                _logger.error("The HDFS path: %s is exist and overwrite is False, return", hdfs_path)
                return False
            self.delete(hdfs_path)
        return self._run(["-put", local_path, hdfs_path], retry_times)[0] == 0

    def download(self, hdfs_path, local_path, overwrite=False, unzip=False):
        """Gets hdfs_path into the local directory local_path (made if missing); False when it does
        not exist, or the local file exists without ``overwrite``."""
        if not self.is_exist(hdfs_path):
            print(f"HDFS path: {hdfs_path} do not exist")
            return False
        local_file = os.path.join(local_path, os.path.basename(hdfs_path))
        if os.path.exists(local_path) and os.path.exists(local_file):
            if not overwrite:
                _logger.error("The Local path: %s is exist and overwrite is False, return", local_file)
                return False
            os.remove(local_file)
        self.make_local_dirs(local_path)
        return self._run(["-get", hdfs_path, local_path])[0] == 0

    def delete(self, hdfs_path):
        if not self.is_exist(hdfs_path):
            return True
        return self._run(["-rmr" if self.is_dir(hdfs_path) else "-rm", hdfs_path], retry_times=0)[0] == 0

    def rename(self, hdfs_src_path, hdfs_dst_path, overwrite=False):
        assert hdfs_src_path is not None and hdfs_dst_path is not None
        return self._ok(["-mv", hdfs_src_path, hdfs_dst_path])

    @staticmethod
    def make_local_dirs(local_path):
        os.makedirs(local_path, exist_ok=True)

    def makedirs(self, hdfs_path):
        assert hdfs_path is not None
        if self.is_exist(hdfs_path):
            return None
        return self._ok(["-mkdir", hdfs_path])

    def _listing(self, flag, hdfs_path):
        """The 8-column lines of ``hadoop fs -ls`` / ``-lsr``, split at whitespace."""
        assert hdfs_path is not None
        if not self.is_exist(hdfs_path):
            return []
        code, out, _ = self._run([flag, hdfs_path], retry_times=1)
        if code:
            return []
        return [cols for cols in (re.split(r"\s+", line) for line in out.strip().split("\n")) if len(cols) == 8]

    def ls(self, hdfs_path):
        """The paths hdfs_path holds."""
        return [cols[7] for cols in self._listing("-ls", hdfs_path)]

    def lsr(self, hdfs_path, only_file=True, sort=True):
        """The paths under hdfs_path, recursively (files only with ``only_file``), in the listing's
        order (Fluid's sort by time is Python 2's ``sorted(cmp=)`` with its result dropped)."""
        return [cols[7] for cols in self._listing("-lsr", hdfs_path) if not (only_file and cols[0].startswith("d"))]


def _in_processes(work, items, multi_processes):
    procs = [multiprocessing.Process(target=work, args=(items[i::multi_processes],)) for i in range(multi_processes)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()


def multi_download(client, hdfs_path, local_path, trainer_id, trainers, multi_processes=5):
    """This trainer's share (every trainers-th file from trainer_id) of the files under hdfs_path,
    downloaded by multi_processes processes into local_path (sub-directories kept); returns their
    local paths."""
    assert isinstance(client, HDFSClient)
    client.make_local_dirs(local_path)
    need = client.lsr(hdfs_path, sort=True)[trainer_id::trainers]

    def local_dir(path):
        rel = os.path.relpath(os.path.dirname(path), hdfs_path)
        return local_path if rel == os.curdir else os.path.join(local_path, rel)

    def download(paths):
        for path in paths:
            client.download(path, local_dir(path))

    _in_processes(download, need, multi_processes)
    return [os.path.join(local_dir(path), os.path.basename(path)) for path in need]


def multi_upload(client, hdfs_path, local_path, multi_processes=5, overwrite=False, sync=True):
    """Every file under local_path uploaded by multi_processes processes to the same relative
    directory under hdfs_path."""
    assert isinstance(client, HDFSClient)
    walk = os.walk(local_path) if os.path.isdir(local_path) else []
    files = [os.path.join(d, f) for d, _, names in walk for f in names]

    def upload(paths):
        for path in paths:
            client.upload(
                os.path.join(hdfs_path, os.path.relpath(os.path.dirname(path), local_path)),
                path,
                overwrite,
                retry_times=5,
            )

    if files:
        _in_processes(upload, files, multi_processes)
