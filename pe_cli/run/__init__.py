"""Running configs: build the programs, train (run directories, metrics, checkpoints, resume),
evaluate checkpoints, draw programs, smoke-test configs. ``pe`` calls these; so can Python:

    from pe_cli.config import load_config
    from pe_cli.run import train
    result = train(load_config("configs/mnist_lenet.yaml"), max_steps=100)
"""
from .evaluate import evaluate  # noqa: F401
from .programs import build_programs  # noqa: F401
from .smoke import run_smoke  # noqa: F401
from .trainer import TrainResult, train  # noqa: F401
