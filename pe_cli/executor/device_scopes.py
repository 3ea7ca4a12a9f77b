"""Where each device's values live between runs of a data-parallel program.

Device 0 works in the given (global) scope; device d > 0 in a child scope of it holding its own
copy of every persistable variable it writes (parameters, optimizer state), filled from the global
scope at the first run (Fluid's BCastParamsToDevices), and again whenever something else (an
Executor, a checkpoint loader) has replaced the global value since. After a run the global scope
holds device 0's values, so an Executor or a checkpoint sees the trained parameters. A persistable
variable written by one device only (Reduce: the optimizer state of the parameters it owns) lives in
the global scope. Each device also has a local execution scope (a child of its scope) keeping that
device's temporaries and feeds between runs; it is dropped every ``num_iteration_per_drop_scope``
runs and by ``drop_local_exe_scopes()``.
"""

from ..base.errors import FeedError, PeError
from ..base.dtypes import VarType
from .feeding import RAW_VALUE, missing_value_error
from .plan import Values


class DeviceScopes:
    """The scopes of ``graph``'s devices; ``memory[d]`` moves values onto device d."""

    def __init__(self, graph, block, memory, scope, share_from=None):
        self.graph = graph
        self.block = block
        self.memory = memory
        self.n = len(memory)
        self.persistable = {n for n, v in block.vars.items() if v.persistable}
        self._plan_persistables()
        self.share_from = share_from
        if share_from is not None:
            self.scope = share_from.scope
            self.param_scopes = share_from.param_scopes
        else:
            self.scope = scope
            self.param_scopes = [scope] + [scope.new_scope() for _ in range(1, self.n)]
        self._exec_scopes = [s.new_scope() for s in self.param_scopes]
        self._pending = [None] * self.n  # per device: (values, lods) of the last run, not yet in its scope
        self.params_ready = False  # copies broadcast to the devices (first run)
        self._seen = {}  # name -> the global array the device copies were made from

    def _plan_persistables(self):
        """Which persistable variables each device writes, and where each write is kept."""
        writers = {}
        for d in range(self.n):
            for name in self.graph.writes(d):
                if name in self.persistable:
                    writers.setdefault(name, []).append(d)
        self._home = {name: min(ds) for name, ds in writers.items()}  # writes to the global scope
        self._persist = [[n for n in self.graph.writes(d) if n in self.persistable] for d in range(self.n)]
        # device d > 0 keeps its own copy of what it writes, unless it is the only writer
        self._copies = {d: [n for n in self._persist[d] if self._home[n] != d] for d in range(1, self.n)}

    def to_device(self, d, array):
        return self.memory[d].to_device(array)

    def _own_copy(self, d, array):
        """Device ``d``'s own copy of a persistable array (devices of one memory: a copy, so that no
        device's update in place writes another's)."""
        moved = self.to_device(d, array)
        return moved.copy() if moved is array and hasattr(moved, "copy") else moved

    # -- parameters ------------------------------------------------------------------------------
    def prepare_params(self):
        if self.share_from is not None:
            owner = self.share_from
            if not owner.params_ready:
                raise PeError(
                    "share_vars_from: the executor this one shares parameters with has not run yet; "
                    "run it (the training program) first: it copies the parameters to the devices "
                    "at its first run"
                )
            owner.sync_params()
            self.params_ready = True
            return
        if not self.params_ready:
            for d, names in self._copies.items():
                for name in names:
                    array = self.scope.held_array(name)
                    if array is not None:
                        self.param_scopes[d].set_array(name, self._own_copy(d, array), lent=False)
                        self._seen[name] = array
            self.params_ready = True
        else:
            self.sync_params()

    def sync_params(self):
        """Re-copies persistable values replaced in the global scope by anyone else since."""
        if self.share_from is not None:
            self.share_from.sync_params()
            return
        changed = [
            (name, array)
            for name, array in ((name, self.scope.held_array(name)) for name in self._seen)
            if array is not self._seen[name]
        ]
        for name, array in changed:
            self._seen[name] = array
            if array is None:
                continue
            for d, names in self._copies.items():
                if name in names:
                    self.param_scopes[d].set_array(name, self._own_copy(d, array), lent=False)

    # -- after and before a run ------------------------------------------------------------------
    def save(self, values, lods):
        """After a run: persistable values go back to the scopes; each device's temporaries and feeds
        are kept for its local execution scope, stored there only when someone looks (``exec_scopes``)
        or a later run's names differ: a run reads nothing from them but the names it reads before
        writing (``gather``), so storing ~100 arrays per device every step was wasted work."""
        scope, home, one_update = self.scope, self._home, self.graph.shared_updates
        for d in range(self.n):
            vals = values[d]
            own, shared = self.param_scopes[d], vals.shared
            for name in self._persist[d]:  # (an array another name or device shares goes back lent)
                array, lent = vals[name], bool(shared) and name in shared
                if home[name] != d and name not in one_update and values[home[name]].get(name) is array:
                    lent = scope.var(name).tensor._lent = True  # one array in two devices' scopes, unordered
                (scope if home[name] == d else own).set_array(name, array, lent=lent)
            pending, lod = self._pending[d], lods[d]
            if pending is not None and (pending[0].keys() != vals.keys() or pending[1].keys() != lod.keys()):
                self._store_local(d)  # not overwritten name for name by this run: store it first
            self._pending[d] = (vals, lod)
        for name in self._seen:
            self._seen[name] = scope.held_array(name)

    def _store_local(self, d):
        """Stores device ``d``'s pending temporaries and feeds in its local execution scope."""
        pending = self._pending[d]
        if pending is None:
            return
        self._pending[d] = None
        vals, lod = pending
        exec_scope, persistable = self._exec_scopes[d], self.persistable
        for name, array in vals.items():
            if name not in persistable:
                exec_scope.set_array(name, array, lod.get(name))

    @property
    def exec_scopes(self):
        """Each device's local execution scope, holding its temporaries and feeds of the last runs."""
        for d in range(self.n):
            self._store_local(d)
        return self._exec_scopes

    def drop_local(self):
        for d, old in enumerate(self._exec_scopes):
            parent = self.param_scopes[d]
            if old in parent.kids:
                parent.kids.remove(old)
            self._exec_scopes[d] = parent.new_scope()
            self._pending[d] = None

    def donate(self, values, scope_reads, per_device, shared_updates, in_place):
        """Devices of one memory: gives each device's run the names whose arrays its updates may write
        in place (pe_cli/executor/donation.py): persistables among ``in_place`` that the device writes
        and read from its scopes (not fed), held by a variable the scope has not lent, no view, and read
        by no other device from the same variable, unless the name is in ``shared_updates`` (one device
        updates it, after every device's readers: the graph orders them). ``per_device``: each device's
        (feeds, LoDs)."""
        scopes = [self.scope, *self.param_scopes[1:]]
        sources = [{} for _ in range(self.n)]  # per device: name -> the scope variable it reads
        for d in range(self.n):
            for name in scope_reads[d]:
                if name in self.persistable:
                    sources[d][name] = self._exec_scopes[d].find_var(name)
        for d, vals in enumerate(values):
            vals.dense_updates = True
            donated = vals.donated = set()
            fed = per_device[d][0]
            for name in self._persist[d]:
                held = sources[d].get(name)
                if name not in in_place or name in fed or held is None:
                    continue
                if getattr(vals.get(name), "base", None) is not None:  # (a view: another array's memory)
                    continue
                if any((v := s.vars.get(name)) is not None and v.tensor._lent for s in scopes):
                    continue  # (lent by a device's scope: a broadcast may have put the array in several)
                if name not in shared_updates and any(sources[e].get(name) is held for e in range(self.n) if e != d):
                    continue
                donated.add(name)

    def gather(self, scope_reads, per_device):
        """Each device's values for one run: its feeds, then what it reads before writing, from
        its last run's values or its scopes."""
        values = []
        block, persistable, fed_loss_grad = self.block, self.persistable, self.graph.fed_loss_grad
        for d in range(self.n):
            vals = Values({n: self.to_device(d, a) for n, a in per_device[d][0].items()}, per_device[d][1])
            scope = self._exec_scopes[d]
            pending = self._pending[d]
            last = pending[0] if pending is not None else {}  # the local scope's newest values
            for name in scope_reads[d]:
                if name in vals:
                    continue
                var = block.vars.get(name)
                if var is not None and var.is_data:
                    raise missing_value_error(block, name)
                if name == fed_loss_grad:
                    shape = list(var.shape or [1]) if var is not None else [1]
                    raise FeedError(
                        f"gradient_scale_strategy is Customized: feed '{name}', the initial gradient "
                        f"of the loss on each device (shape {shape})"
                    )
                array = last.get(name) if name not in persistable else None
                if array is None:
                    array = scope.held_array(name)
                if array is None and var is not None and var.type == VarType.RAW:
                    array = RAW_VALUE  # no tensor (cudnn_lstm's Cache): its readers do not read it
                if array is None:
                    raise missing_value_error(block, name)
                vals[name] = self.to_device(d, array)
            values.append(vals)
        return values
