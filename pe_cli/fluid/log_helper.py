"""``paddle.fluid.log_helper``: a logger of its own, without touching logging's basicConfig."""

import logging

__all__ = ["get_logger"]


def get_logger(name, level, fmt=None):
    """The logger ``name`` at ``level`` with a stream handler (formatted by ``fmt`` when given); it
    does not propagate to the root logger, so nothing prints twice."""
    logger = logging.getLogger(name)
    logger.setLevel(level)
    handler = logging.StreamHandler()
    if fmt:
        handler.setFormatter(logging.Formatter(fmt=fmt))
    logger.addHandler(handler)
    logger.propagate = False
    return logger
