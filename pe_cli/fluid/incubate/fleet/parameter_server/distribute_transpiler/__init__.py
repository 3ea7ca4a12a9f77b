"""``paddle.fluid.incubate.fleet.parameter_server.distribute_transpiler``: the parameter-server fleet
(Fluid 1.8), over pe's DistributeTranspiler in pserver mode (docs/DISTRIBUTED.md).

    fleet.init(role_maker.PaddleCloudRoleMaker())
    optimizer = fleet.distributed_optimizer(fluid.optimizer.SGD(0.1), StrategyFactory.create_sync_strategy())
    optimizer.minimize(loss)
    if fleet.is_server():
        fleet.init_server()            # runs the server's startup program
        fleet.run_server()             # serves until every trainer has stopped
    else:
        fleet.init_worker()
        exe.run(fleet.startup_program) # receives the servers' initial parameters
        exe.train_from_dataset(fleet.main_program, dataset)   # or exe.run(fleet.main_program, feed=...)
        fleet.stop_worker()            # tells the servers this trainer is done

The P servers are MPI ranks 0..P-1 in the order of their endpoints, worker i is rank P + i
(``pe launch --pservers P --trainers K``)."""

import os  # noqa: F401 -- Fluid's module has these names
import warnings  # noqa: F401

from ..... import io  # noqa: F401
from .....communicator import Communicator  # noqa: F401
from .....compiler import CompiledProgram  # noqa: F401
from .....executor import Executor  # noqa: F401
from .....framework import Program, default_main_program  # noqa: F401
from .....parallel_executor import ParallelExecutor  # noqa: F401
from .....transpiler.distribute_transpiler import DistributeTranspiler as OriginTranspiler  # noqa: F401
from .....transpiler.distribute_transpiler import DistributedMode, ServerRuntimeConfig  # noqa: F401
from ...base.role_maker import MPISymetricRoleMaker  # noqa: F401
from .distributed_strategy import (
    AsyncStrategy,
    GeoStrategy,
    HalfAsyncStrategy,
    SyncStrategy,  # noqa: F401
    TrainerRuntimeConfig,
)
from ......base.errors import ArgumentTypeError, ArgumentValueError, FluidUnsupported
from ......executor import global_scope
from ......framework import default_startup_program
from ......io.checkpoint import is_parameter, read_saved, save_persistables, save_vars
from ......io.inference import save_inference_model as _save_inference_model
from ......training.optimizer import Optimizer
from .....transpiler import DistributeTranspiler, DistributeTranspilerConfig
from ...base.fleet_base import DistributedOptimizer, Fleet, Mode, check_save_args
from .distributed_strategy import DistributedStrategy, StrategyFactory

__all__ = ["fleet", "FleetTranspiler", "TranspilerOptimizer", "StrategyFactory", "DistributedStrategy"]


def _ps_mode(strategy):
    """'sync' or 'async' for pe's servers, from a strategy or a DistributeTranspilerConfig."""
    if isinstance(strategy, DistributedStrategy):
        mode, config = strategy.mode, strategy.get_program_config()
    else:
        config = strategy
        mode = (
            "sync"
            if config.sync_mode
            else "geo"
            if config.geo_sgd_mode
            else "half_async"
            if config.half_async
            else "async"
        )
    if mode == "geo" or config.geo_sgd_mode:
        raise FluidUnsupported(
            "paddle.fluid.incubate.fleet geo-SGD (GeoStrategy, geo_sgd_mode)",
            "pe's servers run synchronous or asynchronous SGD; use "
            "StrategyFactory.create_sync_strategy() or create_async_strategy()",
        )
    return ("sync" if mode == "sync" else "async"), config


class TranspilerOptimizer(DistributedOptimizer):
    """``minimize`` adds the backward and update ops, then transpiles the program for this role:
    ``fleet.main_program`` / ``fleet.startup_program`` become the trainer's or the server's."""

    _fleet = None  # the fleet whose distributed_optimizer made it (the module's ``fleet`` else)

    def __init__(self, optimizer, strategy=None):
        super().__init__(optimizer, strategy)
        if strategy is None:
            self._strategy = StrategyFactory.create_sync_strategy()
        elif not isinstance(strategy, (DistributeTranspilerConfig, DistributedStrategy)):
            raise ArgumentTypeError(
                "In TRANSPILER mode, strategy must be an instance of DistributeTranspilerConfig, "
                "SyncStrategy, HalfAsyncStrategy, AsyncStrategy, or GeoStrategy"
            )

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        return self._optimizer.backward(loss, startup_program, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def minimize(self, loss, scopes=None, startup_program=None, parameter_list=None, no_grad_set=None):
        if isinstance(loss, list):
            raise ArgumentTypeError("DistributedTranspiler's minimize can not accept loss with list")
        if isinstance(startup_program, list):
            raise ArgumentTypeError("DistributedTranspiler's minimize can not accept program with list")
        _ps_mode(self._strategy)  # an unsupported strategy fails before the program changes
        optimize_ops, params_grads = self._optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)
        startup = default_startup_program() if startup_program is None else startup_program
        (self._fleet or fleet)._transpile(self._strategy, loss.block.program, startup)
        return optimize_ops, params_grads


