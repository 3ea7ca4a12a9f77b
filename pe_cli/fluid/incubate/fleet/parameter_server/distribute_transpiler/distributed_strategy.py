"""``...parameter_server.distribute_transpiler.distributed_strategy``: how the parameter-server
fleet runs (Fluid 1.8's strategies). ``StrategyFactory.create_sync_strategy()``: every step the
servers wait for every trainer's gradients and apply their mean (pe's synchronous mode);
``create_async_strategy()`` and ``create_half_async_strategy()``: the servers apply each trainer's
gradients as they arrive (pe's asynchronous mode; Fluid's half-async merges a trainer's threads'
gradients first, and a pe trainer is one thread); ``create_geo_strategy(k)``: geo-SGD, which pe does
not have (an error at minimize). The program, trainer-runtime and server-runtime configs are kept
as Fluid's; pe reads ``slice_var_up``, ``split_method`` and ``min_block_size`` of the program config."""

import os

from ......base.errors import ArgumentTypeError, ArgumentValueError
from ......compiler.strategy import BuildStrategy, ExecutionStrategy
from .....transpiler import DistributeTranspilerConfig, ServerRuntimeConfig

__all__ = [
    "TrainerRuntimeConfig",
    "DistributedStrategy",
    "SyncStrategy",
    "AsyncStrategy",
    "HalfAsyncStrategy",
    "GeoStrategy",
    "StrategyFactory",
]


class TrainerRuntimeConfig:
    """Fluid's communicator flags (FLAGS_communicator_*), kept as given: pe's trainers send each
    gradient block once per step, with no communicator thread to tune."""

    def __init__(self):
        self.runtime_configs = {
            "rpc_deadline": os.getenv("FLAGS_rpc_deadline", "180000"),
            "rpc_retry_times": os.getenv("FLAGS_rpc_retry_times", "3"),
        }

    def get_communicator_flags(self):
        return self.runtime_configs

    def __repr__(self):
        lines = ["TrainerRuntimeConfig Overview".center(45) + "Value"]
        lines += [f"{k:<45s}{v:<5s}" for k, v in self.get_communicator_flags().items()]
        return "\n" + "\n".join(lines) + "\n"


def _set_fields(target, config, kind, what):
    """Fluid's set_*_config: an object of ``kind`` replaces, a dict sets its keys (each must exist)."""
    if isinstance(config, kind):
        return config
    if not isinstance(config, dict):
        raise ArgumentTypeError(f"{what} only accept input type: dict or {kind.__name__}")
    for key, value in config.items():
        if not hasattr(target, key):
            raise ArgumentValueError(f"{kind.__name__} doesn't have key: {key}")
        setattr(target, key, value)
    return target


