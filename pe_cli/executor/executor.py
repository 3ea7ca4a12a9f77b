"""The sequential Executor: runs every op of a program in order on one place.

It never knows what an op computes: ops are resolved to kernels once per program version
(``plan.OpStep``) and called through ``plan.run_step``, exactly as the parallel executor does.
"""

import numpy as np

from .. import kernels
from ..base import profiler
from ..compiler import CompiledProgram, passes
from ..base.errors import PeError, did_you_mean
from ..framework import OpRole as OpRole, Program, Variable, default_main_program
from ..framework.lod_tensor import LoDTensor, LoDTensorArray
from ..base.selected_rows import SelectedRows
from ..base.dtypes import VarType
from ..base.tensor_array import TensorArray
from ..distributed import pserver_link
from ..ops.registry import GRAD_SUFFIX
from ..base.places import CPUPlace, Place, place_named
from .compiled import run_compiled
from .feed_fetch_ops import holds_feed_fetch_ops, without_feed_fetch_ops
from .feeding import RAW_VALUE, as_feed_array, check_feed_dict, feed_lr_scheduler, known_feeds
from .feeding import missing_value_error, reader_feeds
from .fetched import fetched
from . import graphed, nan_check, step_plan
from .donation import in_place_names, watch_names
from .plan import OpStep, Values, prior_reads, run_steps, scope_traffic
from .pruning import cache_key, prune_program, split_fetch_list
from .pserver import serve
from .scope import global_scope


class _Plan:
    """A program's ops resolved for one place, plus which variables cross the scope boundary."""

    def __init__(self, program, place):
        block = program.global_block()
        self.block, self.version = block, program._version
        self.steps = [OpStep(op, place) for op in block.ops]
        self.scope_reads, self.persistable_writes = scope_traffic(block)
        self.prior_reads = prior_reads(block)
        self.written_back = frozenset(self.persistable_writes)
        self.in_place = in_place_names(block.ops)  # what updates and in-place ops may write (donation.py)
        self.donatable = self.in_place & self.written_back  # what a run may be donated of them
        watch_names(self.steps, self.in_place)
        self.program, self.place = program, place
        self._frees, self._blocked = {}, {}  # (memory_optimize's drops; blocked-layout steps) by fetch list
        self.graphs = {}  # a CUDA place's step recordings by signature (graphed.py)
        self.planned = {}  # id(steps) -> (steps, planned CPU steps by feed signature): step_plan.py

    def frees(self, fetch_list, build_strategy=None):
        """``frees[i]``: the names to drop after step i (memory_optimize), or None when it is off."""
        options = passes.memory_options(self.program, build_strategy)
        if options is None:
            return None
        key = (tuple(f if isinstance(f, str) else f.name for f in fetch_list or ()), tuple(sorted(options["skip"])))
        frees = self._frees.get(key)
        if frees is None:
            frees = self._frees[key] = passes.program_frees(self.block, key[0], options["skip"])
        return frees

    def steps_for(self, fetch_list, build_strategy=None):
        """The steps of a run fetching ``fetch_list``: with a single-device CompiledProgram's
        ``fuse_bn_act_ops``, those the onednn_blocked_layout pass marks run on blocked values."""
        blocked = build_strategy is not None and build_strategy.fuse_bn_act_ops
        if not blocked or not passes.blocked_layout.applies([self.place]):
            return self.steps
        key = tuple(f if isinstance(f, str) else f.name for f in fetch_list or ())
        steps = self._blocked.get(key)
        if steps is None:
            marks = passes.blocked_layout.marks(self.block, key)
            steps = self._blocked[key] = [
                OpStep(step.op, self.place, blocked=marks[i]) if i in marks else step
                for i, step in enumerate(self.steps)
            ]
            watch_names(steps, self.in_place)
        return steps


