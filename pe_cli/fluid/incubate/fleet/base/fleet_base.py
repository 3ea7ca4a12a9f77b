"""``paddle.fluid.incubate.fleet.base.fleet_base``: what every fleet does (Fluid 1.8's ``Fleet`` and
``DistributedOptimizer``). ``fleet.init(role_maker)`` fixes this process's role; the questions
(``is_worker``, ``worker_index``, ``server_endpoints`` ...) go to the role maker; the collective and
parameter-server fleets say how a program is distributed and run."""

import abc

from .....base.errors import ArgumentTypeError, ArgumentValueError
from .....base.places import CPUPlace
from .....compiler.compiled_program import CompiledProgram
from .....executor import Executor
from .....executor.parallel import ParallelExecutor
from .....training.optimizer import Optimizer
from .mode import Mode
from .role_maker import PaddleCloudRoleMaker, RoleMakerBase
from .world import join

__all__ = ["Fleet", "DistributedOptimizer", "Mode"]


class Fleet(abc.ABC):
    """A fleet of ``mode`` (base/mode.py): one object per process, ``fleet`` in its module."""

    def __init__(self, mode):
        self._is_initialized = False
        self._mode = mode
        self._optimizer = None
        self._role_maker = None
        self._executor = None

    @property
    def _rm(self):
        if self._role_maker is None:
            raise ArgumentValueError(
                "fleet: call fleet.init(role_maker) first (a role maker from "
                "paddle.fluid.incubate.fleet.base.role_maker)"
            )
        return self._role_maker

    def is_first_worker(self):
        return self._rm.is_first_worker()

    def worker_index(self):
        return self._rm.worker_index()

    def worker_num(self):
        return self._rm.worker_num()

    def is_worker(self):
        return self._rm.is_worker()

    def worker_endpoints(self, to_string=False):
        endpoints = self._rm.get_trainer_endpoints()
        return ",".join(endpoints) if to_string else endpoints

    def server_num(self):
        return len(self._rm.get_pserver_endpoints())

    def server_index(self):
        return self._rm.server_index()

    def server_endpoints(self, to_string=False):
        endpoints = self._rm.get_pserver_endpoints()
        return ",".join(endpoints) if to_string else endpoints

    def is_server(self):
        return self._rm.is_server()

    def is_xpu(self):
        return getattr(self._rm, "_role", None) == 3

    def split_files(self, files):
        """This worker's share of ``files``: contiguous blocks, the first ones one file longer."""
        if not isinstance(files, list):
            raise ArgumentTypeError("files should be a list of file need to be read.")
        trainer_id, trainers = self.worker_index(), self.worker_num()
        base, extra = divmod(len(files), trainers)
        begin = trainer_id * base + min(trainer_id, extra)
        return files[begin : begin + base + (1 if trainer_id < extra else 0)]

    def init(self, role_maker=None):
        """Fixes this process's role (``role_maker``; PaddleCloudRoleMaker, which reads the
        environment, when None)."""
        self._executor = Executor(CPUPlace())
        if role_maker is not None and not isinstance(role_maker, RoleMakerBase):
            raise ArgumentTypeError("role_maker must be an instance of RoleMakerBase")
        if role_maker is None:
            role_maker = PaddleCloudRoleMaker(is_collective=self._mode == Mode.COLLECTIVE)
        self._role_maker = role_maker
        self._role_maker.generate_role()
        join(self._role_maker, type(role_maker).__name__)  # roles started on their own (world.py)
        self._is_initialized = True

    def all_reduce_worker(self, input, output):
        self._rm.all_reduce_worker(input, output)

    def barrier_worker(self):
        self._rm.barrier_worker()

    @abc.abstractmethod
    def init_worker(self):
        pass

    @abc.abstractmethod
    def init_server(self, model_dir=None):
        pass

    @abc.abstractmethod
    def run_server(self):
        pass

    @abc.abstractmethod
    def stop_worker(self):
        pass

    @abc.abstractmethod
    def distributed_optimizer(self, optimizer, strategy=None):
        pass

    @abc.abstractmethod
    def save_inference_model(
        self, executor, dirname, feeded_var_names=None, target_vars=None, main_program=None, export_for_deployment=True
    ):
        pass

    @abc.abstractmethod
    def save_persistables(self, executor, dirname, main_program=None):
        pass


def check_save_args(executor, main_program, what):
    """Fluid's checks of fleet.save_*: an Executor (not a ParallelExecutor) and a Program."""
    if isinstance(executor, ParallelExecutor):
        raise ArgumentTypeError(
            f"in fleet.{what}() function, executor must be as Executor type, ParallelExecutor is not allowed"
        )
    if not isinstance(executor, Executor):
        raise ArgumentTypeError(f"in fleet.{what}() function, executor must be as Executor type")
    if isinstance(main_program, CompiledProgram):
        raise ArgumentTypeError(
            f"in fleet.{what}() function, main_program must be as Program type, CompiledProgram is not allowed"
        )


class DistributedOptimizer(abc.ABC):
    """Wraps an optimizer: ``minimize`` adds the backward and update ops, then distributes the
    program as the fleet says (``strategy``)."""

    def __init__(self, optimizer, strategy=None):
        if not isinstance(optimizer, Optimizer):
            raise ArgumentTypeError("optimizer must be an instance of Optimizer")
        self._optimizer = optimizer
        self._strategy = strategy

    @abc.abstractmethod
    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        pass

    @abc.abstractmethod
    def apply_gradients(self, params_grads):
        pass

    @abc.abstractmethod
    def minimize(self, losses, scopes=None, startup_programs=None, parameter_list=None, no_grad_set=None):
        pass
