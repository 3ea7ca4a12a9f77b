"""BuildStrategy and ExecutionStrategy: the options of the multi-device graph and of its executor.

Both are plain option holders with Fluid's names. Every option Fluid 1.x has is accepted; the ones
that change nothing yet are listed in ``NO_EFFECT_YET``, those with nothing to do in pe in
``NOTHING_TO_DO`` with the reason (both in docs/PARALLEL.md) — they never change the numbers, only (in Fluid) speed or memory. Assigning an unknown option raises AttributeError
naming the closest one; once a graph has been built from a strategy it is frozen and any
assignment raises, as in Fluid.
"""

import enum

from .pass_builder import MULTI_DEVICES_GRAPH, PassBuilder
from ..base.errors import PeError, did_you_mean
from ..base import limits


class ReduceStrategy(enum.IntEnum):
    """How gradients are aggregated across devices."""

    AllReduce = 0  # every device gets the summed gradient and updates its own copy of each parameter
    Reduce = 1  # each parameter has one owning device, which updates it and broadcasts it


class GradientScaleStrategy(enum.IntEnum):
    """The initial gradient of the loss on each device (``loss@GRAD``)."""

    CoeffNumDevice = 0  # 1 / number of devices: the summed gradient is the mean over devices
    One = 1  # 1: the summed gradient is the sum over devices
    Customized = 2  # fed by the user as ``<loss_name>@GRAD``


def _coerce_enum(enum_cls, owner, name, value):
    if isinstance(value, enum_cls):
        return value
    if isinstance(value, str):
        for member in enum_cls:
            if member.name.lower() == value.lower():
                return member
    elif isinstance(value, int) and not isinstance(value, bool):
        try:
            return enum_cls(value)
        except ValueError:
            pass
    choices = ", ".join(f"{owner}.{enum_cls.__name__}.{m.name}" for m in enum_cls)
    raise ValueError(f"{owner}.{name} must be one of {choices}; got {value!r}")


def check_bool(owner, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{owner}.{name} must be True or False, got {value!r}")
    return value


def _check_optional_bool(owner, name, value):
    return value if value is None else check_bool(owner, name, value)


def check_int(lo, most=None):
    """An int option >= ``lo``; ``most``: the limit (base/limits.py) it may not pass."""

    def check(owner, name, value):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{owner}.{name} must be an int, got {value!r}")
        if value < lo:
            raise ValueError(f"{owner}.{name} must be >= {lo}, got {value}")
        return value if most is None else limits.check(most, value, f"{owner}.{name}")

    return check


def _check_str(owner, name, value):
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TypeError(f"{owner}.{name} must be a str, got {value!r}")
    return value


def check_list(owner, name, value):
    if value is None:
        return []
    if not isinstance(value, (list, tuple, set)):
        raise TypeError(f"{owner}.{name} must be a list, got {value!r}")
    return list(value)


class _Strategy:
    """Options are declared in ``_OPTIONS``: name -> (default, check(owner, name, value)). Their
    values live in the instance's own attributes, set only through the check, so that reading one
    is a plain attribute read (an executor reads them every run)."""

    _OPTIONS = {}

    def __init__(self, **options):
        object.__setattr__(self, "_frozen", False)
        for name, (default, _) in self._OPTIONS.items():
            object.__setattr__(self, name, _default_value(default))
        for name, value in options.items():
            setattr(self, name, value)

    @property
    def _values(self):
        return {name: self.__dict__[name] for name in self._OPTIONS}

    def __getattr__(self, name):  # only for names that are not options
        raise AttributeError(self._unknown(name))

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        owner = type(self).__name__
        spec = self._OPTIONS.get(name)
        if spec is None:
            raise AttributeError(self._unknown(name))
        if self._frozen:
            raise PeError(
                f"{owner}.{name} cannot be changed: the strategy is frozen once a graph has "
                f"been built from it; make a new {owner}() for a new graph"
            )
        object.__setattr__(self, name, spec[1](owner, name, value))

    def _unknown(self, name):
        owner = type(self).__name__
        hint = did_you_mean(name, self._OPTIONS, f"it has {', '.join(sorted(self._OPTIONS))}")
        return f"{owner} has no option '{name}'; {hint}"

    def _freeze(self):
        object.__setattr__(self, "_frozen", True)

    @property
    def frozen(self):
        return self._frozen

    def to_dict(self):
        return {k: (v.name if isinstance(v, enum.Enum) else v) for k, v in self._values.items()}

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._OPTIONS))

    def __repr__(self):
        defaults = {k: _default_value(d) for k, (d, _) in self._OPTIONS.items()}
        changed = [f"{k}={v!r}" for k, v in self.to_dict().items() if self._values[k] != defaults[k]]
        return f"{type(self).__name__}({', '.join(changed)})"

    def __copy__(self):
        new = type(self)()
        new.__dict__.update(self._values)
        return new

    def __deepcopy__(self, memo):
        return self.__copy__()


def _default_value(default):
    return default() if callable(default) else default


def _enum_check(enum_cls):
    return lambda owner, name, value: _coerce_enum(enum_cls, owner, name, value)


