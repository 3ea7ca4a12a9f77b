"""``paddle.callbacks``: the callbacks of Paddle 2.x's high-level ``paddle.Model``. ``Callback`` is Paddle's
base class (its hooks do nothing; a subclass overrides them); the others drive ``paddle.Model.fit``, which pe
does not build (hapi), and each refuses in one line naming itself when made."""

from ..base.errors import unsupported

__all__ = [
    "Callback",
    "ProgBarLogger",
    "ModelCheckpoint",
    "VisualDL",
    "LRScheduler",
    "EarlyStopping",
    "ReduceLROnPlateau",
    "WandbCallback",
]


class Callback:
    """Paddle 2.6.2's callback base class: ``model`` and ``params`` set by the Model it is given to, and a
    hook per stage of fit / evaluate / predict, each doing nothing until a subclass overrides it."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None):
        """Before training."""

    def on_train_end(self, logs=None):
        """After training."""

    def on_eval_begin(self, logs=None):
        """Before evaluation."""

    def on_eval_end(self, logs=None):
        """After evaluation."""

    def on_predict_begin(self, logs=None):
        """Before prediction."""

    def on_predict_end(self, logs=None):
        """After prediction."""

    def on_epoch_begin(self, epoch, logs=None):
        """Before epoch ``epoch``."""

    def on_epoch_end(self, epoch, logs=None):
        """After epoch ``epoch``."""

    def on_train_batch_begin(self, step, logs=None):
        """Before training step ``step``."""

    def on_train_batch_end(self, step, logs=None):
        """After training step ``step``."""

    def on_eval_batch_begin(self, step, logs=None):
        """Before evaluation step ``step``."""

    def on_eval_batch_end(self, step, logs=None):
        """After evaluation step ``step``."""

    def on_predict_batch_begin(self, step, logs=None):
        """Before prediction step ``step``."""

    def on_predict_batch_end(self, step, logs=None):
        """After prediction step ``step``."""


_WHY = (
    "a callback of paddle.Model.fit, which pe does not build (hapi); pe train's early stopping, "
    "checkpoints and learning-rate schedules are its config's (docs/CONFIG.md)"
)
ProgBarLogger = unsupported("paddle.callbacks.ProgBarLogger", _WHY)
ModelCheckpoint = unsupported("paddle.callbacks.ModelCheckpoint", _WHY)
VisualDL = unsupported("paddle.callbacks.VisualDL", _WHY)
LRScheduler = unsupported("paddle.callbacks.LRScheduler", _WHY)
EarlyStopping = unsupported("paddle.callbacks.EarlyStopping", _WHY)
ReduceLROnPlateau = unsupported("paddle.callbacks.ReduceLROnPlateau", _WHY)
WandbCallback = unsupported("paddle.callbacks.WandbCallback", _WHY)
