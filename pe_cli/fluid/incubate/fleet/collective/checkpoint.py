"""The checkpoints of the collective fleet (Fluid 1.8): ``save_check_point(executor, path,
train_status)`` writes the persistables (one file) and the TrainStatus (the completed epoch) into
``path/__paddle_fleet_checkpoint__.<n>`` (through ``.tmp`` and a rename, and a local cache for a file
system that uploads), ``load_check_point`` reads the newest one back, and
``clean_redundant_check_points`` keeps the newest ``checkpoint_num``."""

import json
import os

from ..file_system import LocalFS
from .....io.checkpoint import load_persistables

PREFIX = "__paddle_fleet_checkpoint__"


class TrainStatus:
    def __init__(self, epoch_no=-1):
        self._epoch_no = epoch_no  # the last completed epoch

    def next(self):
        return self._epoch_no + 1

    def __eq__(self, t):
        return self._epoch_no == t._epoch_no


def _numbers(root_path, fs):
    """{checkpoint number: folder name} of the checkpoints in ``root_path``."""
    found = {}
    for name in fs.list_dirs(root_path):
        parts = name.split(".")
        if len(parts) == 2 and parts[0] == PREFIX and parts[1].isdigit():
            found[int(parts[1])] = name
    return found


class Checkpoints:
    """The checkpoint methods of the collective fleet (it holds ``_transpiled_program``)."""

    _checkoint_prefix = PREFIX
    _param_file_name = "_paddle_fleet_param__"

    def _save_train_status(self, path, train_status):
        with open(f"{path}/fleet_train_status", "w") as f:
            json.dump({"epoch_no": train_status._epoch_no}, f)

    def _load_train_status(self, path):
        status, file_name = TrainStatus(), f"{path}/fleet_train_status"
        if not os.path.isfile(file_name):
            return status
        with open(file_name) as f:
            d = json.load(f)
        assert "epoch_no" in d, f"Can't find epoch_no in dict from train_status file:{d}"
        status._epoch_no = d["epoch_no"]
        assert status._epoch_no >= 0, f"Data in checkpoint file is not valid:{d}"
        return status

    def _get_last_checkpoint_no(self, root_path, fs):
        return max(_numbers(root_path, fs), default=-1)

    def clean_redundant_check_points(self, root_path, fs=LocalFS(), checkpoint_num=1):
        """Removes all but the newest ``checkpoint_num`` (at least 1) checkpoints."""
        numbers = _numbers(root_path, fs)
        newest = max(numbers, default=-1)
        for n in numbers:
            if n <= newest - max(1, checkpoint_num):
                fs.rmr(f"{root_path}/{PREFIX}.{n}")

    def save_check_point(
        self,
        executor,
        path,
        train_status,
        main_program=None,
        fs=LocalFS(),
        local_cache_path=".cache",
        remain_all_checkpoint=True,
    ):
        main_program = self._transpiled_program if main_program is None else main_program
        if not fs.stat(path):
            fs.mkdir(path)
        number = self._get_last_checkpoint_no(path, fs) + 1
        real_path = f"{path}/{PREFIX}.{number}"
        tmp_path = saved_path = f"{real_path}.tmp"
        if fs.need_upload_download():
            saved_path = f"{local_cache_path}/{PREFIX}.{number}.saved_cache"
            LocalFS().mkdir(saved_path)
        self.save_persistables(
            executor=executor, dirname=saved_path, main_program=main_program, filename=self._param_file_name
        )
        self._save_train_status(path=saved_path, train_status=train_status)
        if fs.need_upload_download():
            fs.delete(tmp_path)
            fs.upload(saved_path, tmp_path)
        fs.mv(tmp_path, real_path)
        if not remain_all_checkpoint:
            self.clean_redundant_check_points(path)

    def load_check_point(
        self, executor, path, trainer_id, main_program=None, fs=LocalFS(), local_cache_path=".cache", ignore_empty=True
    ):
        """The TrainStatus of the newest checkpoint, its persistables loaded (None when there is none)."""
        number = self._get_last_checkpoint_no(path, fs)
        assert ignore_empty or number >= 0, "Can't find checkpoint"
        if number < 0:
            return None
        load_path = f"{path}/{PREFIX}.{number}"
        if fs.need_upload_download():
            cache_path = f"{local_cache_path}/{PREFIX}.{number}.load_cache.{trainer_id}"
            LocalFS().delete(cache_path)
            fs.download(load_path, cache_path)
            load_path = cache_path
        main_program = self._transpiled_program if main_program is None else main_program
        load_persistables(
            executor=executor, dirname=load_path, main_program=main_program, filename=self._param_file_name
        )
        return self._load_train_status(load_path)
