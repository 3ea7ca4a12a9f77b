"""Running configs: build the programs, the optimizer and the data (build.py), place them
(placement.py), train (trainer.py sets up, loop.py steps; run directories, metrics, checkpoints,
resume), evaluate checkpoints, draw programs, smoke-test configs. ``pe`` calls these; so can Python:

    from pe_cli.config import load_config
    from pe_cli.run import train
    result = train(load_config("configs/mnist_lenet.yaml"), max_steps=100)

The names below load their module on first use: ``pe summary`` needs build.py, not the trainer nor
the executor that ``evaluate`` (evaluation.py) runs.
"""


def __getattr__(name):
    if name == "build_model" or name == "build_programs" or name == "load_data" or name == "make_optimizer":
        from . import build as module
    elif name == "evaluate":
        from . import evaluation as module
    elif name == "TrainResult":
        from . import loop as module
    elif name == "run_smoke":
        from . import smoke as module
    elif name == "train":
        from . import trainer as module
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(module, name)
