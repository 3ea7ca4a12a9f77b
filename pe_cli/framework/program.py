"""Program ▸ Block: the static graph. Building appends ops through the op registry, which checks
slots and attributes and infers output shapes at once, so mistakes surface where they are made. This module
holds the Program and the default programs; block.py the Block."""

import contextlib
import copy
import numbers

# ops sits below framework (it imports only errors and dtypes). Import the module, not its names:
# importing pe_cli.ops.registry first runs this package's __init__ before the registry is done.
from ..base.dtypes import VarType
from ..ops import registry
from . import program_release
from .operator import OpRole
from .program_desc import ProgramDesc, parse_program
from .param_info import copy_data_info, copy_dist_info, copy_param_info
from .prune import prune_backward, prune_with_input
from .name_scope import current_name_scope, name_scope  # noqa: F401 (name_scope re-exported)
from .block import Block


class Program:
    # True for a program whose ops run as soon as they are made (the eager program of
    # fluid.dygraph.guard(), fluid.op.Operator's one op): what Paddle runs the same way in dygraph mode,
    # so no op of it is refused after paddle.disable_static() (Block._make_op)
    runs_now = False

    def __init__(self):
        self.blocks = [Block(self, 0)]
        self.current_block_idx = 0
        self._seed = _global_seed
        self._follows_paddle2 = program_release.new_programs_follow_paddle2()
        self._op_versions = None  # a loaded Paddle 2.x program's op_version_map ({op type: version}), else None
        # a Paddle 2.x program that built a fluid.layers reduction mixes the two as 2.0-2.4's did: its
        # slices that drop every dim keep [1] (framework/program_release.mark_zero_dim)
        self._mixes_fluid_layers = False
        self._current_role = OpRole.Forward
        self._version = 0  # bumped on every change; executors cache plans per version
        self._is_test = False
        self._py_readers = []  # the py_readers read_file reads in this program (layers/readers.py)
        self._appending_grad_times = 0  # Fluid's count of append_backward/gradients calls

    def _bump(self):
        self._version += 1

    @property
    def random_seed(self):
        """The seed of the program's random ops (0: none; a new Program starts at the global seed)."""
        return self._seed

    @random_seed.setter
    def random_seed(self, seed):
        if not isinstance(seed, numbers.Integral):
            raise ValueError(f"Program.random_seed's input seed must be an integer, but received {type(seed)}.")
        self._seed = int(seed)

    def global_seed(self, seed=0):
        """Sets this program's seed and the one every Program made afterwards starts with."""
        global _global_seed
        self.random_seed = seed
        _global_seed = self._seed

    def _copy_param_info_from(self, other):
        """Makes the variables of this global block that are parameters of ``other``'s global block
        parameters with the same training attributes (Fluid's; a pruned or parsed copy gets them back)."""
        if not isinstance(other, Program):
            raise TypeError(
                "Function Program._copy_param_info_from() needs to pass in a source Program, "
                f"but received {type(other)}"
            )
        copy_param_info(self.global_block(), other.global_block())

    def _copy_dist_param_info_from(self, other):
        """Takes ``other``'s distributed (parameter-server) settings, as Fluid's."""
        if not isinstance(other, Program):
            raise TypeError(
                "Function Program._copy_param_info_from() needs to pass in a source Program, "
                f"but received {type(other)}"
            )
        copy_dist_info(self, other)

    _copy_data_info_from = copy_data_info

    @staticmethod
    def parse_from_string(binary_str):
        """The Program ``program.desc.serialize_to_string()`` gave (Fluid's static method)."""
        return parse_program(Program(), binary_str)

    def global_block(self):
        return self.blocks[0]

    def current_block(self):
        return self.blocks[self.current_block_idx]

    def block(self, idx):
        return self.blocks[idx]

    def _create_block(self, parent_idx=None):
        """A new block whose parent is the current block (or ``parent_idx``); it becomes current.
        The executors run the global block; sub-blocks are the IR of control flow."""
        parent = self.current_block() if parent_idx is None else self.block(parent_idx)
        self.blocks.append(Block(self, len(self.blocks), parent.idx))
        self.current_block_idx = len(self.blocks) - 1
        self._bump()
        return self.current_block()

    def _prune(self, targets):
        """A copy keeping only the global block's ops that ``targets`` (Variables, names or
        Operators) depend on (Fluid's ``Program._prune``): what inference runs, without the loss
        and metrics."""
        return self._prune_with_input([], targets)

    def _prune_with_input(self, feeded_var_names, targets):
        """As ``_prune``, taking ``feeded_var_names`` as given: the ops that compute them, and what
        only those ops need, go too (Fluid's ``Program._prune_with_input``; framework/prune.py)."""
        return prune_with_input(self, feeded_var_names, targets)

    def _rollback(self):
        """Makes the current block's parent current again."""
        self.current_block_idx = self.current_block().parent_idx

    create_block = _create_block
    rollback = _rollback

    @property
    def num_blocks(self):
        return len(self.blocks)

    @property
    def desc(self):
        """Fluid's ProgramDesc face (``num_blocks()``, ``serialize_to_string()``)."""
        return ProgramDesc(self)

    def _sync_with_cpp(self):
        """Nothing to do: a pe Program is its own desc (Fluid syncs its Python side with the C++ one)."""

    def list_vars(self):
        for block in self.blocks:
            yield from block.vars.values()

    def all_parameters(self):
        return [p for block in self.blocks for p in block.all_parameters()]

    @contextlib.contextmanager
    def _role_guard(self, role):
        old, self._current_role = self._current_role, role
        try:
            yield
        finally:
            self._current_role = old

    def _optimized_guard(self, _param_and_grads=None):
        return self._role_guard(OpRole.Optimize)

    def _backward_role_guard(self):
        return self._role_guard(OpRole.Backward)

    def _lr_schedule_guard(self, is_with_opt=False):
        """Fluid's: ops built inside have the LRSched role; with ``is_with_opt`` also Optimize (a
        parameter's own learning rate, which a fetch list may name among the optimize ops)."""
        return self._role_guard(OpRole.LRSched | OpRole.Optimize if is_with_opt else OpRole.LRSched)

    def clone(self, for_test=False):
        """A deep copy. With ``for_test=True`` every op that has an ``is_test`` attribute (dropout,
        batch_norm, ...) gets it set, and in a program holding the loss's gradient op (its role
        Backward | Loss) the backward, optimize and learning-rate ops go, with the variables no op
        left uses, as Fluid 1.8.5's and Paddle 2.6's ``core.prune_backward``: a clone made after
        ``minimize`` evaluates, it does not train."""
        new = self._copy(for_test)
        if for_test:
            prune_backward(new)
        return new

    def _inference_optimize(self, prune_read_op=True):
        """Fluid's: a copy whose every op with an ``is_test`` attribute has it set; with
        ``prune_read_op`` it reads no py_reader: its reader ops and variables go (as Fluid's), and
        read_file's variables are then fed as any feed."""
        new = self._copy(True)
        if prune_read_op:
            new._py_readers = []
            block = new.global_block()
            block.ops = [op for op in block.ops if not registry.get(op.type).has("reader")]
            for name in [n for n, v in block.vars.items() if v.type == VarType.READER]:
                del block.vars[name]
            new._bump()
        return new

    def _copy(self, for_test):
        new = Program()
        new.random_seed = self.random_seed
        new._is_test = for_test or self._is_test
        new._follows_paddle2, new._op_versions = self._follows_paddle2, self._op_versions
        new._mixes_fluid_layers = self._mixes_fluid_layers
        new._py_readers = list(self._py_readers)  # a clone reads the same readers
        new._appending_grad_times = 0 if for_test else self._appending_grad_times  # as Fluid's clone
        if hasattr(self, "lr_scheduler"):  # and a paddle.optimizer.lr schedule's value, as Paddle's
            new.lr_scheduler = self.lr_scheduler
        new.blocks = []
        for block in self.blocks:
            nb = Block(new, block.idx, block.parent_idx)
            nb.vars = {name: var.clone_into(nb) for name, var in block.vars.items()}
            for op in block.ops:
                nop = op.clone_into(nb)
                if for_test and getattr(
                    registry.get(op.type).attrs.get("is_test"), "fill", False
                ):  # (not a 2.x-only one)
                    nop.attrs["is_test"] = True
                nb.ops.append(nop)
                for name in nop.output_arg_names:
                    if name in nb.vars:
                        nb.vars[name].op = nop
            new.blocks.append(nb)
        return new

    def to_string(self, throw_on_error=False, with_details=False):
        """The program as text, block by block; ``with_details`` adds each variable's writer and
        each parameter's training attributes (trainable, learning rate, regularizer, clip)."""
        shown = {0}
        texts = [self.blocks[0].to_string(throw_on_error, with_details, True, shown)]
        texts += [b.to_string(throw_on_error, with_details, True, shown) for b in self.blocks[1:] if b.idx not in shown]
        return "\n".join(texts)

    def __str__(self):
        return self.to_string()

    def __repr__(self):
        return f"<Program {sum(len(b.ops) for b in self.blocks)} ops>"

    def __deepcopy__(self, memo):
        return self.clone()

    copy = copy.copy


_global_seed = 0  # what a new Program's random_seed starts at (Program.global_seed)
_main_program = Program()
_startup_program = Program()


def default_main_program():
    return _main_program


def default_startup_program():
    return _startup_program


def switch_main_program(program):
    global _main_program
    old, _main_program = _main_program, program
    return old


def switch_startup_program(program):
    global _startup_program
    old, _startup_program = _startup_program, program
    return old


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard: main_program must be a Program, got {type(main_program).__name__}")
    if startup_program is not None and not isinstance(startup_program, Program):
        raise TypeError(f"program_guard: startup_program must be a Program, got {type(startup_program).__name__}")
    old_main = switch_main_program(main_program)
    old_startup = switch_startup_program(startup_program) if startup_program is not None else None
    try:
        yield
    finally:
        switch_main_program(old_main)
        if startup_program is not None:
            switch_startup_program(old_startup)
