"""From a checked config to programs: the main (train) program, its startup program, and the test
program cloned before the optimizer is added, exactly as a Fluid script would build them."""
from dataclasses import dataclass

from ..config.model import build_model


@dataclass
class Programs:
    main: object
    startup: object
    test: object
    model: object          # config.model.BuiltModel
    optimizer: object = None

    def fetch_vars(self, names):
        return [self.model.var(n) for n in names]


def build_programs(model_spec, cfg=None, seed=None, with_optimizer=True):
    """Builds ``model_spec`` into fresh programs inside a fresh unique-name namespace (so the same
    config always gives the same variable names, which checkpoints rely on). With a run config
    ``cfg`` and ``with_optimizer``, its optimizer's minimize(loss) is appended to the main program."""
    from ..framework import Program, program_guard, unique_name
    main, startup = Program(), Program()
    if seed is None:
        seed = cfg.data["seed"] if cfg is not None else 1
    main.random_seed = startup.random_seed = seed
    optimizer = None
    with program_guard(main, startup), unique_name.guard():
        model = build_model(model_spec)
        test = main.clone(for_test=True)
        if with_optimizer and model_spec.loss is not None:
            if cfg is not None:
                from ..config.run import make_optimizer
                optimizer = make_optimizer(cfg)
            else:
                from ..optimizer import SGD
                optimizer = SGD(learning_rate=0.01)
            _minimize(optimizer, model, cfg)
    return Programs(main, startup, test, model, optimizer)


def _minimize(optimizer, model, cfg):
    from ..errors import PeError
    try:
        optimizer.minimize(model.loss)
    except PeError as e:
        if cfg is None:
            raise
        raise cfg.doc.error(("optimizer",), f"building the optimizer failed: {e}") from None