class DistributedStrategy:
    """The parameter-server fleet's strategy: a program config (DistributeTranspilerConfig), the
    trainers' and servers' runtime configs, and the execution and build strategies."""

    mode = "async"

    def __init__(self):
        self._program_config = DistributeTranspilerConfig()
        self._trainer_runtime_config = TrainerRuntimeConfig()
        self._server_runtime_config = ServerRuntimeConfig()
        self._execute_strategy = ExecutionStrategy()
        self._build_strategy = BuildStrategy()
        self._execute_strategy.num_threads = int(os.getenv("CPU_NUM", "1"))
        self.debug_opt = None

    def set_debug_opt(self, opt_info):
        self.debug_opt = opt_info

    def get_debug_opt(self):
        opt = self.debug_opt if isinstance(self.debug_opt, dict) else {}
        return {
            "dump_slot": bool(opt.get("dump_slot", 0)),
            "dump_converter": str(opt.get("dump_converter", "")),
            "dump_fields": opt.get("dump_fields", []),
            "dump_file_num": opt.get("dump_file_num", 16),
            "dump_fields_path": opt.get("dump_fields_path", ""),
            "dump_param": opt.get("dump_param", []),
        }

    def get_program_config(self):
        return self._program_config

    def set_program_config(self, config):
        self._program_config = _set_fields(self._program_config, config, DistributeTranspilerConfig, "program_config")

    def get_trainer_runtime_config(self):
        return self._trainer_runtime_config

    def set_trainer_runtime_config(self, config):
        if isinstance(config, dict):
            for key in config:
                if key not in self._trainer_runtime_config.runtime_configs:
                    raise ArgumentValueError(f"TrainerRuntimeConfig doesn't have key: {key}")
            self._trainer_runtime_config.runtime_configs.update(config)
        elif isinstance(config, TrainerRuntimeConfig):
            self._trainer_runtime_config = config
        else:
            raise ArgumentTypeError("trainer_runtime_config only accept input type: dict or TrainerRuntimeConfig")

    def get_server_runtime_config(self):
        return self._server_runtime_config

    def set_server_runtime_config(self, config):
        self._server_runtime_config = _set_fields(
            self._server_runtime_config, config, ServerRuntimeConfig, "server_runtime_config"
        )

    def get_execute_strategy(self):
        return self._execute_strategy

    def set_execute_strategy(self, config):
        self._execute_strategy = _set_fields(self._execute_strategy, config, ExecutionStrategy, "execute_strategy")

    def get_build_strategy(self):
        return self._build_strategy

    def set_build_strategy(self, config):
        self._build_strategy = _set_fields(self._build_strategy, config, BuildStrategy, "build_strategy")


def _communicator_flags(strategy, **defaults):
    threads = os.getenv("CPU_NUM", "1")
    for key, default in defaults.items():
        value = threads if default is None else default
        strategy._trainer_runtime_config.runtime_configs[key] = os.getenv(f"FLAGS_{key}", value)


class SyncStrategy(DistributedStrategy):
    mode = "sync"

    def __init__(self):
        super().__init__()
        self._program_config.sync_mode = False
        self._program_config.runtime_split_send_recv = True
        self._program_config.half_async = True
        self._program_config.completely_not_async = True
        _communicator_flags(
            self,
            communicator_max_merge_var_num=None,
            communicator_send_wait_times="5",
            communicator_thread_pool_size="10",
            communicator_send_queue_size=None,
        )


class AsyncStrategy(DistributedStrategy):
    mode = "async"

    def __init__(self):
        super().__init__()
        self._program_config.sync_mode = False
        self._program_config.runtime_split_send_recv = True
        _communicator_flags(
            self,
            communicator_max_merge_var_num=None,
            communicator_independent_recv_thread="0",
            communicator_min_send_grad_num_before_recv=None,
            communicator_thread_pool_size="10",
            communicator_send_wait_times="5",
            communicator_is_sgd_optimizer="1",
            communicator_send_queue_size=None,
        )


class HalfAsyncStrategy(DistributedStrategy):
    mode = "half_async"

    def __init__(self):
        super().__init__()
        self._program_config.sync_mode = False
        self._program_config.runtime_split_send_recv = True
        self._program_config.half_async = True
        _communicator_flags(
            self,
            communicator_max_merge_var_num=None,
            communicator_send_wait_times="5",
            communicator_thread_pool_size="10",
            communicator_send_queue_size=None,
        )


class GeoStrategy(DistributedStrategy):
    mode = "geo"

    def __init__(self, update_frequency=100):
        super().__init__()
        self._program_config.sync_mode = False
        self._program_config.runtime_split_send_recv = True
        self._program_config.geo_sgd_mode = True
        self._program_config.geo_sgd_need_push_nums = update_frequency
        _communicator_flags(self, communicator_thread_pool_size="10", communicator_send_wait_times="5")


class StrategyFactory:
    @staticmethod
    def create_sync_strategy():
        return SyncStrategy()

    @staticmethod
    def create_half_async_strategy():
        return HalfAsyncStrategy()

    @staticmethod
    def create_async_strategy():
        return AsyncStrategy()

    @staticmethod
    def create_geo_strategy(update_frequency=100):
        return GeoStrategy(update_frequency)
