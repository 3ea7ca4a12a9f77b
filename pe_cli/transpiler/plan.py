"""The plan of parameter-server mode: every parameter cut into blocks, each block placed on a
server, each gradient block numbered (its MPI tag). Computed once from the program as it was before
transpiling, the same in every process (trainers and servers transpile the same program)."""

from dataclasses import dataclass

from ..base.errors import PeError
from .groups import optimize_groups
from .slicing import slice_variable


@dataclass
class Placed:
    """One block of a parameter: where it lives and its message tag."""

    group: object  # the parameter's ParamGroup
    block: object  # its VarBlock (rows of the parameter)
    endpoint: str
    tag: int

    @property
    def param(self):
        return self.block.name(self.group.param)

    @property
    def grad(self):
        return self.block.name(self.group.grad)


def _endpoint_list(value, what):
    if isinstance(value, str):
        value = [e.strip() for e in value.split(",") if e.strip()]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(e, str) for e in value):
        raise PeError(f"DistributeTranspiler.transpile: {what} must be endpoints 'ip:port,ip:port', got {value!r}")
    if len(set(value)) != len(value):
        raise PeError(f"DistributeTranspiler.transpile: {what} lists an endpoint twice: {','.join(value)}")
    return list(value)


class PServerPlan:
    def __init__(self, origin, pservers, trainers, trainer_id, sync_mode, config):
        self.origin = origin  # a clone of the program before transpiling
        self.endpoints = _endpoint_list(pservers, "pservers")
        if not isinstance(trainers, int) or trainers < 1:
            raise PeError(
                f"DistributeTranspiler.transpile in pserver mode: trainers must be the number of "
                f"trainers (an int >= 1), got {trainers!r}"
            )
        if not isinstance(trainer_id, int) or not 0 <= trainer_id < trainers:
            raise PeError(f"DistributeTranspiler.transpile: trainer_id must be in [0, {trainers}), got {trainer_id!r}")
        self.trainers, self.trainer_id, self.sync = trainers, trainer_id, bool(sync_mode)
        block = origin.global_block()
        groups, self.shared = optimize_groups(block)
        if not groups:
            raise PeError(
                "DistributeTranspiler.transpile: the program has no optimizer ops; call "
                "optimizer.minimize(loss) before transpiling"
            )
        self.groups = sorted(groups, key=lambda g: _grad_written_at(block, g.grad))
        dispatcher = config.split_method(self.endpoints)
        self.placed = []
        for g in self.groups:
            blocks = slice_variable(
                g.param, block.var(g.param).shape, len(self.endpoints), config.min_block_size, config.slice_var_up
            )
            for b in blocks:
                self.placed.append(Placed(g, b, None, len(self.placed)))
        for p, ep in zip(self.placed, dispatcher.dispatch([p.grad for p in self.placed])):
            p.endpoint = ep

    def blocks_of(self, group):
        return [p for p in self.placed if p.group is group]

    def on(self, endpoint):
        if endpoint not in self.endpoints:
            raise PeError(f"DistributeTranspiler: {endpoint!r} is not one of the pservers {','.join(self.endpoints)}")
        return [p for p in self.placed if p.endpoint == endpoint]

    def who(self):
        """The attributes every send/recv op carries: the servers, this trainer, how many."""
        return {"endpoints": list(self.endpoints), "trainer_id": self.trainer_id, "trainers": self.trainers}


def _grad_written_at(block, grad):
    """Where backward last writes ``grad``: gradients are sent in the order they are ready."""
    last = None
    for i, op in enumerate(block.ops):
        if grad in op.output_arg_names:
            last = i
    if last is None:
        raise PeError(f"DistributeTranspiler: no op computes {grad}; call optimizer.minimize(loss) before transpiling")
    return last
