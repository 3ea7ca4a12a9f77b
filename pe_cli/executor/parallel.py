"""Data parallelism: one program on several devices, run by a thread pool over its SSA graph.

``DataParallelEngine`` does the work for both faces of the API: ``ParallelExecutor`` (defined
here) and ``CompiledProgram.with_data_parallel`` (run by pe_cli/executor/compiled.py). It only
schedules: the graph's nodes say how they run (pe_cli/compiler/ssa_nodes.py), the devices' runtime
(pe_cli/kernels/<kind>/runtime.py) moves values and sums gradients, feed_split.py splits feeds and
merges fetches, and device_scopes.py keeps each device's values between runs. Ops never run
outside ``plan.run_step``.
"""

import warnings

from .. import kernels
from ..base import profiler
from ..distributed import processes
from ..compiler.graphviz import write_dot
from ..compiler import passes
from ..compiler.ssa_graph import build_ssa_graph
from ..compiler.strategy import BuildStrategy, ExecutionStrategy, check_build_strategy, check_exec_strategy
from ..base.errors import PeError, did_you_mean
from ..framework import OpRole, Program, default_main_program
from ..base.places import CPUPlace, CUDAPlace, Place
from .device_scopes import DeviceScopes
from .donation import in_place_names, watch_names
from .feed_split import merge_fetch, split_feed, split_sizes  # noqa: F401 -- split_sizes: public
from .feeding import feed_lr_scheduler, reader_feeds
from . import nan_check, planned_parallel, step_plan
from .parallel_scheduler import Schedule, ThreadPool
from .plan import OpStep, run_step
from .scope import global_scope


def device_places(place):
    """The devices of data parallelism on ``place``'s kind: the visible GPUs (CUDA_VISIBLE_DEVICES)
    or CPU_NUM CPU devices."""
    return kernels.runtime(place).default_places()


def _normalize_places(places):
    places = list(places)
    if not places:
        raise PeError("places is empty: give at least one device")
    for p in places:
        if not isinstance(p, Place):
            raise TypeError(f"places must be CPUPlace() or CUDAPlace(i) objects, got {p!r}")
    kinds = {p.kind for p in places}
    if len(kinds) > 1:
        raise PeError(f"places mixes device kinds ({places}); data parallelism runs on one kind")
    return kernels.runtime(places[0]).places_for(places)


class _NodeContext:
    """What the graph's nodes use to run (see pe_cli/compiler/ssa_nodes.py)."""

    def __init__(self, engine):
        self.step = engine._step
        self.collectives = engine.runtime.collectives
        self.processes = engine.processes
        self.to_device = engine.scopes.to_device

    @staticmethod
    def run_step(step, values):
        run_step(step, values, profiler.active())


