"""Running a CompiledProgram (pe_cli/compiler/compiled_program.py): a data-parallel one through
the DataParallelEngine built at its first run (and kept on it), a plain one as its Program after
its build strategy's program passes (the fusions), on the executor's one device, as Fluid 1.8
compiles a CompiledProgram for one place."""

from ..compiler import passes
from ..compiler.strategy import BuildStrategy
from .feeding import check_feed_dict
from .parallel import DataParallelEngine, device_places


def run_compiled(executor, compiled, feed, fetch_list, scope, return_numpy, return_merged=True):
    """``executor.run(compiled, ...)``: compiled for ``scope`` and the executor's place (a ValueError
    when its first run had others), then run."""
    if compiled._is_inference:
        return compiled._run_inference(feed)
    compiled._compile(scope, executor.place)
    if not compiled._is_data_parallel:
        feed = check_feed_dict(feed)
        program = _passed(compiled, fetch_list)
        return executor._run_program(program, feed, fetch_list, scope, return_numpy, compiled._build_strategy)
    return _engine(compiled, executor.place, scope).run(feed, fetch_list, return_numpy, return_merged)


def _passed(compiled, fetch_list):
    """The program after the strategy's program passes (kept on ``compiled`` until the program
    changes), after checking that they left every fetched name computed."""
    program, strategy = compiled.program, compiled._build_strategy
    if strategy is None:
        return program
    cached = compiled._passed
    if cached is None or cached[0] is not program or cached[1] != program._version:
        fused, report = passes.program_passes(program, strategy)
        cached = compiled._passed = (program, program._version, fused, report, set())
    fused, report, checked = cached[2:]
    if fused is not program:
        for item in fetch_list or ():
            name = item if isinstance(item, str) else item.name
            if name not in checked:
                passes.check_not_fused_away(name, program, fused, report)
                checked.add(name)
    return fused


def _engine(compiled, place, scope):
    if compiled._engine is not None:
        return compiled._engine
    share = compiled._share_vars_from._engine if compiled._share_vars_from is not None else None
    places = compiled._places if compiled._places is not None else device_places(place)
    compiled._engine = DataParallelEngine(
        compiled.program,
        places,
        compiled._loss_name,
        trainers_strategy(compiled),
        compiled._exec_strategy,
        scope,
        share,
    )
    return compiled._engine


def trainers_strategy(compiled):
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