class BuildStrategy(_Strategy):
    """How the multi-device SSA graph is built (``fluid.BuildStrategy``)."""

    ReduceStrategy = ReduceStrategy
    GradientScaleStrategy = GradientScaleStrategy

    _OPTIONS = {
        # -- used by the graph builder ----------------------------------------------------------
        "reduce_strategy": (ReduceStrategy.AllReduce, _enum_check(ReduceStrategy)),
        "gradient_scale_strategy": (GradientScaleStrategy.CoeffNumDevice, _enum_check(GradientScaleStrategy)),
        "debug_graphviz_path": ("", _check_str),
        "enable_sequential_execution": (False, check_bool),
        "sync_batch_norm": (False, check_bool),
        "num_trainers": (1, check_int(1, "processes")),
        "trainer_id": (0, check_int(0)),
        "trainers_endpoints": (list, check_list),
        "memory_optimize": (False, _check_optional_bool),  # pe_cli/compiler/passes
        "enable_inplace": (False, _check_optional_bool),
        "fuse_elewise_add_act_ops": (False, check_bool),
        "fuse_bn_act_ops": (False, check_bool),
        "fuse_gemm_epilogue": (False, check_bool),  # passes/fuse_gemm_epilogue.py (Paddle 2.3's)
        "fuse_attention": (False, check_bool),  # passes/fuse_attention.py (pe's)
        "fuse_embedding_seq_pool": (False, check_bool),  # passes/fuse_embedding_seq_pool.py (pe's own)
        "fuse_all_reduce_ops": (False, check_bool),  # compiler/fused_all_reduce.py
        "fuse_all_optimizer_ops": (False, check_bool),  # passes/fuse_optimizer.py
        "enable_backward_optimizer_op_deps": (False, check_bool),  # passes/backward_optimizer_deps.py
        "fuse_relu_depthwise_conv": (False, check_bool),  # passes/fuse_relu_depthwise_conv.py
        "enable_auto_fusion": (False, check_bool),  # passes/auto_fusion.py
        "allow_cuda_graph_capture": (False, check_bool),  # kernels/cuda/step_graph.py (Paddle 2.x's)
        # -- accepted, nothing to do in pe (NOTHING_TO_DO gives the reasons) -----------------------
        "fuse_broadcast_ops": (False, check_bool),
        "remove_unnecessary_lock": (False, check_bool),
        "cache_runtime_context": (False, check_bool),
        "use_hierarchical_allreduce": (False, check_bool),
        "hierarchical_allreduce_inter_nranks": (0, check_int(0)),
        "nccl_comm_num": (1, check_int(1)),
        "mkldnn_enabled_op_types": (list, check_list),
    }

    NO_EFFECT_YET = ()
    _pass_builder = None

    def _finalize_strategy_and_create_passes(self):
        """Fluid's: freezes the strategy and returns the PassBuilder of its passes (pass_builder.py)."""
        self._freeze()
        if self._pass_builder is None:
            self._pass_builder = PassBuilder(self)
        return self._pass_builder

    def _graph_viz_paths(self):
        """Where the data-parallel graph is written as DOT: debug_graphviz_path's
        ``<prefix>_multi_devices_graph``, or the builder's graph_viz_passes."""
        if self._pass_builder is not None:
            return self._pass_builder.graph_viz_paths()
        return [self.debug_graphviz_path + MULTI_DEVICES_GRAPH] if self.debug_graphviz_path else []

    NOTHING_TO_DO = {
        "remove_unnecessary_lock": "pe's kernels take no locks to remove: each device's values are its own, "
        "and the graph's edges order every read and write",
        "fuse_broadcast_ops": "a broadcast between CPU devices of one process hands each device the owner's "
        "array; one fused broadcast would only add a copy into one buffer",
        "cache_runtime_context": "pe resolves each op's kernel and attributes once per program version "
        "(executor/plan.py) and reuses them every run",
        "use_hierarchical_allreduce": "an NCCL option: pe sums between processes over MPI, in one Allgather per bucket",
        "hierarchical_allreduce_inter_nranks": "an NCCL option (see use_hierarchical_allreduce)",
        "nccl_comm_num": "an NCCL option: pe opens no NCCL communicators",
        "mkldnn_enabled_op_types": "pe's CPU kernels are numpy and numba loops; it has no MKL-DNN kernels to enable",
    }


class ExecutionStrategy(_Strategy):
    """How the graph is executed (``fluid.ExecutionStrategy``)."""

    _OPTIONS = {
        "num_threads": (0, check_int(0, "threads")),  # 0: devices * 4
        "num_iteration_per_drop_scope": (100, check_int(1)),
        "num_iteration_per_run": (1, check_int(1)),
        # -- accepted, nothing to do in pe (NOTHING_TO_DO gives the reasons) -----------------------
        "allow_op_delay": (False, check_bool),
        "use_experimental_executor": (False, check_bool),
        "use_thread_barrier": (False, check_bool),
        "use_cuda": (False, check_bool),
    }

    NO_EFFECT_YET = ()
    NOTHING_TO_DO = {
        "use_experimental_executor": "pe has one parallel executor (executor/parallel.py)",
        "use_thread_barrier": "each run of pe's executor already ends when every node of every device has run",
        "use_cuda": "the executor takes the device kind from the place it is given",
        "allow_op_delay": "pe's scheduler already picks among ready nodes by their measured longest path "
        "to the end of the step, so a collective waits whenever more urgent work is ready",
    }

    # Fluid's private ``_dry_run``: the graph is built and scheduled but no op runs, so a run needs
    # no feed and fetches nothing (Fluid's tests of the graph builder set it).
    _dry_run = False


def check_build_strategy(value):
    """``value`` if it is a BuildStrategy or None; a TypeError naming what was given otherwise.
    The one check every entry point (ParallelExecutor, CompiledProgram, the SSA graph) makes."""
    if value is not None and not isinstance(value, BuildStrategy):
        raise TypeError(f"build_strategy must be a fluid.BuildStrategy, got {type(value).__name__}")
    return value


def check_exec_strategy(value):
    """``value`` if it is an ExecutionStrategy or None; a TypeError otherwise."""
    if value is not None and not isinstance(value, ExecutionStrategy):
        raise TypeError(f"exec_strategy must be a fluid.ExecutionStrategy, got {type(value).__name__}")
    return value
