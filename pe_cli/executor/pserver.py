"""A parameter server's loop: ``Executor.run(pserver_program)`` of a program that
DistributeTranspiler.get_pserver_program made. It sends its parameter blocks to every trainer (their
startup programs receive them), then, step after step, receives the trainers' gradient blocks, runs
the schedule's block and its optimize blocks, and sends the updated blocks back, until every trainer
has finished. Synchronous mode waits for every trainer and sums their blocks in trainer order;
asynchronous mode updates with each trainer's gradients as they come.

It schedules and moves values only: the blocks are plain programs run by the Executor, and the
messages are pe_cli/distributed/pserver_link.py's.
"""

import numpy as np

from ..base.dtypes import VarType
from ..framework import Program
from ..distributed import pserver_link
from ..base.selected_rows import SelectedRows


def blocks_program(program, indices):
    """The ops of ``program``'s blocks ``indices``, in that order, as one program (with every
    variable they can see): what a server runs once per update."""
    new = Program()
    block = new.global_block()
    for source in [program.global_block()] + [program.block(i) for i in indices]:
        for name, var in source.vars.items():
            block.vars[name] = var.clone_into(block)
    for idx in indices:
        for op in program.block(idx).ops:
            clone = op.clone_into(block)
            block.ops.append(clone)
            for name in clone.output_arg_names:
                block.vars[name].op = clone
    new._bump()
    return new


def _nothing(shape, dtype, sparse):
    """The gradient block of a trainer that has finished: zeros, or a row-sparse block of no rows."""
    if sparse:
        return SelectedRows(np.zeros(0, np.int64), np.zeros((0,) + tuple(shape[1:]), dtype), shape[0])
    return np.zeros(shape, dtype)


class _Server:
    def __init__(self, exe, program, scope):
        a = program._listen_and_serv.attrs
        self.exe, self.scope, self.sync = exe, scope, a["sync_mode"]
        self.link = pserver_link.server_link(a["pserver_endpoints"], a["endpoint"], a["Fanin"])
        g0 = program.global_block()
        self.grads = a["grad_blocks"]  # [tag, [received names], block idx]
        self.params = dict(a["param_blocks"])  # tag -> name
        self.shapes = {
            tag: (g0.var(names[0]).shape, g0.var(names[0]).dtype, g0.var(names[0]).type == VarType.SELECTED_ROWS)
            for tag, names, _ in self.grads
        }
        blocks = ([a["lr_decay_block_id"]] if a["lr_decay_block_id"] >= 0 else []) + [i for _, _, i in self.grads]
        self.program = blocks_program(program, blocks)

    def parameters(self):
        # (sent, the send complete before the next update: kept by no one, lent to no one)
        return {tag: self.scope.held_array(name) for tag, name in self.params.items()}

    def update(self, arrived):
        """Puts each trainer's blocks where the optimize blocks read them (a finished trainer's as
        zeros) and runs the blocks."""
        for tag, names, _ in self.grads:
            for trainer, name in enumerate(names):
                got = arrived.get(trainer if len(names) > 1 else next(iter(arrived)))
                value = got[tag] if got is not None else _nothing(*self.shapes[tag])
                self.scope.set_array(name, value)
        self.exe._run_program(self.program, None, [], self.scope, True)

    def serve(self):
        for trainer in range(self.link.trainers):
            self.link.send_all(trainer, self.parameters())
        while self.link.active:
            if self.sync:
                arrived = {}
                for trainer in list(self.link.active):
                    got = self.link.receive(trainer, self.shapes)
                    if got is not None:
                        arrived[trainer] = got
            else:
                trainer = self.link.any_sender(bounded=bool(self.shapes))
                got = self.link.receive(trainer, self.shapes)
                arrived = {} if got is None else {trainer: got}
            if not arrived:
                continue
            self.update(arrived)
            values = self.parameters()
            for trainer in arrived:
                self.link.send_all(trainer, values)


def serve(exe, program, scope):
    _Server(exe, program, scope).serve()
    return []