class Executor:
    def __init__(self, place=None):
        self.place = place if place is not None else CPUPlace()
        if isinstance(place, str):  # Paddle 2.x's 'cpu', 'gpu', 'gpu:1'
            self.place = place_named(place)
        if not isinstance(self.place, Place):
            raise TypeError(f"Executor: place must be CPUPlace() or CUDAPlace(i), got {place!r}")
        # The device's runtime: on the CPU values are numpy arrays, nothing moves; on a GPU feeds
        # go to the device, fetches come back, and what the run writes to the scope stays there.
        self._runtime = kernels.runtime(self.place)
        self._memory = self._runtime.memory(self.place)
        self._graphs = getattr(self._runtime, "step_graph", None)  # whole-step recordings (CUDA)
        self._planned_steps = step_plan.enabled() and self._runtime.PLANNED_STEPS
        self._plans = {}
        self._prunes = {}  # use_prune: (program, feeds, fetches) -> (program, its pruned copy)
        self._concurrent = 1  # executors running at once in this process (AsyncExecutor's threads)

    def close(self):
        """Drops the cached plans; a parameter-server trainer tells its servers it has finished."""
        self._plans.clear()
        pserver_link.close_trainer_links()

    def run(
        self,
        program=None,
        feed=None,
        fetch_list=None,
        feed_var_name="feed",
        fetch_var_name="fetch",
        scope=None,
        return_numpy=True,
        use_program_cache=False,
        return_merged=True,
        use_prune=False,
    ):
        """Runs ``program`` (a Program or CompiledProgram). ``use_prune``: only the ops the fetches
        (and, in a training program, the optimizer's updates) need, taking the feeds as given.
        ``return_merged=False`` (a data-parallel CompiledProgram): each fetch is the list of the
        devices' values instead of their concatenation."""
        program = default_main_program() if program is None else program
        scope = global_scope() if scope is None else scope
        source = program.program if isinstance(program, CompiledProgram) else program
        feed_lr_scheduler(source, scope)
        feed = known_feeds(source, feed, isinstance(program, CompiledProgram))
        fetch_list, optimize_ops = self._split_optimize_ops_in_fetch_list(fetch_list)
        if use_prune or optimize_ops:  # optimize ops in the fetch list turn pruning on, as in Fluid
            program = self._pruned(program, feed or {}, fetch_list, optimize_ops)
        if isinstance(program, CompiledProgram):
            return run_compiled(self, program, feed, fetch_list, scope, return_numpy, return_merged)
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run: program must be a Program or CompiledProgram, got {type(program).__name__}")
        feed = check_feed_dict(feed)
        if holds_feed_fetch_ops(program):  # Fluid's feed/fetch ops: they name the feeds and fetches
            program = without_feed_fetch_ops(program, feed, fetch_list, feed_var_name, fetch_var_name)
        if getattr(program, "_listen_and_serv", None) is not None:
            return serve(self, program, scope)  # a parameter server's program (executor/pserver.py)
        return self._run_program(program, feed, fetch_list, scope, return_numpy)

    @staticmethod
    def _split_optimize_ops_in_fetch_list(fetch_list):
        """(fetches, optimize ops) of a fetch list (pruning.py)."""
        if isinstance(fetch_list, (str, Variable)):
            fetch_list = [fetch_list]
        return split_fetch_list(fetch_list)

    def _pruned(self, program, feed, fetch_list, optimize_ops):
        """``program`` pruned for these feeds, fetches and optimize ops, by ``_prune_program`` once
        per program version, feeds and fetches (a CompiledProgram is pruned before its first run and
        keeps that program)."""
        key = cache_key(program, feed, fetch_list, optimize_ops)
        cached = self._prunes.get(key)
        if cached is None:
            cached = self._prunes[key] = (program, self._prune_program(program, feed, fetch_list, optimize_ops))
        return cached[1]

    def _prune_program(self, program, feed=None, fetch_list=None, optimize_ops=None):
        """Fluid's: the program that runs only what ``fetch_list`` and ``optimize_ops`` (default: all)
        need, the feeds taken as given."""
        return prune_program(program, feed, fetch_list or [], optimize_ops or [])

    def _run_program(self, program, feed, fetch_list, scope, return_numpy, build_strategy=None):
        """run() of a Program; ``build_strategy``: a single-device CompiledProgram's (memory_optimize)."""
        plan = self._plan(program)
        batches = reader_feeds(program, 1, feed)  # fluid.layers.py_reader's next batch
        if batches is not None:
            feed = dict(feed or {}, **batches[0])
        state = self._runtime.prepare_run(self._concurrent)  # one device: the whole machine's threads
        try:
            frees = plan.frees(fetch_list, build_strategy)
            steps = plan.steps_for(fetch_list, build_strategy)
            profile = profiler.active()
            if profile is not None:
                return self._run_profiled(plan, steps, frees, feed, fetch_list, scope, return_numpy, profile)
            graphs = self._graphs
            if (
                graphs is not None
                and self._concurrent == 1
                and graphs.enabled(getattr(build_strategy, "allow_cuda_graph_capture", False))
            ):  # CUDA
                values, lods = graphed.run(self, graphs, plan, steps, frees, feed or {}, fetch_list, scope)
            else:
                values, lods = self._step(plan, steps, frees, feed or {}, scope)
            return fetch_values(plan.block, fetch_list, values, lods, scope, return_numpy)
        finally:
            self._runtime.end_run(state)

    def _step(self, plan, steps, frees, feed, scope):
        """One run of ``steps``, planned (PE_PLANNED_STEP as the executor was made: an environment read each
        step cost the MLP's 7 us, out of the cache after its segment) or op by op: (values, LoDs). As Fluid's,
        the run's persistables exist in the scope from its start, even if it fails (made here where it
        failed, by ``_store`` where not)."""
        planned = self._planned_steps
        try:
            values, lods = self._gather_inputs(plan, feed, scope)
            if not (planned and self._planned(plan, steps, feed, values)):
                run_steps(steps, frees, values)
                if planned:  # (planned for the machine, not the load now)
                    with self._runtime.planning():
                        step_plan.plan_after(plan.planned.setdefault(id(steps), (steps, {}))[1], steps, values)
        except BaseException:
            for name in plan.persistable_writes:
                scope.var(name)
            raise
        self._store(plan, values, scope, feed)
        return values, lods

    def _planned(self, plan, steps, feed, values):
        """A planned step (step_plan.py, PE_PLANNED_STEP=1) where one is kept for these feeds."""
        kept = plan.planned.setdefault(id(steps), (steps, {}))
        names = [n if isinstance(n, str) else n.name for n in feed]
        self._runtime.follow_share()  # (the threads of the segments' parallel loops: the cores free now)
        return step_plan.run_planned(kept[1], steps, names, values)

    def train_from_dataset(
        self,
        program=None,
        dataset=None,
        scope=None,
        thread=0,
        debug=False,
        fetch_list=None,
        fetch_info=None,
        print_period=100,
    ):
        """Fluid 1.5+: trains ``program`` on every sample of ``dataset`` (a fluid.DatasetFactory
        dataset) on ``thread`` threads (default: the dataset's), Hogwild; prints the ``fetch_list``
        values (labelled ``fetch_info``) every ``print_period`` batches of a thread. The dataset
        reads, batches and runs (pe_cli/data/dataset.py); this executor's place is where."""
        if dataset is None or not hasattr(dataset, "_run"):
            raise PeError("train_from_dataset: give a dataset made by fluid.DatasetFactory().create_dataset(...)")
        program = default_main_program() if program is None else program
        program = program.program if isinstance(program, CompiledProgram) else program
        dataset._run(
            program,
            global_scope() if scope is None else scope,
            thread,
            debug,
            fetch_list,
            fetch_info,
            print_period,
            self.place,
        )

    def _adjust_pipeline_resource(self, pipeline_opt, dataset, pipeline_num):
        """Fluid's: no more pipelines than files, no more readers per pipeline than that leaves files for
        (``pipeline_opt["concurrency_list"][0]``), and the dataset's threads for them all; the pipelines' number."""
        files = len(dataset.dataset.get_filelist())
        pipeline_num = min(pipeline_num, files)
        if files < pipeline_num * pipeline_opt["concurrency_list"][0]:
            pipeline_opt["concurrency_list"][0] = files // pipeline_num
        dataset.set_thread(pipeline_opt["concurrency_list"][0] * pipeline_num)
        return pipeline_num

    def infer_from_dataset(
        self,
        program=None,
        dataset=None,
        scope=None,
        thread=0,
        debug=False,
        fetch_list=None,
        fetch_info=None,
        print_period=100,
    ):
        """As train_from_dataset, for a program without optimizer ops (a test program)."""
        self.train_from_dataset(program, dataset, scope, thread, debug, fetch_list, fetch_info, print_period)

    def _run_profiled(self, plan, steps, frees, feed, fetch_list, scope, return_numpy, profile):
        """run(), timing the ops' loop and each kernel (data is the rest: feeds, scope, fetches)."""
        start = profiler.clock()
        values, lods = self._gather_inputs(plan, feed or {}, scope)
        loop_start = profiler.clock()
        run_steps(steps, frees, values, profile)
        loop = profiler.clock() - loop_start
        self._store(plan, values, scope, feed or {})
        results = fetch_values(plan.block, fetch_list, values, lods, scope, return_numpy)
        profile.record_run(profiler.clock() - start, loop, len(plan.steps))
        return results

    def _store(self, plan, values, scope, feed):
        lods, shared = values.lods, values.shared
        for name in plan.persistable_writes:  # a state's LoD (detection_map's lists) is kept too
            if name in values:
                scope.set_array(name, values[name], lods.get(name), lent=bool(shared) and name in shared)
            else:  # unwritten (dropout's Mask when is_test): declared, uninitialised, as Fluid's
                scope.var(name)
        for name in feed:  # as Fluid's feed op: a fed persistable variable keeps its value in the scope
            name = name if isinstance(name, str) else name.name
            var = plan.block.vars.get(name)
            if var is not None and var.persistable and name not in plan.written_back:
                array = values[name]
                scope.set_array(name, array.copy() if isinstance(array, np.ndarray) else array, lods.get(name))
        self._memory.finish()

    def _plan(self, program):
        # One plan per program, rebuilt when the program changes (the plan holds the program, so
        # its id cannot be reused while cached).
        plan = self._plans.get(id(program))
        if plan is None or plan.version != program._version:
            plan = self._plans[id(program)] = _Plan(program, self.place)
        return plan

    def _gather_inputs(self, plan, feed, scope):
        block = plan.block
        values = Values()
        lods = values.lods
        for name, value in feed.items():
            name = name if isinstance(name, str) else name.name
            values[name], lod = as_feed_array(block, name, value)
            if lod:
                lods[name] = lod
        memory = self._memory
        for name in values:
            values[name] = memory.to_device(values[name])
        values.dense_updates = not nan_check.ENABLED
        # donated: read from the scope, written back, no view, not lent; none with other executors on it
        donatable = plan.donatable if self._concurrent == 1 else ()
        donated = values.donated = set() if donatable else values.donated
        for name in plan.scope_reads:
            if name in values:
                continue
            held = scope.find_var(name)
            array = None if held is None else held.tensor._array
            if array is None and name in block.vars and block.vars[name].type == VarType.LOD_TENSOR_ARRAY:
                values[name] = TensorArray()  # a declared array starts empty, as in Fluid's scope
                continue
            if array is None and name in block.vars and block.vars[name].type == VarType.RAW:
                values[name] = RAW_VALUE  # no tensor (cudnn_lstm's Cache): its readers do not read it
                continue
            if array is None:
                raise missing_value_error(block, name)
            if held.tensor._lod:  # a state kept with its LoD
                lods[name] = held.tensor._lod
            if not memory.is_device_array(array):
                array = memory.to_device(array)
                var = block.vars.get(name)
                if memory.keeps_parameters and var is not None and var.persistable:
                    held.tensor._array, held.tensor._lent = array, False  # stays on the device: pe's copy
            values[name] = array
            if name in donatable and not held.tensor._lent and getattr(array, "base", None) is None:
                donated.add(name)
        for name in plan.prior_reads:  # what an output held, for the kernels that read it
            held = scope.find_var(name)
            if name not in values and held is not None and held.tensor._array is not None:
                values[name] = memory.to_device(held.tensor._array)
        return values, lods  # lods: values.lods, the feeds' LoD, then every output's


