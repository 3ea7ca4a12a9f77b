"""CompiledProgram: a Program prepared for running, here for data parallelism
(``CompiledProgram(program).with_data_parallel(...)``), run by ``Executor.run``."""
from ..errors import PeError
from ..framework import Program
from ..places import Place
from .strategy import BuildStrategy, ExecutionStrategy


class CompiledProgram:
    def __init__(self, program_or_graph, build_strategy=None):
        if not isinstance(program_or_graph, Program):
            raise TypeError(f"CompiledProgram takes a Program, got {type(program_or_graph).__name__}")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"build_strategy must be a fluid.BuildStrategy, got {type(build_strategy).__name__}")
        self._program = program_or_graph
        self._build_strategy = build_strategy
        self._exec_strategy = None
        self._loss_name = None
        self._share_vars_from = None
        self._places = None
        self._is_data_parallel = False
        self._engine = None
        self._scope = None

    @property
    def program(self):
        return self._program

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None, share_vars_from=None,
                           places=None):
        """Runs the program on several devices: a dict feed is split along dim 0 over them, fetches are
        concatenated along dim 0. ``places`` defaults to CPU_NUM CPU devices (or the visible GPUs when
        the Executor's place is a CUDAPlace). Returns self."""
        if self._is_data_parallel:
            raise PeError("with_data_parallel was already called on this CompiledProgram")
        if loss_name is not None and not isinstance(loss_name, str):
            raise TypeError(f"loss_name must be a variable name (str), got {loss_name!r}; use loss.name")
        if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"build_strategy must be a fluid.BuildStrategy, got {type(build_strategy).__name__}")
        if exec_strategy is not None and not isinstance(exec_strategy, ExecutionStrategy):
            raise TypeError(f"exec_strategy must be a fluid.ExecutionStrategy, got {type(exec_strategy).__name__}")
        if share_vars_from is not None and not isinstance(share_vars_from, CompiledProgram):
            raise TypeError(f"share_vars_from must be a CompiledProgram, got {type(share_vars_from).__name__}")
        if places is not None:
            places = list(places) if isinstance(places, (list, tuple)) else [places]
            for p in places:
                if not isinstance(p, Place):
                    raise TypeError(f"places must be a list of CPUPlace / CUDAPlace, got {p!r}")
            if not places:
                raise PeError("with_data_parallel: places is empty")
        self._is_data_parallel = True
        self._loss_name = loss_name
        if build_strategy is not None:      # overrides the one given to CompiledProgram(), as in Fluid
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._share_vars_from = share_vars_from
        self._places = places
        return self

    def with_inference_optimize(self, config):
        raise PeError("with_inference_optimize is not available: run the program (or its clone(for_test=True)) "
                      "with an Executor")

    @property
    def device_count(self):
        return self._engine.n if self._engine is not None else None

    def _compile(self, place, scope):
        if self._engine is not None:
            if scope is not self._scope:
                raise ValueError("a CompiledProgram runs in the scope of its first run; "
                                 "this run gives another scope")
            return self._engine
        from ..executor.parallel import DataParallelEngine, device_places
        share = None
        if self._share_vars_from is not None:
            share = self._share_vars_from._engine
            if share is None:
                raise PeError("share_vars_from: the CompiledProgram this one shares parameters with has not "
                              "run yet; run it (the training program) first: it copies the parameters to "
                              "the devices at its first run")
        places = self._places if self._places is not None else device_places(place.kind == "cuda")
        self._scope = scope
        self._engine = DataParallelEngine(self._program, places, self._loss_name, self._build_strategy,
                                          self._exec_strategy, scope, share)
        return self._engine

    def _run_with(self, executor, feed, fetch_list, scope, return_numpy):
        """Called by Executor.run(compiled_program, ...)."""
        if not self._is_data_parallel:
            return executor.run(self._program, feed=feed, fetch_list=fetch_list, scope=scope,
                                return_numpy=return_numpy)
        return self._compile(executor.place, scope).run(feed, fetch_list, return_numpy)

    def __repr__(self):
        mode = f"data parallel on {self.device_count or '?'} devices" if self._is_data_parallel else "single device"
        return f"<CompiledProgram {mode}: {self._program!r}>"
