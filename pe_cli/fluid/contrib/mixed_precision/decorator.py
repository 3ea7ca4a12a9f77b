"""Fluid 1.8's ``mixed_precision.decorate``: an optimizer wrapped for float16 training with loss
scaling. pe trains in float32 (its kernels have no float16 compute path on the CPU), where loss
scaling changes nothing: the wrapped optimizer runs the base optimizer's update unchanged, and the
loss-scaling variable exists (``get_loss_scaling``) holding ``init_loss_scaling``, never applied."""

from .... import layers
from .fp16_lists import AutoMixedPrecisionLists

__all__ = ["decorate", "OptimizerWithMixedPrecision"]


class OptimizerWithMixedPrecision:
    """The decorated optimizer: ``minimize``, ``backward``, ``apply_gradients`` as the base one's."""

    def __init__(
        self,
        optimizer,
        amp_lists,
        init_loss_scaling,
        use_dynamic_loss_scaling,
        incr_every_n_steps,
        decr_every_n_nan_or_inf,
        incr_ratio,
        decr_ratio,
    ):
        self._optimizer = optimizer
        self._amp_lists = amp_lists
        self._init_loss_scaling = float(init_loss_scaling)
        self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
        self._incr_every_n_steps, self._decr_every_n_nan_or_inf = incr_every_n_steps, decr_every_n_nan_or_inf
        self._incr_ratio, self._decr_ratio = incr_ratio, decr_ratio
        self._loss_scaling = None
        self._scaled_loss = None

    def get_loss_scaling(self):
        """The loss-scaling variable (a persistable float32 [1] holding init_loss_scaling)."""
        return self._loss_scaling

    def get_scaled_loss(self):
        """The loss backward starts from: in float32 the loss itself (scaling is a no-op)."""
        return self._scaled_loss

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None):
        if self._loss_scaling is None:
            self._loss_scaling = layers.create_global_var(
                name="loss_scaling", shape=[1], value=self._init_loss_scaling, dtype="float32", persistable=True
            )
        self._scaled_loss = loss
        return self._optimizer.backward(loss, startup_program, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        """(update ops, [(param, grad)]), as the base optimizer's minimize."""
        params_grads = self.backward(loss, startup_program, parameter_list, no_grad_set)
        return self.apply_gradients(params_grads), params_grads


def decorate(
    optimizer,
    amp_lists=None,
    init_loss_scaling=2**15,
    incr_every_n_steps=1000,
    decr_every_n_nan_or_inf=2,
    incr_ratio=2.0,
    decr_ratio=0.8,
    use_dynamic_loss_scaling=True,
):
    """``optimizer`` wrapped as Fluid's mixed-precision optimizer (float32 training on pe)."""
    return OptimizerWithMixedPrecision(
        optimizer,
        amp_lists or AutoMixedPrecisionLists(),
        init_loss_scaling,
        use_dynamic_loss_scaling,
        incr_every_n_steps,
        decr_every_n_nan_or_inf,
        incr_ratio,
        decr_ratio,
    )
