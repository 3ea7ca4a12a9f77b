"""``paddle.static.amp.amp_nn``: the loss-scaling ops' layers, which pe lacks (it trains in float32)."""

from ....base.errors import unsupported

__all__ = ["check_finite_and_unscale", "update_loss_scaling"]

check_finite_and_unscale = unsupported(
    "paddle.static.amp.amp_nn.check_finite_and_unscale", "pe has no check_finite_and_unscale op yet"
)
update_loss_scaling = unsupported(
    "paddle.static.amp.amp_nn.update_loss_scaling", "pe has no update_loss_scaling op yet"
)
