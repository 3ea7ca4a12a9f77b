"""CompiledProgram: a Program prepared for running, here for data parallelism
(``CompiledProgram(program).with_data_parallel(...)``). Plain data: what to run and how.
``Executor.run`` runs it (pe_cli/executor/compiled.py), keeping the engine it builds for it in
``_engine``; ``_compile(scope, place)`` (which every run calls first) pins the scope and place
of its first run."""

from ..base.errors import ArgumentValueError, PeError
from ..framework import Program
from ..base.places import Place
from .ir_graph import Graph
from .ir_graph_program import graph_to_program
from .strategy import check_build_strategy, check_exec_strategy


class CompiledProgram:
    def __init__(self, program_or_graph, build_strategy=None):
        if not isinstance(program_or_graph, (Program, Graph)):
            raise TypeError(f"CompiledProgram takes a Program or a core.Graph, got {type(program_or_graph).__name__}")
        # Of a Graph, as in Fluid, no Program: ``_program`` is None and the graph is ``_graph``.
        self._graph = program_or_graph if isinstance(program_or_graph, Graph) else None
        self._program = None if self._graph is not None else program_or_graph
        self._graph_program = None  # of a Graph: the Program it converts to, made at the first run
        self._unpruned = None  # once Executor.run(use_prune=True) pruned ``_program``: what it was made of
        self._build_strategy = check_build_strategy(build_strategy)
        self._exec_strategy = None
        self._loss_name = None
        self._share_vars_from = None
        self._places = None
        self._is_data_parallel = False
        self._engine = None
        self._passed = None  # one device: (program, version, after the passes, report, fetches checked)
        self._compiled = False
        self._scope = None
        self._place = None
        self._infer_config = None  # _with_inference_optimize's config: runs go through its predictor

    @property
    def program(self):
        """What runs: the Program this was made of or, made of a core.Graph, the Program the graph
        converts to (ir_graph_program.py), made when first asked for (at the first run: the graph
        edited afterwards is not seen, as Fluid builds its executor of the graph once)."""
        if self._graph is not None and self._program is None:
            if self._graph_program is None:
                self._graph_program = graph_to_program(self._graph)
            return self._graph_program
        return self._program

    def _with_inference_optimize(self, config):
        """Fluid's: runs of this program go through a predictor of ``config`` (an inference API
        config; the fluid face's), fed a list of PaddleTensors. Returns self."""
        if self._is_data_parallel:
            raise PeError("_with_inference_optimize: this CompiledProgram already runs data-parallel")
        if not hasattr(config, "_files"):
            raise TypeError(
                f"_with_inference_optimize takes a NativeConfig or AnalysisConfig, got {type(config).__name__}"
            )
        self._infer_config = config
        self._predictor = None
        return self

    @property
    def _is_inference(self):
        return self._infer_config is not None

    def _run_inference(self, inputs):
        """The predictor's outputs for ``inputs`` (a list of PaddleTensors); it is made at the first run."""
        if self._predictor is None:
            self._predictor = self._infer_config._create_predictor()
        return self._predictor.run(inputs)

    def with_data_parallel(
        self, loss_name=None, build_strategy=None, exec_strategy=None, share_vars_from=None, places=None
    ):
        """Runs the program on several devices: a dict feed is split along dim 0 over them, fetches are
        concatenated along dim 0. ``places`` defaults to CPU_NUM CPU devices (or the visible GPUs when
        the Executor's place is a CUDAPlace). Returns self."""
        if self._is_data_parallel:
            raise PeError("with_data_parallel was already called on this CompiledProgram")
        if loss_name is not None and not isinstance(loss_name, str):
            raise TypeError(f"loss_name must be a variable name (str), got {loss_name!r}; use loss.name")
        check_build_strategy(build_strategy)
        check_exec_strategy(exec_strategy)
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
        self._loss_name = loss_name or None  # Fluid: an empty name is no loss
        if build_strategy is not None:  # overrides the one given to CompiledProgram(), as in Fluid
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._share_vars_from = share_vars_from
        self._places = places
        return self

    def _compile(self, scope, place):
        """Fluid's ``CompiledProgram._compile``, which ``Executor.run`` calls before every run: the first
        call pins ``scope`` and ``place``, a later one with another scope or place is a ValueError (a
        CompiledProgram keeps the variables and the devices of its first run). A data-parallel program
        that shares variables checks here that the program it shares them with is data parallel and has
        run. The engine itself is built at the first run. Returns self."""
        if self._compiled:
            if scope is not None and scope is not self._scope:
                raise ArgumentValueError(
                    "Cannot compile program with different scope: a CompiledProgram runs "
                    "in the scope of its first run; make a new CompiledProgram for another"
                )
            if place is not None and place != self._place:
                raise ArgumentValueError(
                    f"Cannot compile program with different place: it was compiled for "
                    f"{self._place!r}, not {place!r}; make a new CompiledProgram for another"
                )
            return self
        source = self._share_vars_from
        if source is not None:
            if not source._is_data_parallel:
                raise ArgumentValueError(
                    "share_vars_from: only a data-parallel CompiledProgram (with_data_parallel) "
                    "has variables on the devices to share"
                )
            if source._engine is None:
                raise ArgumentValueError(
                    "share_vars_from: the CompiledProgram this one shares variables with has "
                    "not run yet, so there is no variable to share; run it (the training "
                    "program) first: it copies the parameters to the devices at its first run"
                )
        self._compiled, self._scope, self._place = True, scope, place
        return self

    def with_inference_optimize(self, config):
        raise PeError(
            "with_inference_optimize is not available: run the program (or its clone(for_test=True)) with an Executor"
        )

    @property
    def device_count(self):
        return self._engine.n if self._engine is not None else None

    def __repr__(self):
        mode = f"data parallel on {self.device_count or '?'} devices" if self._is_data_parallel else "single device"
        return f"<CompiledProgram {mode}: {self._program!r}>"