def fetch_values(block, fetch_list, values, lods, scope, return_numpy):
    empty = None if getattr(block.program, "_follows_paddle2", False) else _fluid_empty
    results = []
    for item in fetch_list or ():
        name = item if isinstance(item, str) else item.name
        array = values.get(name)
        if array is None:
            array = scope.held_array(name)  # (copied below: lends nothing)
        if array is None:
            if block.has_var(name):  # declared, but no op of this run wrote it and no feed or scope holds it
                raise PeError(
                    f"cannot fetch '{name}': no op of this program computes it and it was not fed "
                    f"(a variable of another program, or of a branch that did not run?)"
                )
            known = [n for n in block.vars if not n.endswith(GRAD_SUFFIX)] + list(values)
            hint = did_you_mean(name, known)
            hint = f"; {hint}" if hint else ""
            raise PeError(f"cannot fetch '{name}': no such variable was computed{hint}")
        if isinstance(array, list):  # a LoDTensorArray: a list of arrays, as Fluid's as_numpy gives it
            items = [
                _fetched_one(a, lod, return_numpy, empty)
                for a, lod in zip(array, getattr(array, "lods", None) or [None] * len(array))
            ]
            results.append(items if return_numpy else LoDTensorArray(items))
            continue
        results.append(_fetched_one(array, lods.get(name), return_numpy, empty))
    return results


def _fluid_empty(host, lod, return_numpy):
    """Fluid 1.8's fetch of a tensor with no element (its fetch op copies none): a LoDTensor of shape [0]
    with the LoD, and None for numpy (its ``as_numpy`` of that uninitialised tensor)."""
    return None if return_numpy else LoDTensor(np.empty((0,), host.dtype), lod)


def _fetched_one(array, lod, return_numpy, empty=None):
    """One fetched value: a fresh host copy, as a numpy array or a LoDTensor with its LoD (``empty``
    makes that of a value with no element)."""
    if isinstance(array, SelectedRows):  # row-sparse: dense as numpy, else itself (host copies)
        return (
            fetched(array.to_dense())
            if return_numpy
            else array.with_arrays(*(np.array(a, copy=True) for a in array.numpy()))
        )
    host = array.copy_to_host() if hasattr(array, "copy_to_host") else np.array(array, copy=True)
    if empty is not None and host.size == 0:
        return empty(host, lod, return_numpy)
    return fetched(host) if return_numpy else LoDTensor(host, lod)
