"""``paddle.pir_utils`` (Paddle 2.6): Paddle 2.6 has two program representations, the old one and
PIR, and its tests run a static test under each (``test_with_pir_api``). pe has one representation:
``IrGuard`` gives the block fresh default main and startup programs (as PIR's are its own) and
``test_with_pir_api`` runs the test twice, the second time under an ``IrGuard``, as Paddle does;
``paddle.framework.in_pir_mode()`` stays False, so a test takes its old-IR branches both times."""

import functools

from ..framework.program import Program, switch_main_program, switch_startup_program

__all__ = ["IrGuard", "test_with_pir_api"]


class IrGuard:
    """A block with fresh default programs; the previous ones come back on exit."""

    def __enter__(self):
        self._main = switch_main_program(Program())
        self._startup = switch_startup_program(Program())
        return self

    def __exit__(self, *exc):
        switch_main_program(self._main)
        switch_startup_program(self._startup)
        return False


def test_with_pir_api(func):
    """Runs ``func`` once, then again inside an IrGuard."""

    @functools.wraps(func)
    def impl(*args, **kwargs):
        func(*args, **kwargs)
        with IrGuard():
            func(*args, **kwargs)

    return impl
