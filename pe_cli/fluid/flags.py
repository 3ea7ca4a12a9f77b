"""``fluid.set_flags`` / ``fluid.get_flags`` (Fluid 1.8): the global ``FLAGS_*`` a script may set.
Those that mean something in pe act as Fluid's do: ``FLAGS_check_nan_inf`` turns the NaN/Inf check on
(pe_cli/executor/nan_check.py), ``FLAGS_fuse_parameter_groups_size`` and
``FLAGS_fuse_parameter_memory_size`` bound the fused all-reduce's buckets. The memory and
determinism flags steer parts of Fluid pe has no counterpart of, so they are kept (``get_flags``
returns what was set) and change nothing: pe frees each value when its last reader has run (no
garbage-collection threshold), holds no GPU memory pool, and its kernels and collectives are
deterministic already (Paddle 2.6's ``FLAGS_enable_pir_in_executor`` likewise: pe has one program
representation; ``FLAGS_call_stack_level``: pe's errors have no C++ stack). Any other flag is refused, as Fluid refuses one it does not export."""

from ..compiler import fused_all_reduce
from ..executor import nan_check

_NO_EFFECT = {
    "FLAGS_eager_delete_tensor_gb": 0.0,
    "FLAGS_fast_eager_deletion_mode": True,
    "FLAGS_memory_fraction_of_eager_deletion": 1.0,
    "FLAGS_fraction_of_gpu_memory_to_use": 0.92,
    "FLAGS_initial_gpu_memory_in_mb": 0,
    "FLAGS_reallocate_gpu_memory_in_mb": 0,
    "FLAGS_allocator_strategy": "auto_growth",
    "FLAGS_cudnn_deterministic": False,
    "FLAGS_cpu_deterministic": False,
    "FLAGS_benchmark": False,
    "FLAGS_use_mkldnn": False,
    "FLAGS_enable_parallel_graph": False,
    "FLAGS_sync_nccl_allreduce": True,
    "FLAGS_conv_workspace_size_limit": 512,
    "FLAGS_cudnn_exhaustive_search": False,
    "FLAGS_gpu_memory_limit_mb": 0,
    "FLAGS_use_system_allocator": False,
    "FLAGS_enable_pir_in_executor": False,  # Paddle 2.6's: pe has one program representation
    "FLAGS_call_stack_level": 1,
}  # Paddle 2.x's: pe's errors are one line, no C++ stack
_kept = dict(_NO_EFFECT)

_ACTIVE = {
    "FLAGS_check_nan_inf": (lambda: nan_check.ENABLED, lambda v: nan_check.enable(bool(v))),
    "FLAGS_fuse_parameter_groups_size": (
        lambda: fused_all_reduce.LIMITS["group_size"],
        fused_all_reduce.set_group_size,
    ),
    "FLAGS_fuse_parameter_memory_size": (
        lambda: fused_all_reduce.LIMITS["memory_bytes"] / (1 << 20),
        fused_all_reduce.set_memory_size,
    ),
}


def _check(name):
    if name not in _ACTIVE and name not in _kept:
        raise ValueError(
            f"Flag {name} cannot set its value through this function: pe knows {sorted(set(_ACTIVE) | set(_kept))}"
        )


def set_flags(flags):
    """Sets ``{name: value}`` of the flags above; all are checked before any is set."""
    if not isinstance(flags, dict):
        raise TypeError(f"set_flags: flags must be a dict, got {type(flags).__name__}")
    for name in flags:
        _check(name)
    for name, value in flags.items():
        if name in _ACTIVE:
            _ACTIVE[name][1](value)
        else:
            _kept[name] = value


def get_flags(flags):
    """``{name: value}`` of one flag name or a list of them."""
    names = [flags] if isinstance(flags, str) else list(flags)
    for name in names:
        _check(name)
    return {n: _ACTIVE[n][0]() if n in _ACTIVE else _kept[n] for n in names}


class FlagsView:
    """``fluid.core.globals()``: the same flags as a mapping (``globals()['FLAGS_x'] = v``)."""

    def __getitem__(self, name):
        return get_flags(name)[name]

    def __setitem__(self, name, value):
        set_flags({name: value})

    def __contains__(self, name):
        return name in _ACTIVE or name in _kept

    def keys(self):
        return sorted(set(_ACTIVE) | set(_kept))


def set_eager_deletion_mode(threshold, fraction, fast_mode):
    """``core._set_eager_deletion_mode``: Fluid's three garbage-collection flags at once (kept; pe
    frees each value after its last reader whatever they say)."""
    set_flags(
        {
            "FLAGS_eager_delete_tensor_gb": threshold,
            "FLAGS_memory_fraction_of_eager_deletion": fraction,
            "FLAGS_fast_eager_deletion_mode": fast_mode,
        }
    )


def known_flags():
    """The names of every flag above (``core.globals()`` lists them)."""
    return sorted(set(_ACTIVE) | set(_kept))
