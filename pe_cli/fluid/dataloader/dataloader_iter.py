"""``paddle.fluid.dataloader.dataloader_iter``: what DataLoader's iterators use: ``default_collate_fn``
(samples of fields into one array per field), ParentWatchDog (a worker's check that the process that
started it still lives) and the cleanup registrar; pe's iterators are pe_cli/data/dataset_loading.py's."""

import itertools  # noqa: F401 -- Fluid's module has these names
import logging  # noqa: F401
import multiprocessing  # noqa: F401
import os
import queue  # noqa: F401
import signal  # noqa: F401
import sys  # noqa: F401
import threading  # noqa: F401
import time  # noqa: F401

import numpy as np  # noqa: F401

from .. import core  # noqa: F401
from ..framework import in_dygraph_mode  # noqa: F401
from ..multiprocess_utils import CleanupFuncRegistrar, six  # noqa: F401
from ...data.dataset_loading import default_collate_fn  # noqa: F401

MP_INDICES_CHECK_INTERVAL = 5  # seconds a worker waits for indices before checking its parent


class ParentWatchDog:
    """``is_alive()``: False once the process that made it has ended (it stays False)."""

    def __init__(self):
        self._parent_pid = os.getppid()
        self._parent_alive = True

    def is_alive(self):
        if self._parent_alive:
            self._parent_alive = os.getppid() == self._parent_pid
        return self._parent_alive
