"""Where metric rows go: metrics.csv and metrics.jsonl always (rundir.Metrics), plus the loggers a
run config names under ``logger``:

    logger: tensorboard     # event files in <run dir>/tensorboard: tensorboard --logdir runs/

TensorBoard's files are written with tensorboardX (the optional ``tensorboard`` extra), the small
library that writes them without TensorFlow or PyTorch; without it, ``pe train`` stops before
the run starts with one line saying what to install.
"""

import math
import os

from ..config.keys import LOGGERS  # noqa: F401 -- the names the config accepts
from ..base.errors import PeError

_NOT_SCALARS = {"phase", "step", "epoch"}


def logger_names(cfg):
    """The config's ``logger`` value as a list (a single name or a list of names)."""
    value = cfg.data.get("logger") or []
    return [value] if isinstance(value, str) else list(value)


def check_loggers(cfg):
    """Fails before the run starts when a logger's library is missing."""
    for name in logger_names(cfg):
        if name == "tensorboard":
            _summary_writer_class()


class Loggers:
    """One ``write(row)`` for metrics.csv/jsonl and every configured logger."""

    def __init__(self, metrics, run_dir, names=()):
        self.metrics = metrics
        self._all = [metrics] + [TensorBoardLogger(run_dir) for n in names if n == "tensorboard"]

    def write(self, row):
        for logger in self._all:
            logger.write(row)

    def close(self):
        for logger in self._all:
            logger.close()


class TensorBoardLogger:
    """Each numeric column of a row as the scalar ``<phase>/<column>`` at its step (``train/loss``,
    ``eval/acc``, ``train/lr``), in <run dir>/tensorboard."""

    def __init__(self, run_dir):
        self.dir = os.path.join(run_dir, "tensorboard")
        self._writer = _summary_writer_class()(logdir=self.dir, flush_secs=10)

    def write(self, row):
        phase, step = row.get("phase", "train"), row.get("step", 0)
        for name, value in row.items():
            if name in _NOT_SCALARS or isinstance(value, bool) or not isinstance(value, (int, float)):
                continue
            if math.isfinite(value):
                self._writer.add_scalar(f"{phase}/{name}", value, global_step=step)
        self._writer.flush()

    def close(self):
        self._writer.close()


def _summary_writer_class():
    try:
        from tensorboardX import SummaryWriter
    except ImportError:
        raise PeError(
            "logger: tensorboard needs tensorboardX: pip install 'pe-cli[tensorboard]' (or pip install tensorboardX)"
        ) from None
    return SummaryWriter