class DataParallelEngine:
    """Builds the SSA graph of ``program`` on ``places`` once and runs it."""

    def __init__(
        self, program, places, loss_name=None, build_strategy=None, exec_strategy=None, scope=None, share_vars_from=None
    ):
        if not isinstance(program, Program):
            raise TypeError(f"the program must be a Program, got {type(program).__name__}")
        build_strategy = check_build_strategy(build_strategy) or BuildStrategy()
        exec_strategy = check_exec_strategy(exec_strategy) or ExecutionStrategy()
        self.program = program
        self.block = program.global_block()
        self.places = _normalize_places(places)
        self.n = len(self.places)
        self.loss_name = loss_name
        # no gradient, no update: an inference program, which may be fed fewer samples than devices
        self._inference = not any(op.role & ~OpRole.Loss in (OpRole.Backward, OpRole.Optimize) for op in self.block.ops)
        self.build_strategy = build_strategy
        self.exec_strategy = exec_strategy
        self.runtime = kernels.runtime(self.places[0])
        self.runtime.require(self.places[0])
        # several trainer processes (MPI): checked before the graph, so a wrong launch fails first
        self.processes = (
            processes.group(build_strategy.num_trainers, build_strategy.trainer_id)
            if build_strategy.num_trainers > 1
            else None
        )
        memory = [self.runtime.memory(p) for p in self.places]
        self.graph = build_ssa_graph(program, self.places, build_strategy, loss_name, self.runtime.SHARED_MEMORY)
        build_strategy._freeze()
        exec_strategy._freeze()
        for path in build_strategy._graph_viz_paths():
            write_dot(self.graph, path)
        self._warn_without_loss_name()
        self.scopes = DeviceScopes(
            self.graph,
            self.block,
            memory,
            global_scope() if scope is None else scope,
            self._shared_scopes(share_vars_from),
        )
        self.share_vars_from = share_vars_from
        # fed names every device gets whole: under Customized scaling, each device's loss gradient;
        # a fed persistable variable too when it has one row (a learning rate of shape [1] is not a
        # batch), else it is split like a batch (Fluid's rule)
        self._whole = {self.graph.fed_loss_grad} if self.graph.fed_loss_grad else set()
        self._steps = {}  # (op id, device) -> OpStep, shared by the schedules
        # what updates and in-place ops may write (donation.py), of the program and of the graph's
        self._in_place = in_place_names(
            [*self.block.ops, *self.graph.program.global_block().ops], bool(build_strategy.enable_inplace)
        )
        self._schedules = {}  # fetch names -> Schedule
        self._node_context = _NodeContext(self)
        self.num_threads = exec_strategy.num_threads or self.n * 4
        self._pool = ThreadPool(self.num_threads, name="pe-parallel", initializer=self.runtime.worker_started)
        self._runs_since_drop = 0
        self._broadcast_done = False
        # PE_PLANNED_STEP=1: CPU steps planned once per feed signature (planned_parallel.py)
        self._planned = step_plan.enabled() and self.runtime.PLANNED_STEPS and self.processes is None

    def _warn_without_loss_name(self):
        if (
            self.loss_name is None
            and self.n > 1
            and any(op.role & ~OpRole.Loss == OpRole.Backward for op in self.block.ops)
        ):
            warnings.warn(
                "this program has a backward pass but no loss_name was given: gradients are not "
                "aggregated over the devices, so each trains its own copy; pass loss_name=loss.name",
                stacklevel=4,
            )

    def _shared_scopes(self, share_vars_from):
        if share_vars_from is None:
            return None
        if not isinstance(share_vars_from, DataParallelEngine):
            raise TypeError("share_vars_from must be a ParallelExecutor / CompiledProgram")
        if share_vars_from.n != self.n:
            raise PeError(
                f"share_vars_from runs on {share_vars_from.n} devices but this one on {self.n}: "
                f"both must use the same devices"
            )
        return share_vars_from.scopes

    @property
    def scope(self):
        return self.scopes.scope

    @property
    def param_scopes(self):
        """Each device's scope of its own parameter copies (device 0's is the global scope)."""
        return self.scopes.param_scopes

    @property
    def exec_scopes(self):
        """Each device's local execution scope, holding its temporaries and feeds of the last runs."""
        return self.scopes.exec_scopes

    def drop_local_exe_scopes(self):
        self.scopes.drop_local()
        self._runs_since_drop = 0

    # -- schedules --------------------------------------------------------------------------------------
    def _schedule(self, fetch_names):
        key = tuple(fetch_names)
        sched = self._schedules.get(key)
        if sched is None:
            graph = self.graph.with_fetches(fetch_names) if fetch_names else self.graph
            graph, _ = passes.apply(graph, fetch_names, self.build_strategy)
            sched = Schedule(graph.ops, [node.runner(self._node_context) for node in graph.ops])
            sched.scope_reads = [graph.scope_reads(d) for d in range(self.n)]
            sched.num_ops = sum(1 for node in graph.ops if node.is_op)
            if len(self._schedules) > 64:
                self._schedules.clear()
            self._schedules[key] = sched
        return sched

    def _step(self, op, device, inplace=False, blocked=frozenset()):
        key = (id(op), device, inplace, blocked)
        step = self._steps.get(key)
        if step is None:
            step = self._steps[key] = OpStep(
                op, self.places[device], seed_offset=device, inplace=inplace, blocked=blocked
            )
            watch_names([step], self._in_place)
        return step

    # -- running ---------------------------------------------------------------------------------------
    def _fetch_names(self, fetch_list):
        if fetch_list is None:
            return []
        if isinstance(fetch_list, (str, bytes)) or not isinstance(fetch_list, (list, tuple)):
            fetch_list = [fetch_list]
        names = []
        for item in fetch_list:
            name = item if isinstance(item, str) else getattr(item, "name", None)
            if not isinstance(name, str):
                raise TypeError(f"fetch_list items must be variables or names, got {item!r}")
            if name not in self.block.vars and not any(self.graph.latest(d, name) for d in range(self.n)):
                hint = did_you_mean(name, [v for v in self.block.vars if "@GRAD" not in v])
                raise PeError(
                    f"cannot fetch '{name}': it is not a variable of the program{'; ' + hint if hint else ''}"
                )
            if self.graph.program is not self.program and self.graph.latest(0, name) is None:
                passes.check_not_fused_away(name, self.program, self.graph.program, self.graph.program_passes)
            names.append(name)
        return names

    def run(self, feed=None, fetch_list=None, return_numpy=True, return_merged=True):
        """One step on every device; each fetch is the devices' values concatenated along dim 0, or
        (``return_merged=False``) the list of them, one per device that ran."""
        if self.processes is None:
            return self._run(feed, fetch_list, return_numpy, return_merged)
        try:
            return self._run(feed, fetch_list, return_numpy, return_merged)
        except Exception as e:  # the other trainers would wait for this one in a collective
            self.processes.abort(e)
            raise

    def _broadcast_persistables(self):
        """At the first run of several trainers: every persistable value of the scope (parameters,
        optimizer state) as trainer 0 holds it, so all trainers start from the same point."""
        scope = self.scopes.scope
        names = sorted(n for n in self.scopes.persistable if scope.held_array(n) is not None)
        for name, array in zip(
            names,
            self.processes.broadcast(
                [scope.held_array(n) for n in names], label="parameters from trainer 0", names=names
            ),
        ):
            scope.set_array(name, array)
        self._broadcast_done = True

    def _run(self, feed, fetch_list, return_numpy, return_merged=True):
        if self._pool.closed:
            raise PeError("this parallel executor was closed")
        fetch_names = self._fetch_names(fetch_list)
        unique = list(dict.fromkeys(fetch_names))
        if self.exec_strategy._dry_run:
            self._schedule(unique)  # built and scheduled; no op runs, nothing is fetched
            return []
        state = self.runtime.prepare_run(self.n)
        try:
            return self._execute(feed, fetch_names, unique, return_numpy, return_merged)
        finally:
            self.runtime.end_run(state)

    def _execute(self, feed, fetch_names, unique, return_numpy, return_merged):
        """_run's work, between the runtime's prepare_run and end_run."""
        profile = profiler.active()
        start, loop = profiler.clock(), 0.0
        per_device = split_feed(self.block, feed, self.n, self._whole, self.scopes.persistable, partial=self._inference)
        ran = per_device.ran or self.n  # fewer after a partial feed (an inference program)
        batches = reader_feeds(self.program, self.n, feed)  # py_readers: a batch of their own per device
        if batches is not None:
            read_feeds = split_feed(self.block, batches, self.n, partial=self._inference)
            ran = min(ran, read_feeds.ran or self.n)
            for (values, lods), (read, read_lods) in zip(per_device, read_feeds):
                values.update(read)
                lods.update(read_lods)
        sched = self._schedule(unique)
        if self.processes is not None and not self._broadcast_done and self.scopes.share_from is None:
            self._broadcast_persistables()
        self.scopes.prepare_params()
        lods = [lod for _, lod in per_device]
        results = None
        for _ in range(self.exec_strategy.num_iteration_per_run):
            values = self.scopes.gather(sched.scope_reads, per_device)
            if self.runtime.SHARED_MEMORY and not nan_check.ENABLED:  # (a failed check changes no scope)
                self.scopes.donate(values, sched.scope_reads, per_device, self.graph.shared_updates, self._in_place)
            results = [None] * len(unique)
            loop_start = profiler.clock()
            planned = self._planned and planned_parallel.run(self, sched, values, results, per_device[0][0])
            if not planned:
                self._pool.run(
                    sched, values, results, token=self.runtime.SHARED_THREADS, limit=self.runtime.run_threads(self.n)
                )
                if self._planned:  # the next steps of these feeds run planned
                    with self.runtime.planning():  # (its loops split for the machine, not the load now)
                        planned_parallel.after(self, sched, values)
            loop += profiler.clock() - loop_start
            lods = [v.lods for v in values]  # the feeds' LoD and what the ops computed
            self.scopes.save(values, lods)
        for memory in self.scopes.memory:
            memory.finish()
        self._runs_since_drop += 1
        if self._runs_since_drop >= self.exec_strategy.num_iteration_per_drop_scope:
            self.drop_local_exe_scopes()
        by_name = dict(zip(unique, results))
        merged = [self._merge(name, by_name[name], lods, return_numpy, return_merged, ran) for name in fetch_names]
        if profile is not None:  # kernels are summed over the devices' threads
            profile.record_run(profiler.clock() - start, loop, sched.num_ops * self.exec_strategy.num_iteration_per_run)
        return merged

    @staticmethod
    def _merge(name, arrays, lods, return_numpy, return_merged=True, ran=None):
        if arrays is None or any(a is None for a in arrays):
            raise PeError(f"cannot fetch '{name}': no value was computed or stored for it")
        arrays, lods = arrays[:ran], lods[:ran]  # a partial feed: the devices that ran
        if not return_merged:
            return [merge_fetch([a], [lod.get(name)], return_numpy) for a, lod in zip(arrays, lods)]
        return merge_fetch(arrays, [lod.get(name) for lod in lods], return_numpy)

    def close(self):
        self._pool.close()
        planned_parallel.close(self)


