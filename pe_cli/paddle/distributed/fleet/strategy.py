"""``paddle.distributed.fleet.DistributedStrategy`` (Paddle 2.x): its switches and their configs with
Paddle 2.6's defaults. pe's 2.x fleet honours a strategy that switches nothing on (one worker);
``switched_on()`` names those it would have to apply."""

import copy

__all__ = ["DistributedStrategy"]

# switch -> its config attribute (None: none), each switch off by default as in Paddle 2.6
_SWITCHES = {
    "amp": "amp_configs",
    "recompute": "recompute_configs",
    "sharding": "sharding_configs",
    "pipeline": "pipeline_configs",
    "tensor_parallel": "tensor_parallel_configs",
    "gradient_merge": "gradient_merge_configs",
    "dgc": "dgc_configs",
    "lars": "lars_configs",
    "lamb": "lamb_configs",
    "localsgd": "localsgd_configs",
    "adaptive_localsgd": "adaptive_localsgd_configs",
    "a_sync": "a_sync_configs",
    "fp16_allreduce": None,
    "asp": None,
    "qat": "qat_configs",
    "heter_ccl_mode": None,
    "semi_auto": None,
    "auto": None,
}
# plain settings, kept as given (they tune how Paddle runs what pe runs its own way)
_SETTINGS = {
    "nccl_comm_num": 1,
    "sync_nccl_allreduce": True,
    "fuse_all_reduce_ops": True,
    "fuse_grad_size_in_MB": 32,
    "fuse_grad_size_in_TFLOPS": 50,
    "use_hierarchical_allreduce": False,
    "hierarchical_allreduce_inter_nranks": 1,
    "sync_batch_norm": False,
    "cudnn_exhaustive_search": False,
    "conv_workspace_size_limit": 512,
    "cudnn_batchnorm_spatial_persistent": False,
    "without_graph_optimization": True,
    "find_unused_parameters": False,
    "last_comm_group_size_MB": 1,
    "hybrid_configs": {},
    "execution_strategy": None,
    "build_strategy": None,
}


class DistributedStrategy:
    def __init__(self):
        for name, config in _SWITCHES.items():
            object.__setattr__(self, name, False)
            if config is not None:
                object.__setattr__(self, config, {})
        for name, value in _SETTINGS.items():
            object.__setattr__(self, name, copy.copy(value))

    def switched_on(self):
        """The switches set True (those pe's one-worker fleet cannot apply)."""
        return [name for name in _SWITCHES if getattr(self, name)]

    def __setattr__(self, name, value):
        if name in _SWITCHES and not isinstance(value, bool):
            raise TypeError(f"DistributedStrategy.{name} should be a bool, got {type(value).__name__}")
        object.__setattr__(self, name, value)

    def __repr__(self):
        on = self.switched_on()
        return f"DistributedStrategy({', '.join(on) if on else 'nothing switched on'})"
