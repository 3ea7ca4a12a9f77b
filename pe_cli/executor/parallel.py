"""Data parallelism: one program on several devices, run by a thread pool over its SSA graph.

``DataParallelEngine`` does the work for both faces of the API: ``ParallelExecutor`` (defined
here) and ``CompiledProgram.with_data_parallel`` (pe_cli/compiler/compiled_program.py).

Scopes. Device 0 works in the given (global) scope; device d > 0 in a child scope of it holding its
own copy of every persistable variable it writes (parameters, optimizer state), filled from the
global scope at the first run (Fluid's BCastParamsToDevices), and again whenever something else
(an Executor, a checkpoint loader) has replaced the global value since. After a run the global
scope holds device 0's values, so an Executor or a checkpoint sees the trained parameters. A
persistable variable written by one device only (Reduce: the optimizer state of the parameters it
owns) lives in the global scope. Each device also has a local execution scope (a child of its
scope) keeping that device's temporaries and feeds between runs; it is dropped every
``num_iteration_per_drop_scope`` runs and by ``drop_local_exe_scopes()``.

Ops never run outside ``plan.run_step``; the gradient collectives (all-reduce, reduce, broadcast)
move and sum arrays between devices, summing in device order so results are deterministic.
"""
import warnings

import numpy as np

from .. import profiler
from ..kernels.cpu import threads
from ..compiler.graphviz import write_dot
from ..compiler.ssa_graph import (ALL_REDUCE, BROADCAST, COMPUTE, FETCH, REDUCE, SCALE_LOSS_GRAD,
                                  build_ssa_graph)
from ..compiler.strategy import BuildStrategy, ExecutionStrategy
from ..errors import FeedError, OpError, PeError
from ..framework import OpRole, Program, default_main_program
from ..framework.lod_tensor import LoDTensor
from ..places import CPUPlace, Place, cpu_places, cuda_places
from .executor import missing_value_error
from .feeding import as_feed_array
from .parallel_scheduler import Schedule, ThreadPool
from .plan import OpStep, run_step
from .scope import global_scope


def require_cuda(place=None):
    """A one-line PeError when CUDA cannot run here."""
    try:
        from ..kernels.cuda import runtime
    except ImportError:
        raise PeError("CUDA is not available in this build: use use_cuda=False / fluid.CPUPlace()") from None
    runtime.require(place)


def device_places(use_cuda):
    """The devices of data parallelism: GPUs from CUDA_VISIBLE_DEVICES, CPU devices from CPU_NUM."""
    if use_cuda:
        require_cuda()
        places = cuda_places()
        if not places:
            raise PeError("use_cuda=True but no GPU is visible (CUDA_VISIBLE_DEVICES); use use_cuda=False")
        return places
    return cpu_places()


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
    if kinds == {"cpu"}:
        return [CPUPlace(i) for i in range(len(places))]   # CPU devices are numbered by position
    return places


def split_sizes(total, n):
    """Rows per device when ``total`` rows are split over ``n`` devices: as even as possible, the
    remainder going to the last devices (3 on 2 devices: [1, 2])."""
    base, rem = divmod(total, n)
    return [base + (1 if i >= n - rem else 0) for i in range(n)]


def _slice_lod(lod, start, end):
    """Top-level sequences [start, end) of a LoD: (new offsets per level, first row, end row)."""
    new = []
    lo, hi = start, end
    for level in lod:
        offs = list(level[lo:hi + 1])
        new.append([o - offs[0] for o in offs])
        lo, hi = offs[0], offs[-1]
    return new, lo, hi


def _merge_lods(lods, arrays):
    if all(not lod for lod in lods):
        return None
    if any(not lod for lod in lods):
        return None
    merged = [[0] for _ in lods[0]]
    for lod in lods:
        for level, offs in enumerate(lod):
            base = merged[level][-1]
            merged[level].extend(base + o for o in offs[1:])
    return merged