class FleetTranspiler(Fleet):
    """The parameter-server fleet (``fleet`` is its one instance)."""

    def __init__(self):
        super().__init__(Mode.TRANSPILER)
        self._transpile_config = None
        self._transpiler = None
        self._origin_main_program = None
        self._origin_startup_program = None
        self.main_program = None
        self.startup_program = None

    def _after_minimize(self, what):
        if self.main_program is None:
            raise ArgumentValueError(
                f"fleet.{what}: main_program is None, need invoke DistributedOptimizer.minimize first"
            )

    def init_worker(self):
        """Nothing to start in pe (no communicator thread): the trainer's startup program receives
        the servers' initial parameters (run ``fleet.startup_program``)."""
        self._after_minimize("init_worker")
        if not self.is_worker():
            raise ArgumentValueError(
                "fleet.init_worker: this process is a server (fleet.is_server()); call init_server"
            )

    def init_server(self, model_dir=None):
        """Runs the server's startup program (its parameter blocks from the initializers); with
        ``model_dir`` (what a worker's fleet.save_persistables or fluid.io.save_params wrote), its
        parameter blocks are then cut from the saved parameters (the optimizer state starts anew)."""
        self._after_minimize("init_server")
        if not self.is_server():
            raise ArgumentValueError(
                "fleet.init_server: this process is a worker (fleet.is_worker()); call init_worker"
            )
        self._executor.run(self.startup_program)
        if model_dir:
            self._load_blocks(model_dir)

    def _load_blocks(self, model_dir):
        """This server's parameter blocks, cut from the whole parameters saved in ``model_dir``."""
        mine = self.main_program._pserver_origin  # block name -> (parameter name, VarBlock)
        origin = self._origin_main_program.global_block()
        params = sorted({name for name, _ in mine.values() if is_parameter(origin.var(name))})
        saved = read_saved("fleet.init_server", model_dir, params)
        scope = global_scope()
        for new, (name, vb) in mine.items():
            if name in saved and scope.find_var(new) is not None:
                value = saved[name]
                scope.set_array(new, value if vb is None or vb.count == 1 else value[vb.row0 : vb.row0 + vb.rows])

    def run_server(self):
        """Serves: returns once every trainer has stopped (stop_worker, or its exit)."""
        self._after_minimize("run_server")
        if not self.is_server():
            raise ArgumentValueError("fleet.run_server: this process is a worker (fleet.is_worker())")
        self._executor.run(self.main_program)

    def stop_worker(self):
        """Tells the servers this trainer has finished."""
        self._executor.close()

    def distributed_optimizer(self, optimizer, strategy=None):
        if not isinstance(optimizer, Optimizer):
            raise ArgumentValueError("optimizer must be an instance of Optimizer")
        if not self._is_initialized:
            raise ArgumentValueError("fleet.init(role) to initialize before optimizer.minimize(loss)")
        if strategy is None:
            strategy = StrategyFactory.create_async_strategy()
        self._optimizer = TranspilerOptimizer(optimizer, strategy)
        self._optimizer._fleet = self
        return self._optimizer

    def _transpile(self, config, program=None, startup_program=None):
        """This role's programs from ``program`` (minimized) in the mode ``config`` says."""
        if not isinstance(config, (DistributeTranspilerConfig, DistributedStrategy)):
            raise ArgumentTypeError(
                "config must be an instance of DistributeTranspilerConfig, SyncStrategy, "
                "HalfAsyncStrategy, AsyncStrategy or GeoStrategy"
            )
        mode, given = _ps_mode(config)
        program = program if program is not None else self._origin_main_program
        startup_program = default_startup_program() if startup_program is None else startup_program
        self._origin_main_program = program.clone()
        self._origin_startup_program = startup_program.clone()
        pe_config = DistributeTranspilerConfig()
        for field in ("slice_var_up", "split_method", "min_block_size"):
            setattr(pe_config, field, getattr(given, field))
        self._transpile_config = config
        self._transpiler = DistributeTranspiler(config=pe_config)
        worker = self.is_worker()
        self._transpiler.transpile(
            self.worker_index() if worker else 0,
            program=program,
            startup_program=startup_program,
            pservers=self.server_endpoints(to_string=True),
            trainers=self.worker_num(),
            sync_mode=mode == "sync",
        )
        if worker:
            self.main_program, self.startup_program = self._transpiler.get_trainer_program(), startup_program
        else:
            endpoint = self.server_endpoints()[self.server_index()]
            self.main_program, self.startup_program = self._transpiler.get_pserver_programs(endpoint)

    def save_inference_model(
        self, executor, dirname, feeded_var_names=None, target_vars=None, main_program=None, export_for_deployment=True
    ):
        """On a worker: the inference program of the program as it was before it was distributed,
        with the parameters the worker last received from the servers."""
        check_save_args(executor, main_program, "save_inference_model")
        program = self._origin_main_program if main_program is None else main_program
        return _save_inference_model(
            dirname, feeded_var_names, target_vars, executor, program, None, None, export_for_deployment
        )

    def save_persistables(self, executor, dirname, main_program=None):
        """On a worker: the parameters it last received from the servers (the optimizer's state,
        which lives on the servers, is not saved); on a server: its own blocks."""
        check_save_args(executor, main_program, "save_persistables")
        if main_program is not None:
            save_persistables(executor, dirname, main_program)
        elif self.is_server():
            save_persistables(executor, dirname, self.main_program)
        else:
            save_vars(executor, dirname, self._origin_main_program, predicate=is_parameter)


fleet = FleetTranspiler()
DistributedTranspiler = FleetTranspiler  # the fleet class's name in Fluid 1.8
