"""``paddle.jit.layer``: Paddle's C++ jit Layer loader (eager), refused in one line."""

from ...base.errors import unsupported

Layer = unsupported(
    "paddle.jit.layer.Layer", "it runs a saved model eagerly; load it with paddle.static.load_inference_model"
)