class DataParallelEngine:
    """Builds the SSA graph of ``program`` on ``places`` once and runs it."""

    def __init__(self, program, places, loss_name=None, build_strategy=None, exec_strategy=None,
                 scope=None, share_vars_from=None):
        if not isinstance(program, Program):
            raise TypeError(f"the program must be a Program, got {type(program).__name__}")
        build_strategy = BuildStrategy() if build_strategy is None else build_strategy
        exec_strategy = ExecutionStrategy() if exec_strategy is None else exec_strategy
        if not isinstance(build_strategy, BuildStrategy):
            raise TypeError(f"build_strategy must be a fluid.BuildStrategy, got {type(build_strategy).__name__}")
        if not isinstance(exec_strategy, ExecutionStrategy):
            raise TypeError(f"exec_strategy must be a fluid.ExecutionStrategy, got {type(exec_strategy).__name__}")
        self.program = program
        self.block = program.global_block()
        self.places = _normalize_places(places)
        self.n = len(self.places)
        self.loss_name = loss_name
        self.build_strategy = build_strategy
        self.exec_strategy = exec_strategy
        # CUDA: per device, feeds and parameter copies go to its GPU and fetches come back
        # (kernels/cuda/runtime.PlaceMemory); collectives move arrays between GPUs.
        self._memory = None
        if self.places[0].kind == "cuda":
            require_cuda(self.places[0])
            from ..kernels.cuda import runtime
            self._memory = [runtime.memory(p) for p in self.places]

        if self.places[0].kind == "cpu":
            from .host_memory import keep_freed_memory
            keep_freed_memory()             # step buffers stay mapped between runs (host_memory.py)
        self.graph = build_ssa_graph(program, self.places, build_strategy, loss_name)
        build_strategy._freeze()
        exec_strategy._freeze()
        if build_strategy.debug_graphviz_path:
            write_dot(self.graph, build_strategy.debug_graphviz_path)
        if loss_name is None and self.n > 1 and any(
                op.role & ~OpRole.Loss == OpRole.Backward for op in self.block.ops):
            warnings.warn("this program has a backward pass but no loss_name was given: gradients are not "
                          "aggregated over the devices, so each trains its own copy; pass loss_name=loss.name",
                          stacklevel=3)

        self._persistable = {n for n, v in self.block.vars.items() if v.persistable}
        self._plan_persistables()
        self._steps = {}            # (op id, device) -> OpStep, shared by the schedules
        self._schedules = {}        # fetch names -> Schedule
        if share_vars_from is not None:
            if not isinstance(share_vars_from, DataParallelEngine):
                raise TypeError("share_vars_from must be a ParallelExecutor / CompiledProgram")
            if share_vars_from.n != self.n:
                raise PeError(f"share_vars_from runs on {share_vars_from.n} devices but this one on {self.n}: "
                              f"both must use the same devices")
            self.scope = share_vars_from.scope
            self.param_scopes = share_vars_from.param_scopes
        else:
            self.scope = global_scope() if scope is None else scope
            self.param_scopes = [self.scope] + [self.scope.new_scope() for _ in range(1, self.n)]
        self.share_vars_from = share_vars_from
        self._exec_scopes = [s.new_scope() for s in self.param_scopes]
        self._pending = [None] * self.n    # per device: (values, lods) of the last run, not yet in its scope
        self.num_threads = exec_strategy.num_threads or self.n * 4
        self._pool = ThreadPool(self.num_threads, name="pe-parallel")
        self._params_ready = False     # copies broadcast to the devices (first run)
        self._seen = {}                # name -> the global array the device copies were made from
        self._runs_since_drop = 0

    # -- persistable state ---------------------------------------------------------------------------
    def _plan_persistables(self):
        """Which persistable variables each device writes, and where each write is kept."""
        writers = {}
        for d in range(self.n):
            for name in self.graph.writes(d):
                if name in self._persistable:
                    writers.setdefault(name, []).append(d)
        self._home = {name: min(ds) for name, ds in writers.items()}   # writes to the global scope
        self._persist = [[n for n in self.graph.writes(d) if n in self._persistable] for d in range(self.n)]
        # device d > 0 keeps its own copy of what it writes, unless it is the only writer
        self._copies = {d: [n for n in self._persist[d] if self._home[n] != d] for d in range(1, self.n)}

    def _prepare_params(self):
        if self.share_vars_from is not None:
            owner = self.share_vars_from
            if not owner._params_ready:
                raise PeError("share_vars_from: the executor this one shares parameters with has not run yet; "
                              "run it (the training program) first: it copies the parameters to the devices "
                              "at its first run")
            owner._sync_params()
            self._params_ready = True
            return
        if not self._params_ready:
            for d, names in self._copies.items():
                for name in names:
                    array = self.scope.get_array(name)
                    if array is not None:
                        self.param_scopes[d].set_array(name, self._to_device(d, array))
                        self._seen[name] = array
            self._params_ready = True
        else:
            self._sync_params()

    def _sync_params(self):
        """Re-copies persistable values replaced in the global scope by anyone else since."""
        if self.share_vars_from is not None:
            self.share_vars_from._sync_params()
            return
        changed = [(name, array) for name, array in
                   ((name, self.scope.get_array(name)) for name in self._seen) if array is not self._seen[name]]
        for name, array in changed:
            self._seen[name] = array
            if array is None:
                continue
            for d, names in self._copies.items():
                if name in names:
                    self.param_scopes[d].set_array(name, self._to_device(d, array))

    def _save(self, values, lods):
        """After a run: persistable values go back to the scopes; each device's temporaries and feeds
        are kept for its local execution scope, stored there only when someone looks (``exec_scopes``)
        or a later run's names differ: a run reads nothing from them but the names it reads before
        writing (``_gather``), so storing ~100 arrays per device every step was wasted work."""
        scope = self.scope
        for d in range(self.n):
            vals = values[d]
            own = self.param_scopes[d]
            home = self._home
            for name in self._persist[d]:
                (scope if home[name] == d else own).set_array(name, vals[name])
            pending, lod = self._pending[d], lods[d]
            if pending is not None and (pending[0].keys() != vals.keys() or pending[1].keys() != lod.keys()):
                self._store_local(d)     # not overwritten name for name by this run: store it first
            self._pending[d] = (vals, lod)
        for name in self._seen:
            self._seen[name] = scope.get_array(name)

    def _store_local(self, d):
        """Stores device ``d``'s pending temporaries and feeds in its local execution scope."""
        pending = self._pending[d]
        if pending is None:
            return
        self._pending[d] = None
        vals, lod = pending
        exec_scope, persistable = self._exec_scopes[d], self._persistable
        for name, array in vals.items():
            if name not in persistable:
                exec_scope.set_array(name, array, lod.get(name))

    @property
    def exec_scopes(self):
        """Each device's local execution scope, holding its temporaries and feeds of the last runs."""
        for d in range(self.n):
            self._store_local(d)
        return self._exec_scopes

    def drop_local_exe_scopes(self):
        for d, old in enumerate(self._exec_scopes):
            parent = self.param_scopes[d]
            if old in parent.kids:
                parent.kids.remove(old)
            self._exec_scopes[d] = parent.new_scope()
            self._pending[d] = None
        self._runs_since_drop = 0

    # -- schedules --------------------------------------------------------------------------------------
    def _schedule(self, fetch_names):
        key = tuple(fetch_names)
        sched = self._schedules.get(key)
        if sched is None:
            graph = self.graph.with_fetches(fetch_names) if fetch_names else self.graph
            runners = [self._runner(node) for node in graph.ops]
            sched = Schedule(graph.ops, runners)
            sched.scope_reads = [graph.scope_reads(d) for d in range(self.n)]
            sched.num_ops = sum(1 for node in graph.ops if node.kind in (COMPUTE, SCALE_LOSS_GRAD))
            if len(self._schedules) > 64:
                self._schedules.clear()
            self._schedules[key] = sched
        return sched

    def _step(self, op, device):
        key = (id(op), device)
        step = self._steps.get(key)
        if step is None:
            step = self._steps[key] = OpStep(op, self.places[device], seed_offset=device)
        return step

    def _runner(self, node):
        kind = node.kind
        if kind in (COMPUTE, SCALE_LOSS_GRAD):
            step, d = self._step(node.op, node.device), node.device

            def run_compute(values, results):
                run_step(step, values[d], profiler.active())
            return run_compute
        name = node.attrs.get("var")
        devices = node.devices
        if kind in (ALL_REDUCE, REDUCE):
            targets = devices if kind == ALL_REDUCE else [node.attrs["root"]]
            if self._memory is not None:
                return self._gpu_sum(node, name, devices, targets)

            def run_sum(values, results):
                try:
                    arrays = [values[d][name] for d in devices]
                    total = arrays[0] if len(arrays) == 1 else np.add(arrays[0], arrays[1])
                    for a in arrays[2:]:
                        np.add(total, a, out=total)      # device order: the same sum every run
                except Exception as e:
                    raise OpError(f"{node.describe()} failed: {type(e).__name__}: {e}", None, "all devices") from e
                for d in targets:
                    values[d][name] = total
            return run_sum
        if kind == BROADCAST:
            root = node.attrs["root"]
            others = [d for d in devices if d != root]
            if self._memory is not None:
                return self._gpu_broadcast(node, name, root, others)

            def run_broadcast(values, results):
                try:
                    array = values[root][name]
                except KeyError:
                    raise OpError(f"{node.describe()}: '{name}' has no value on device {root}", None, root) from None
                for d in others:
                    values[d][name] = array     # kernels never modify inputs: sharing is safe on the CPU
            return run_broadcast
        if kind == FETCH:
            index = node.attrs["index"]

            def run_fetch(values, results):
                results[index] = [values[d].get(name) for d in devices]
            return run_fetch
        raise PeError(f"internal error: no runner for graph node kind '{kind}'")

    # -- CUDA devices: values are device arrays ----------------------------------------------------------
    def _to_device(self, d, array):
        return array if self._memory is None else self._memory[d].to_device(array)

    @staticmethod
    def _gpu_sum(node, name, devices, targets):
        from ..kernels.cuda import collectives

        def run_sum(values, results):
            try:
                totals = collectives.all_reduce([values[d][name] for d in devices], devices, targets)
            except Exception as e:
                raise OpError(f"{node.describe()} failed: {type(e).__name__}: {e}", None, "all devices") from e
            for d, total in zip(targets, totals):
                values[d][name] = total
        return run_sum

    @staticmethod
    def _gpu_broadcast(node, name, root, others):
        from ..kernels.cuda import collectives

        def run_broadcast(values, results):
            try:
                array = values[root][name]
            except KeyError:
                raise OpError(f"{node.describe()}: '{name}' has no value on device {root}", None, root) from None
            for d, copy in zip(others, collectives.broadcast(array, root, others)):
                values[d][name] = copy
        return run_broadcast

    # -- feeding --------------------------------------------------------------------------------------------
    def _split_feed(self, feed):
        """Per device: ({name: array}, {name: lod})."""
        n = self.n
        per_device = [({}, {}) for _ in range(n)]
        if feed is None:
            return per_device
        if isinstance(feed, dict):
            for key, value in feed.items():
                name = key if isinstance(key, str) else getattr(key, "name", key)
                array, lod = as_feed_array(self.block, name, value)
                if name == self.graph.fed_loss_grad:     # each device's loss gradient, not a batch
                    for vals, _ in per_device:
                        vals[name] = array
                    continue
                self._split_one(name, array, lod, per_device)
            return per_device
        if isinstance(feed, (list, tuple)):
            if len(feed) != n:
                raise ValueError(f"feed is a list of {len(feed)} dict(s) but the program runs on {n} devices: "
                                 f"give one dict per device (exe.device_count), or a dict to split")
            for d, item in enumerate(feed):
                if not isinstance(item, dict):
                    raise TypeError(f"feed[{d}] must be a dict of name -> value for device {d}, "
                                    f"got {type(item).__name__}")
                vals, lods = per_device[d]
                for key, value in item.items():
                    name = key if isinstance(key, str) else getattr(key, "name", key)
                    vals[name], lod = as_feed_array(self.block, name, value)
                    if lod:
                        lods[name] = lod
            return per_device
        raise ValueError(f"feed must be a dict (split over the devices) or a list of one dict per device, "
                         f"got {type(feed).__name__}")

    def _split_one(self, name, array, lod, per_device):
        n = self.n
        if array.ndim == 0:
            raise FeedError(f"feed '{name}' is a scalar: a dict feed is split over the {n} devices along "
                            f"its first dimension; give it a batch dimension or feed a list of dicts")
        total = len(lod[0]) - 1 if lod else array.shape[0]
        unit = "sequence" if lod else "sample"
        if total < n:
            raise FeedError(f"feed '{name}' has {total} {unit}(s) but the program runs on {n} devices, and each "
                            f"device needs at least one: feed at least {n} {unit}s per batch, or drop the last "
                            f"incomplete batch (drop_last=True)")
        start = 0
        for d, size in enumerate(split_sizes(total, n)):
            vals, lods = per_device[d]
            if lod:
                part, lo, hi = _slice_lod(lod, start, start + size)
                vals[name] = array[lo:hi]
                lods[name] = part
            else:
                vals[name] = array[start:start + size]
            start += size

    def _gather(self, sched, per_device):
        values = []
        block = self.block
        persistable = self._persistable
        for d in range(self.n):
            vals = {n: self._to_device(d, a) for n, a in per_device[d][0].items()}
            scope = self._exec_scopes[d]
            pending = self._pending[d]
            last = pending[0] if pending is not None else {}     # the local scope's newest values
            for name in sched.scope_reads[d]:
                if name in vals:
                    continue
                var = block.vars.get(name)
                if var is not None and var.is_data:
                    raise missing_value_error(block, name)
                if name == self.graph.fed_loss_grad:
                    shape = list(var.shape or [1]) if var is not None else [1]
                    raise FeedError(f"gradient_scale_strategy is Customized: feed '{name}', the initial gradient "
                                    f"of the loss on each device (shape {shape})")
                array = last.get(name) if name not in persistable else None
                if array is None:
                    array = scope.get_array(name)
                if array is None:
                    raise missing_value_error(block, name)
                vals[name] = self._to_device(d, array)
            values.append(vals)
        return values

    # -- running ---------------------------------------------------------------------------------------------
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
                import difflib
                close = difflib.get_close_matches(name, [v for v in self.block.vars if "@GRAD" not in v], n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                raise PeError(f"cannot fetch '{name}': it is not a variable of the program{hint}")
            names.append(name)
        return names

    def run(self, feed=None, fetch_list=None, return_numpy=True):
        if self._pool.closed:
            raise PeError("this parallel executor was closed")
        fetch_names = self._fetch_names(fetch_list)
        unique = list(dict.fromkeys(fetch_names))
        if self.places[0].kind == "cpu":
            threads.use_devices(self.n)        # BLAS threads per device (pe_cli/kernels/cpu/threads.py)
        profile = profiler.active()
        start, loop = profiler.clock(), 0.0
        per_device = self._split_feed(feed)
        sched = self._schedule(unique)
        self._prepare_params()
        lods = [lod for _, lod in per_device]
        results = None
        for _ in range(self.exec_strategy.num_iteration_per_run):
            values = self._gather(sched, per_device)
            results = [None] * len(unique)
            loop_start = profiler.clock()
            self._pool.run(sched, values, results, token=self._memory is None)
            loop += profiler.clock() - loop_start
            self._save(values, lods)
        for memory in self._memory or ():
            memory.finish()
        self._runs_since_drop += 1
        if self._runs_since_drop >= self.exec_strategy.num_iteration_per_drop_scope:
            self.drop_local_exe_scopes()
        by_name = dict(zip(unique, results))
        merged = [self._merge(name, by_name[name], lods, return_numpy) for name in fetch_names]
        if profile is not None:     # kernels are summed over the devices' threads
            profile.record_run(profiler.clock() - start, loop, sched.num_ops * self.exec_strategy.num_iteration_per_run)
        return merged

    def _merge(self, name, arrays, lods, return_numpy):
        if arrays is None or any(a is None for a in arrays):
            raise PeError(f"cannot fetch '{name}': no value was computed or stored for it")
        arrays = [np.asarray(a.copy_to_host() if hasattr(a, "copy_to_host") else a) for a in arrays]
        parts = [a.reshape(1) if a.ndim == 0 else a for a in arrays]
        merged = np.concatenate(parts, axis=0) if len(parts) > 1 else np.array(parts[0], copy=True)
        if return_numpy:
            return merged
        return LoDTensor(merged, _merge_lods([lod.get(name) for lod in lods], parts))

    def close(self):
        self._pool.close()


class ParallelExecutor:
    """Runs a program data-parallel on several devices (``fluid.ParallelExecutor``).

    A dict feed is split along dim 0 over the devices (the remainder going to the last ones); a
    list feed gives one dict per device. Fetched values are concatenated along dim 0 over the
    devices. See docs/PARALLEL.md."""

    def __init__(self, use_cuda, loss_name=None, main_program=None, share_vars_from=None, exec_strategy=None,
                 build_strategy=None, num_trainers=1, trainer_id=0, scope=None):
        if not isinstance(use_cuda, bool):
            raise TypeError(f"ParallelExecutor: use_cuda must be True or False, got {use_cuda!r}")
        if share_vars_from is not None and not isinstance(share_vars_from, ParallelExecutor):
            raise TypeError(f"ParallelExecutor: share_vars_from must be a ParallelExecutor, "
                            f"got {type(share_vars_from).__name__}")
        program = default_main_program() if main_program is None else main_program
        if not isinstance(program, Program):
            raise TypeError(f"ParallelExecutor: main_program must be a Program, got {type(program).__name__}")
        build_strategy = BuildStrategy() if build_strategy is None else build_strategy
        if isinstance(build_strategy, BuildStrategy):
            for option, value in (("num_trainers", num_trainers), ("trainer_id", trainer_id)):
                if getattr(build_strategy, option) != value:
                    setattr(build_strategy, option, value)
        self._engine = DataParallelEngine(
            program, device_places(use_cuda), loss_name, build_strategy, exec_strategy, scope,
            share_vars_from._engine if share_vars_from is not None else None)

    @property
    def device_count(self):
        return self._engine.n

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True):
        """Runs one iteration on every device; returns the fetched values, concatenated along dim 0."""
        if feed is None and feed_dict is not None:
            warnings.warn("ParallelExecutor.run: feed_dict is deprecated, use feed=", DeprecationWarning,
                          stacklevel=2)
            feed = feed_dict
        return self._engine.run(feed, fetch_list, return_numpy)

    def drop_local_exe_scopes(self):
        """Drops every device's temporaries now (otherwise every num_iteration_per_drop_scope runs)."""
        self._engine.drop_local_exe_scopes()

    def close(self):
        self._engine.close()

    @property
    def _places(self):
        return list(self._engine.places)
