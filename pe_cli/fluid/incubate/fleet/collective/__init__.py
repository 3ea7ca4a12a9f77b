"""``paddle.fluid.incubate.fleet.collective``: the collective fleet (Fluid 1.8). Every worker holds
the whole model, runs its share of each batch, and the gradients are summed over the workers before
the same update (pe's collective mode over MPI: docs/DISTRIBUTED.md).

    fleet.init(role_maker.PaddleCloudRoleMaker(is_collective=True))
    optimizer = fleet.distributed_optimizer(fluid.optimizer.SGD(0.1), DistributedStrategy())
    optimizer.minimize(loss)
    exe.run(fleet.startup_program)
    exe.run(fleet.main_program, feed=my_share, fetch_list=[loss])   # a CompiledProgram

Worker i is MPI rank i (``pe launch --trainers K``, or ``mpiexec -n K``)."""

import json  # noqa: F401 -- Fluid's module has these names
import logging
import os  # noqa: F401
import re  # noqa: F401
import shutil  # noqa: F401
import sys  # noqa: F401

from .checkpoint import Checkpoints, TrainStatus  # noqa: F401
from ..file_system import BDFS, LocalFS  # noqa: F401
from ..... import fluid  # noqa: F401
from .... import compiler, io  # noqa: F401
from ....executor import Executor  # noqa: F401
from ....framework import Program  # noqa: F401
from ....parallel_executor import ParallelExecutor  # noqa: F401
from ....transpiler import distribute_transpiler as dist_transpiler  # noqa: F401
from ....unsupported import optional_module
from .....base.errors import ArgumentTypeError, ArgumentValueError
from .....compiler.compiled_program import CompiledProgram
from .....compiler.strategy import (
    BuildStrategy,
    ExecutionStrategy,
    check_bool as _check_bool,
    check_int as _check_int,
    check_list as _check_list,
)
from .....framework import default_startup_program
from .....io.checkpoint import save_persistables as _save_persistables
from .....io.inference import save_inference_model as _save_inference_model
from ....transpiler import DistributeTranspiler, DistributeTranspilerConfig
from ..base.fleet_base import DistributedOptimizer, Fleet, Mode, check_save_args

__all__ = ["fleet", "Collective", "DistributedStrategy", "CollectiveOptimizer", "LambConfig", "DistFCConfig"]
six = optional_module("six")

_log = logging.getLogger(__name__)


class LambConfig:
    def __init__(self):
        pass


class DistFCConfig:
    def __init__(self):
        pass


def _any(owner, name, value):
    return value


class DistributedStrategy(BuildStrategy):
    """The collective fleet's strategy: a ``BuildStrategy`` (how each worker's graph is built) with
    Fluid's collective options. ``mode`` 'nccl2' (the default: the program runs through
    ``CompiledProgram.with_data_parallel``) or 'collective' (the program itself; sum the gradients
    through ParallelExecutor or a CompiledProgram of your own). pe has no local SGD, distributed FC,
    recompute or AMP in the fleet: setting them to True is an error at minimize."""

    _OPTIONS = dict(
        BuildStrategy._OPTIONS,
        **{
            "use_local_sgd": (False, _check_bool),
            "use_dist_fc": (False, _check_bool),
            "dist_fc_config": (None, _any),
            "mode": ("nccl2", _any),
            "collective_mode": (None, _any),
            "forward_recompute": (False, _check_bool),
            "recompute_checkpoints": (list, _check_list),
            "use_amp": (False, _check_bool),
            "amp_loss_scaling": (2**15, _any),
            "exec_strategy": (ExecutionStrategy, _any),
            "local_sgd_config": (None, _any),
            "lamb_config": (None, _any),
            "fuse_grad_size_in_num": (8, _check_int(1)),
        },
    )


