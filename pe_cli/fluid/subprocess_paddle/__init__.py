"""The folder ``pe fluid`` puts first on the PYTHONPATH of the processes its program starts: its
``paddle`` package makes a child ``python -c "import paddle.fluid"`` or ``python -m paddle.fluid.X``
import pe as Paddle, as the program itself does (pe_cli/fluid/runner.py)."""
