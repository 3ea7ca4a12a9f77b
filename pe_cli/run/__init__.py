"""Running configs: build the programs, the optimizer and the data (build.py), place them
(placement.py), train (trainer.py sets up, loop.py steps; run directories, metrics, checkpoints,
resume), evaluate checkpoints, draw programs, smoke-test configs. ``pe`` calls these; so can Python:

    from pe_cli.config import load_config
    from pe_cli.run import train
    result = train(load_config("configs/mnist_lenet.yaml"), max_steps=100)
"""

from .build import build_model, build_programs, load_data, make_optimizer  # noqa: F401
from .evaluate import evaluate  # noqa: F401
from .loop import TrainResult  # noqa: F401
from .smoke import run_smoke  # noqa: F401
from .trainer import train  # noqa: F401
