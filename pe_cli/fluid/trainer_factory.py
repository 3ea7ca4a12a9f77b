"""``paddle.fluid.trainer_factory``: TrainerFactory makes the TrainerDesc a dataset run uses (from a
fleet's ``_fleet_opt``: its trainer and device worker classes and dump settings; MultiTrainer with
Hogwild by default), and FetchHandlerMonitor calls a FetchHandler every ``period_secs`` with the
fetched variables' values, on a thread of its own, while a dataset trains."""

import logging
import threading
import time

import numpy as np

from .device_worker import DownpourSGD, DownpourSGDOPT, Hogwild, Section  # noqa: F401
from .framework import Variable
from .trainer_desc import DistMultiTrainer, MultiTrainer, PipelineTrainer, TrainerDesc  # noqa: F401

__all__ = ["TrainerFactory", "FetchHandlerMonitor"]
_logger = logging.getLogger(__name__)
_DEBUG_OPTIONS = (
    "dump_slot",
    "mpi_rank",
    "mpi_size",
    "dump_fields",
    "dump_fields_path",
    "dump_file_num",
    "dump_converter",
    "dump_param",
)
_FLEET_OPTIONS = ("use_cvm", "no_cvm", "scale_datanorm", "check_nan_var_names", "loss_names")


class TrainerFactory:
    def _create_trainer(self, opt_info=None):
        """The TrainerDesc of ``opt_info`` (MultiTrainer with Hogwild when it is empty)."""
        if not opt_info:
            trainer, worker = MultiTrainer(), Hogwild()
        else:
            trainer, worker = globals()[opt_info["trainer"]](), globals()[opt_info["device_worker"]]()
            for key in _DEBUG_OPTIONS + (_FLEET_OPTIONS if "fleet_desc" in opt_info else ()):
                if opt_info.get(key) is not None and hasattr(trainer, f"_set_{key}"):
                    getattr(trainer, f"_set_{key}")(opt_info[key])
            if "fleet_desc" in opt_info:
                worker._set_fleet_desc(opt_info["fleet_desc"])
        trainer._set_device_worker(worker)
        return trainer


class FetchHandlerMonitor:
    """``start()`` runs ``handler.handler({key: value})`` every ``handler.period_secs`` seconds with
    the values of ``handler.var_dict``'s variables in ``scope`` (None for one not there yet);
    ``stop()`` ends it."""

    def __init__(self, scope, handler):
        self.fetch_instance = handler
        self.fetch_thread = threading.Thread(target=self.handler_launch_func, args=(scope, handler), daemon=True)
        self.running_lock = threading.Lock()
        self.running = False

    @staticmethod
    def _values(scope, names):
        values = {}
        for name, key in names.items():
            var = scope.find_var(name)
            if var is None:
                _logger.warning(f"{key} value currently not available")
                values[key] = None
                continue
            tensor = var.get_tensor()
            if tensor.lod():
                raise RuntimeError(
                    "Some of your fetched tensors hold LoD information. They can not be completely "
                    "cast to Python ndarray. please choose another targets"
                )
            values[key] = None if tensor._array is None else np.array(tensor)
        return values

    def handler_launch_func(self, scope, handler):
        names = {}
        for key, var in handler.var_dict.items():
            if not isinstance(var, Variable):
                _logger.warning(f"the value of {key} is not a Variable")
            names[var.name if isinstance(var, Variable) else "None.var"] = key
        elapsed = 0
        while True:
            with self.running_lock:
                if not self.running:
                    break
                if elapsed < handler.period_secs:
                    elapsed += 1
                else:
                    elapsed = 0
                    handler.handler(self._values(scope, names))
            time.sleep(1)

    def start(self):
        with self.running_lock:
            self.running = True
        self.fetch_thread.start()

    def stop(self):
        with self.running_lock:
            self.running = False
