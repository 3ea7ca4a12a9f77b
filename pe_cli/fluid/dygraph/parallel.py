"""``paddle.fluid.dygraph.parallel``: ParallelEnv, the trainer's place in a job as the launcher's
environment says (PADDLE_TRAINERS_NUM, PADDLE_TRAINER_ID, FLAGS_selected_gpus,
PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT: plain data, usable anywhere); DataParallel and
prepare_context are dygraph mode's, which pe does not run (one line each)."""

import os

from ..unsupported import DYGRAPH, unsupported

__all__ = ["prepare_context", "ParallelEnv", "DataParallel"]


class ParallelEnv:
    def __init__(self):
        self._nranks = int(os.getenv("PADDLE_TRAINERS_NUM", "1"))
        self._local_rank = int(os.getenv("PADDLE_TRAINER_ID", "0"))
        self._dev_id = int(os.getenv("FLAGS_selected_gpus", "0"))
        self._trainer_endpoints = os.getenv("PADDLE_TRAINER_ENDPOINTS", "").split(",")
        self._current_endpoint = os.getenv("PADDLE_CURRENT_ENDPOINT", "")

    @property
    def nranks(self):
        return self._nranks

    @property
    def local_rank(self):
        return self._local_rank

    @property
    def dev_id(self):
        return self._dev_id

    @property
    def current_endpoint(self):
        return self._current_endpoint

    @property
    def trainer_endpoints(self):
        return self._trainer_endpoints


Env = ParallelEnv
prepare_context = unsupported("paddle.fluid.dygraph.parallel.prepare_context", DYGRAPH)
DataParallel = unsupported("paddle.fluid.dygraph.parallel.DataParallel", DYGRAPH)
