"""The file systems of Fluid 1.8's checkpointing collective fleet (``paddle.distributed.fs_wrapper``,
which the collective fleet imports): FS (the interface), LocalFS (this machine's files) and BDFS
(HDFS through the ``hadoop fs`` command, which must be on PATH: without it, making one says so in
one line)."""

import abc
import os
import shutil
import sys  # noqa: F401 -- Fluid's module has these names
from pathlib import PurePosixPath

from ... import core
from ...unsupported import HDFS, FluidUnsupported


class FS:
    """What a file system of the checkpointing fleet does."""

    @abc.abstractmethod
    def list_dirs(self, fs_path): ...

    @abc.abstractmethod
    def ls_dir(self, fs_path): ...

    @abc.abstractmethod
    def stat(self, fs_path): ...

    @abc.abstractmethod
    def upload(self, local_path, fs_path): ...

    @abc.abstractmethod
    def download(self, fs_path, local_path): ...

    @abc.abstractmethod
    def mkdir(self, fs_path): ...

    @abc.abstractmethod
    def mv(self, fs_src_path, fs_dst_path): ...

    @abc.abstractmethod
    def rmr(self, fs_path): ...

    @abc.abstractmethod
    def rm(self, fs_path): ...

    @abc.abstractmethod
    def delete(self, fs_path): ...

    @abc.abstractmethod
    def need_upload_download(self): ...


class LocalFS(FS):
    def list_dirs(self, fs_path):
        """The folders in ``fs_path`` ([] when it does not exist)."""
        if not self.stat(fs_path):
            return []
        return [f for f in os.listdir(fs_path) if os.path.isdir(os.path.join(fs_path, f))]

    def ls_dir(self, fs_path):
        return list(os.listdir(fs_path))

    def stat(self, fs_path):
        return os.path.exists(fs_path)

    def upload(self, local_path, fs_path):
        shutil.copy(local_path, fs_path)

    def download(self, fs_path, local_path):
        shutil.copy(fs_path, local_path)

    def mkdir(self, fs_path):
        assert not os.path.isfile(fs_path), f"{fs_path} is already a file"
        os.makedirs(fs_path, exist_ok=True)

    def mv(self, fs_src_path, fs_dst_path):
        os.rename(fs_src_path, fs_dst_path)

    def rmr(self, fs_path):
        shutil.rmtree(fs_path)

    def rm(self, fs_path):
        os.remove(fs_path)

    def delete(self, fs_path):
        if self.stat(fs_path):
            return self.rm(fs_path) if os.path.isfile(fs_path) else self.rmr(fs_path)
        return None

    def need_upload_download(self):
        return False


class BDFS(FS):
    """HDFS at ``hdfs_name`` as user ``hdfs_ugi``, through ``hadoop fs`` commands."""

    def __init__(self, hdfs_name, hdfs_ugi, time_out=20 * 60 * 1000, sleep_inter=1000):
        if shutil.which("hadoop") is None:
            raise FluidUnsupported("paddle.distributed.fs_wrapper.BDFS", HDFS + " (no 'hadoop' command on PATH)")
        self._base_cmd = f'hadoop fs -Dfs.default.name="{hdfs_name}" -Dhadoop.job.ugi="{hdfs_ugi}"'
        self._time_out, self._sleep_inter = time_out, sleep_inter

    def _run(self, args):
        return core.run_cmd(f"{self._base_cmd} {args}", self._time_out, self._sleep_inter)

    def _test(self, flag, fs_path):
        return self._run(f"-test {flag} {fs_path} ; echo $?").strip().splitlines()[:1] == ["0"]

    def list_dirs(self, fs_path):
        return self.ls_dir(fs_path)[0] if self.stat(fs_path) else []

    def ls_dir(self, fs_path):
        """(folders, files) in ``fs_path``, from ``hadoop fs -ls``."""
        dirs, files = [], []
        for line in self._run(f"-ls {fs_path}").splitlines():
            parts = line.split()
            if len(parts) == 8 and fs_path in parts[7]:
                (dirs if parts[0][0] == "d" else files).append(PurePosixPath(parts[7]).name)
        return dirs, files

    def is_dir(self, fs_path):
        return self._test("-d", fs_path)

    def stat(self, fs_path):
        return self._test("-e", fs_path)

    def upload(self, local_path, fs_path):
        self._run(f"-put {local_path} {fs_path}")

    def download(self, fs_path, local_path):
        self._run(f"-get {fs_path} {local_path}/")

    def mkdir(self, fs_path):
        if not self.stat(fs_path):
            self._run(f"-mkdir {fs_path}")

    def mv(self, fs_src_path, fs_dst_path):
        self._run(f"-mv {fs_src_path} {fs_dst_path}")

    def rmr(self, fs_path):
        return self._run(f"-rmr {fs_path}") if self.stat(fs_path) else None

    def rm(self, fs_path):
        return self._run(f"-rm {fs_path}") if self.stat(fs_path) else None

    def delete(self, fs_path):
        if self.stat(fs_path):
            return self.rmr(fs_path) if self.is_dir(fs_path) else self.rm(fs_path)
        return None

    def need_upload_download(self):
        return True