class CollectiveOptimizer(DistributedOptimizer):
    """``minimize`` adds the backward and update ops, then makes ``fleet.main_program``: the program
    with its workers recorded (DistributeTranspiler, collective mode) compiled for data parallelism."""

    _fleet = None  # the fleet whose distributed_optimizer made it (the module's ``fleet`` else)

    def __init__(self, optimizer, strategy=None):
        strategy = DistributedStrategy() if strategy is None else strategy
        super().__init__(optimizer, strategy)
        self.print_config = False

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        return self._optimizer.backward(loss, startup_program, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def _check_strategy(self):
        strategy = self._strategy
        if not isinstance(strategy, DistributedStrategy):
            raise ArgumentTypeError(
                "In collective mode, strategy must be an instance of DistributedStrategy "
                "(paddle.fluid.incubate.fleet.collective)"
            )
        for option in ("use_local_sgd", "use_dist_fc", "forward_recompute", "use_amp"):
            if getattr(strategy, option):
                raise ArgumentValueError(
                    f"DistributedStrategy.{option}: pe's collective fleet does not support it; leave it False"
                )
        if strategy.mode not in ("nccl2", "collective"):
            raise ArgumentValueError(f"DistributedStrategy.mode must be 'nccl2' or 'collective', got {strategy.mode!r}")

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        """Minimizes ``loss`` on every worker; returns (update ops, [(param, grad)])."""
        self._check_strategy()
        fleet = self._fleet or _module_fleet()
        main_program = loss.block.program
        startup_program = default_startup_program() if startup_program is None else startup_program
        fleet.startup_program = startup_program
        optimize_ops, params_grads = self._optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)
        fleet._origin_program = main_program.clone(for_test=False)
        fleet._transpiled_program = main_program
        fleet.main_program = self._compile(fleet, loss, startup_program, main_program)
        return optimize_ops, params_grads

    def _compile(self, fleet, loss, startup_program, main_program):
        config = DistributeTranspilerConfig()
        config.mode = "nccl2"
        endpoints = fleet.worker_endpoints()
        current = endpoints[fleet.worker_index()] if endpoints else None
        DistributeTranspiler(config=config).transpile(
            fleet.worker_index(),
            program=main_program,
            startup_program=startup_program,
            trainers=",".join(endpoints),
            current_endpoint=current,
        )
        if self._strategy.mode == "collective":
            return main_program
        return CompiledProgram(main_program).with_data_parallel(
            loss_name=loss.name, build_strategy=self._strategy, exec_strategy=self._strategy.exec_strategy
        )


class CollectiveOpBasedOptimizer(DistributedOptimizer):
    """The base of collective-op optimizers: backward and apply_gradients are the wrapped optimizer's."""

    def __init__(self, optimizer, strategy=None):
        assert isinstance(strategy, DistributedStrategy), "strategy must be DistributedStrategy"
        super().__init__(optimizer, strategy)

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        return self._optimizer.backward(loss, startup_program, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)


class Collective(Checkpoints, Fleet):
    """The collective fleet: every process is a worker (``fleet`` is its one instance)."""

    def __init__(self):
        super().__init__(Mode.COLLECTIVE)
        self.startup_program = None
        self._origin_program = None
        self._transpiled_program = None
        self.main_program = None

    def init_worker(self):
        _log.warning("You should not call 'init_worker' method for collective mode.")

    def run_worker(self, main_programs=None, scopes=None):
        _log.warning("You should not call 'run_worker' method for collective mode.")

    def init_server(self, model_dir=None):
        _log.warning("You should not call 'init_server' method for collective mode.")

    def run_server(self):
        _log.warning("You should not call 'run_server' method for collective mode.")

    def stop_worker(self):
        _log.warning("You should not call 'stop_worker' method for collective mode.")

    def distributed_optimizer(self, optimizer, strategy=None):
        self._optimizer = CollectiveOptimizer(optimizer, strategy)
        self._optimizer._fleet = self
        return self._optimizer

    def save_inference_model(
        self, executor, dirname, feeded_var_names=None, target_vars=None, main_program=None, export_for_deployment=True
    ):
        """Saves the inference program of ``main_program`` (the program as it was before it was
        distributed, by default) and its parameters, as fluid.io.save_inference_model."""
        check_save_args(executor, main_program, "save_inference_model")
        program = self._origin_program if main_program is None else main_program
        return _save_inference_model(
            dirname, feeded_var_names, target_vars, executor, program, None, None, export_for_deployment
        )

    def save_persistables(self, executor, dirname, main_program=None, filename=None):
        """Saves the persistable variables (parameters and optimizer state) of ``main_program``
        (the program before it was distributed, by default): every worker holds the same values."""
        check_save_args(executor, main_program, "save_persistables")
        program = self._origin_program if main_program is None else main_program
        _save_persistables(executor, dirname, program, filename=filename)


fleet = Collective()


def _module_fleet():
    return fleet
