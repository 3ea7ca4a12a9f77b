"""``paddle.static.amp.decorate``: an optimizer wrapped for automatic mixed precision. On the CPU
Paddle 2.6.2 inserts no casts and trains in float32 (checked: the same losses, step by step, as the
undecorated optimizer, levels O1 and O2), and so does pe everywhere: pe's kernels have no float16
compute, the wrapped optimizer runs the base one's update (Fluid's OptimizerWithMixedPrecision:
pe_cli/fluid/contrib/mixed_precision/decorator.py) and ``amp_init`` changes nothing. bfloat16 is refused."""

from ....base.errors import PeError
from ....fluid.contrib.mixed_precision.decorator import OptimizerWithMixedPrecision as _Fluid
from .fp16_lists import AutoMixedPrecisionLists

__all__ = ["decorate", "OptimizerWithMixedPrecision"]


class OptimizerWithMixedPrecision(_Fluid):
    def amp_init(self, place, scope=None, test_program=None, use_fp16_test=False):
        """Paddle casts the parameters to float16 for level O2 on GPUs; pe keeps float32 (as Paddle on the CPU)."""
        return None


def decorate(
    optimizer,
    amp_lists=None,
    level="O1",
    dtype="float16",
    master_weight=None,
    master_grad=False,
    init_loss_scaling=2**15,
    incr_every_n_steps=1000,
    decr_every_n_nan_or_inf=2,
    incr_ratio=2.0,
    decr_ratio=0.8,
    use_dynamic_loss_scaling=None,
    use_amp_guard=False,
    use_promote=False,
    use_pure_fp16=False,
    use_fp16_guard=None,
    use_bf16=False,
):
    if level not in ("O0", "O1", "O2"):
        raise ValueError("level should be O0, O1 or O2.")
    if dtype == "bfloat16" or use_bf16:
        raise PeError(
            "paddle.static.amp.decorate(dtype='bfloat16'): pe has no bfloat16 dtype; use dtype='float16' "
            "(trained in float32, as Paddle on the CPU)"
        )
    if dtype != "float16":
        raise ValueError(f"dtype should be 'float16' or 'bfloat16', but got {dtype!r}")
    lists = amp_lists or AutoMixedPrecisionLists(dtype=dtype)
    dynamic = True if use_dynamic_loss_scaling is None else use_dynamic_loss_scaling
    return OptimizerWithMixedPrecision(
        optimizer,
        lists,
        init_loss_scaling,
        dynamic,
        incr_every_n_steps,
        decr_every_n_nan_or_inf,
        incr_ratio,
        decr_ratio,
    )
