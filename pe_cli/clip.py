"""Gradient clipping: by value, by norm (per gradient) and by global norm, all as ops."""


def append_gradient_clip_ops(params_grads, clip=None):
    """Applies the optimizer's clip (or each parameter's own ``gradient_clip``)."""
    if clip is None and not any(getattr(p, "gradient_clip_attr", None) for p, _ in params_grads):
        return params_grads
    raise NotImplementedError("gradient clipping is not built yet")
