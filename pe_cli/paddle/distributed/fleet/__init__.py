"""``paddle.distributed.fleet`` (Paddle 2.x) for static programs, one worker: ``fleet.init``,
``DistributedStrategy``, ``fleet.distributed_optimizer(optimizer, strategy).minimize(loss)`` and the
role queries, over pe's Fluid 1.8 role makers (pe_cli/fluid/incubate/fleet/base). A program that is not
launched (no PADDLE_TRAINER_ENDPOINTS / PADDLE_PSERVERS_IP_PORT_LIST) is worker 0 of 1, as Paddle 2.6's;
its distributed optimizer is the optimizer itself (what Paddle's meta-optimizers reduce to on one
worker). What pe's 2.x fleet does not do yet is one line when asked: several workers, the
parameter-server mode, and each strategy switch that rewrites the program (amp, recompute, sharding,
pipeline, gradient merge, DGC, LARS/LAMB, local SGD); Fluid 1.8's fleet (paddle.fluid.incubate.fleet)
and ``pe launch`` run those distributed."""

import os

from ....base.errors import PeError
from ....fluid import io as fluid_io
from ....fluid.incubate.data_generator import MultiSlotDataGenerator, MultiSlotStringDataGenerator  # noqa: F401
from ....fluid.incubate.fleet.base.role_base import Role  # noqa: F401
from ....fluid.incubate.fleet.base.role_maker import PaddleCloudRoleMaker, UserDefinedRoleMaker  # noqa: F401
from .strategy import DistributedStrategy

__all__ = [
    "DistributedStrategy",
    "Fleet",
    "MultiSlotDataGenerator",
    "MultiSlotStringDataGenerator",
    "PaddleCloudRoleMaker",
    "Role",
    "UserDefinedRoleMaker",
]

_LAUNCHED = ("PADDLE_TRAINER_ENDPOINTS", "PADDLE_PSERVERS_IP_PORT_LIST", "PADDLE_PSERVER_ENDPOINTS")


def _refuse(what):
    raise PeError(
        f"paddle.distributed.fleet: {what} is not built in pe's Paddle 2.x fleet yet (it runs one worker); "
        f"run it distributed with Fluid 1.8's fleet (paddle.fluid.incubate.fleet) and pe launch"
    )


class Fleet:
    def __init__(self):
        self._role_maker, self._is_collective, self._strategy = None, False, None

    def init(self, role_maker=None, is_collective=False, strategy=None, log_level="INFO"):
        """Fixes this process's role: ``role_maker``'s, the launcher's environment's, else worker 0 of 1."""
        if strategy is not None and not isinstance(strategy, DistributedStrategy):
            raise ValueError("strategy must be an instance of DistributedStrategy")
        self._is_collective, self._strategy = bool(is_collective), strategy
        if role_maker is None and any(os.environ.get(k) for k in _LAUNCHED):
            role_maker = PaddleCloudRoleMaker(is_collective=self._is_collective)
        if role_maker is not None:
            role_maker.generate_role()
        self._role_maker = role_maker

    # -- the role ------------------------------------------------------------------------------
    def is_first_worker(self):
        return self.worker_index() == 0

    def worker_index(self):
        return self._role_maker.worker_index() if self._role_maker is not None else 0

    def worker_num(self):
        return self._role_maker.worker_num() if self._role_maker is not None else 1

    def is_worker(self):
        return self._role_maker.is_worker() if self._role_maker is not None else True

    def is_server(self):
        return self._role_maker.is_server() if self._role_maker is not None else False

    def server_num(self):
        return len(self.server_endpoints())

    def server_index(self):
        return self._role_maker.server_index() if self._role_maker is not None else 0

    def worker_endpoints(self, to_string=False):
        eps = self._role_maker.get_trainer_endpoints() if self._role_maker is not None else []
        return ",".join(eps) if to_string else eps

    def server_endpoints(self, to_string=False):
        eps = self._role_maker.get_pserver_endpoints() if self._role_maker is not None else []
        return ",".join(eps) if to_string else eps

    def barrier_worker(self):
        if self.worker_num() > 1:
            _refuse("barrier_worker over several workers")

    def init_worker(self, scopes=None):
        """Nothing to connect to for one collective worker."""
        if not self._is_collective and self._role_maker is not None:
            _refuse("the parameter-server mode (init_worker)")

    def stop_worker(self):
        if not self._is_collective and self._role_maker is not None:
            _refuse("the parameter-server mode (stop_worker)")

    def init_server(self, *args, **kwargs):
        _refuse("the parameter-server mode (init_server)")

    def run_server(self):
        _refuse("the parameter-server mode (run_server)")

    def distributed_optimizer(self, optimizer, strategy=None):
        strategy = strategy if strategy is not None else (self._strategy or DistributedStrategy())
        if not isinstance(strategy, DistributedStrategy):
            raise ValueError("strategy must be an instance of DistributedStrategy")
        return _DistributedOptimizer(self, optimizer, strategy)

    def save_inference_model(
        self, executor, dirname, feeded_var_names, target_vars, main_program=None, export_for_deployment=True, mode=0
    ):
        fluid_io.save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program)

    def save_persistables(self, executor, dirname, main_program=None, mode=0):
        fluid_io.save_persistables(executor, dirname, main_program)


class _DistributedOptimizer:
    """Paddle's fleet optimizer on one worker: the user's optimizer's minimize, once the strategy asks
    for nothing pe's 2.x fleet lacks."""

    def __init__(self, fleet, optimizer, strategy):
        self._fleet, self.user_defined_optimizer, self.user_defined_strategy = fleet, optimizer, strategy

    def __getattr__(self, name):
        return getattr(self.user_defined_optimizer, name)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        switched = self.user_defined_strategy.switched_on()
        if switched:
            _refuse(f"DistributedStrategy.{switched[0]}")
        if not self._fleet._is_collective and self._fleet._role_maker is not None:
            _refuse("the parameter-server mode")
        if self._fleet.worker_num() > 1:
            _refuse(f"training on {self._fleet.worker_num()} workers")
        return self.user_defined_optimizer.minimize(loss, startup_program, parameters, no_grad_set)


fleet = Fleet()
for _name in (
    "init",
    "is_first_worker",
    "worker_index",
    "worker_num",
    "is_worker",
    "is_server",
    "server_num",
    "server_index",
    "worker_endpoints",
    "server_endpoints",
    "barrier_worker",
    "init_worker",
    "stop_worker",
    "init_server",
    "run_server",
    "distributed_optimizer",
    "save_inference_model",
    "save_persistables",
):
    globals()[_name] = getattr(fleet, _name)
