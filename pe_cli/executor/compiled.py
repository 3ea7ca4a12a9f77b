"""Running a CompiledProgram (pe_cli/compiler/compiled_program.py): a data-parallel one through
the DataParallelEngine built at its first run (and kept on it), a plain one as its Program."""
from ..compiler.strategy import BuildStrategy
from ..errors import PeError
from .feeding import check_feed_dict
from .parallel import DataParallelEngine, device_places


def run_compiled(executor, compiled, feed, fetch_list, scope, return_numpy):
    """``executor.run(compiled, ...)``."""
    if not compiled._is_data_parallel:
        check_feed_dict(feed)
        return executor._run_program(compiled.program, feed, fetch_list, scope, return_numpy,
                                     compiled._build_strategy)
    return _engine(compiled, executor.place, scope).run(feed, fetch_list, return_numpy)


def _engine(compiled, place, scope):
    if compiled._engine is not None:
        if scope is not compiled._scope:
            raise ValueError("a CompiledProgram runs in the scope of its first run; "
                             "this run gives another scope")
        return compiled._engine
    share = None
    if compiled._share_vars_from is not None:
        share = compiled._share_vars_from._engine
        if share is None:
            raise PeError("share_vars_from: the CompiledProgram this one shares parameters with has not "
                          "run yet; run it (the training program) first: it copies the parameters to "
                          "the devices at its first run")
    places = compiled._places if compiled._places is not None else device_places(place)
    compiled._scope = scope
    compiled._engine = DataParallelEngine(compiled.program, places, compiled._loss_name,
                                          _trainers_strategy(compiled), compiled._exec_strategy, scope, share)
    return compiled._engine


def _trainers_strategy(compiled):
    """The build strategy, with the trainers DistributeTranspiler (collective mode) recorded on the
    program: one per endpoint, this process the ``_trainer_id``-th (as Fluid's CompiledProgram)."""
    strategy = compiled._build_strategy
    endpoints = getattr(compiled.program, "_trainers_endpoints", None)
    if not endpoints:
        return strategy
    strategy = strategy if strategy is not None else BuildStrategy()
    strategy.num_trainers = len(endpoints)
    strategy.trainer_id = compiled.program._trainer_id
    return strategy