class ParallelExecutor:
    """Runs a program data-parallel on several devices (``fluid.ParallelExecutor``).

    A dict feed is split along dim 0 over the devices (the remainder going to the last ones); a
    list feed gives one dict per device. Fetched values are concatenated along dim 0 over the
    devices. See docs/PARALLEL.md."""

    def __init__(
        self,
        use_cuda,
        loss_name=None,
        main_program=None,
        share_vars_from=None,
        exec_strategy=None,
        build_strategy=None,
        num_trainers=1,
        trainer_id=0,
        scope=None,
    ):
        if not isinstance(use_cuda, bool):
            raise TypeError(f"ParallelExecutor: use_cuda must be True or False, got {use_cuda!r}")
        if share_vars_from is not None and not isinstance(share_vars_from, ParallelExecutor):
            raise TypeError(
                f"ParallelExecutor: share_vars_from must be a ParallelExecutor, got {type(share_vars_from).__name__}"
            )
        program = default_main_program() if main_program is None else main_program
        if not isinstance(program, Program):
            raise TypeError(f"ParallelExecutor: main_program must be a Program, got {type(program).__name__}")
        build_strategy = build_strategy if build_strategy is not None else BuildStrategy()
        if isinstance(build_strategy, BuildStrategy):
            for option, value in (("num_trainers", num_trainers), ("trainer_id", trainer_id)):
                if getattr(build_strategy, option) != value:
                    setattr(build_strategy, option, value)
        place = CUDAPlace(0) if use_cuda else CPUPlace()
        self._engine = DataParallelEngine(
            program,
            device_places(place),
            loss_name,
            build_strategy,
            exec_strategy,
            scope,
            share_vars_from._engine if share_vars_from is not None else None,
        )

    @property
    def device_count(self):
        return self._engine.n

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True):
        """Runs one iteration on every device; returns the fetched values, concatenated along dim 0."""
        if feed is None and feed_dict is not None:
            warnings.warn("ParallelExecutor.run: feed_dict is deprecated, use feed=", DeprecationWarning, stacklevel=2)
            feed = feed_dict
        feed_lr_scheduler(self._engine.program, self._engine.scope)  # a paddle.optimizer.lr schedule's value
        return self._engine.run(feed, fetch_list, return_numpy)

    def drop_local_exe_scopes(self):
        """Drops every device's temporaries now (otherwise every num_iteration_per_drop_scope runs)."""
        self._engine.drop_local_exe_scopes()

    def _need_create_local_exe_scopes(self):
        """Fluid's private check: True when no run has been made since the devices' local execution
        scopes were last dropped (or ever), so the next run starts them anew."""
        return self._engine._runs_since_drop == 0

    def close(self):
        self._engine.close()

    @property
    def _places(self):
        return list(self._engine.places)
