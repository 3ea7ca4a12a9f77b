"""Where a run executes: the place of ``place:``, the build and execution strategies of
``build_strategy:`` / ``exec_strategy:``, and the program to run for training (the main program,
or a CompiledProgram over ``devices`` places). ``pe train``, ``pe eval`` and ``pe graph --ssa``
all ask here."""

import os

from ..compiler import CompiledProgram
from ..compiler.passes import PROGRAM_ORDER
from ..compiler.strategy import BuildStrategy, ExecutionStrategy
from ..config.keys import ASYNC_ONLY
from ..base.errors import PeError
from ..kernels.cuda import runtime
from ..kernels import is_compiled_with_cuda
from ..base.places import CPUPlace, CUDAPlace

_STRATEGIES = (("build_strategy", BuildStrategy), ("exec_strategy", ExecutionStrategy))


def make_place(cfg):
    if cfg.data["place"] == "cuda":
        if not is_compiled_with_cuda():
            raise cfg.doc.error(
                ("place",),
                f"no CUDA GPU is usable here{_cuda_reason()}",
                "use place: cpu, or install pe with the [cuda] extra on a machine with a GPU",
            )
        return CUDAPlace(0)
    return CPUPlace()


def _cuda_reason():
    try:
        reason = runtime.unavailable_reason()
    except Exception:  # noqa: BLE001 -- the reason is a courtesy
        return ""
    return f" ({reason})" if reason else ""


def strategies(cfg):
    """(BuildStrategy, ExecutionStrategy) with the config's non-default options set; a value the
    class refuses is reported at its key."""
    out = []
    for key, cls in _STRATEGIES:
        strategy = cls()
        defaults = cls().to_dict()
        for name, value in cfg.data[key].items():
            if name in ASYNC_ONLY and key == "exec_strategy":
                continue  # pe train's async mode (run/async_epoch.py), not a strategy option
            if name == "debug_graphviz_path" and value:
                _check_inside_run_dir(cfg, (key, name), value)
            if value != defaults.get(name):
                try:
                    setattr(strategy, name, value)
                except (PeError, TypeError, ValueError, AttributeError) as e:
                    raise cfg.doc.error((key, name), str(e)) from None
        out.append(strategy)
    return out


def _check_inside_run_dir(cfg, where, path):
    """Outputs a config names are written inside the run directory: a relative path that stays there."""
    parts = os.path.normpath(path).split(os.sep)
    if os.path.isabs(path) or ".." in parts:
        raise cfg.doc.error(
            where,
            f"{path[:80]} leaves the run directory; a config writes only inside it",
            "give a relative path such as ssa.dot (it lands in the run directory)",
        )


def in_run_dir(program, run_dir):
    """Points a CompiledProgram's debug_graphviz_path (checked by strategies()) into ``run_dir``."""
    strategy = getattr(program, "_build_strategy", None)
    if strategy is not None and strategy.debug_graphviz_path and not strategy.frozen:
        strategy.debug_graphviz_path = os.path.join(run_dir, strategy.debug_graphviz_path)


def _changed(cfg, key, cls):
    """The options of ``key`` (build_strategy or exec_strategy) the config sets away from their
    defaults (not pe train's async keys, which are no strategy option)."""
    defaults = cls().to_dict()
    return {
        k for k, v in cfg.data[key].items() if v != defaults.get(k) and not (key == "exec_strategy" and k in ASYNC_ONLY)
    }


# what a CompiledProgram without data parallelism honours (executor/compiled.py): the program passes,
# memory_optimize and allow_cuda_graph_capture; the sequential executor runs it on one device, without
# the parallel executor's scheduling (the MLP's step: 1.04 ms that way, 1.27 through with_data_parallel)
ONE_DEVICE_OPTIONS = frozenset(PROGRAM_ORDER) | {"memory_optimize", "allow_cuda_graph_capture"}


def train_program(cfg, programs, place, trainer_id=0):
    """The program to run for training: the main program; on one device with only the strategy
    options a single-device CompiledProgram honours (the fusions, memory_optimize), a CompiledProgram
    of it; else a CompiledProgram with data parallelism over ``devices`` places (several devices, or
    a strategy such as several trainer processes); ``trainer_id``: this process's MPI rank."""
    devices = cfg.data["devices"]
    build_options = _changed(cfg, "build_strategy", BuildStrategy)
    exec_options = _changed(cfg, "exec_strategy", ExecutionStrategy)
    if devices == 1 and ((not build_options and not exec_options) or cfg.data["distributed"]["mode"] == "pserver"):
        return programs.main  # pserver mode: the transpiled program's sends and receives run in order
    if devices == 1 and not exec_options and build_options <= ONE_DEVICE_OPTIONS:
        return CompiledProgram(programs.main, build_strategy=strategies(cfg)[0])
    places = [CUDAPlace(i) if place.kind == "cuda" else CPUPlace(i) for i in range(devices)]
    build_strategy, exec_strategy = strategies(cfg)
    build_strategy.trainer_id = trainer_id
    try:
        return CompiledProgram(programs.main).with_data_parallel(
            loss_name=programs.model.loss.name,
            build_strategy=build_strategy,
            exec_strategy=exec_strategy,
            places=places,
        )
    except (PeError, TypeError, ValueError) as e:
        raise cfg.doc.error(("devices",), f"cannot run on {devices} devices: {e}") from None
