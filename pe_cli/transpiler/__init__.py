"""Program rewriting for distributed training in parameter-server mode: the plan (blocks, servers,
tags), the trainer's programs and each server's. ``pe_cli.fluid.transpiler.DistributeTranspiler`` is
the face; collective mode changes no program and lives in the executors (num_trainers)."""

from .dispatch import HashName, PSDispatcher, RoundRobin
from .groups import lr_ops
from .plan import PServerPlan
from .server import pserver_program, pserver_startup
from .slicing import VarBlock, slice_variable
from .trainer import rewrite_trainer_program, rewrite_trainer_startup

__all__ = [
    "HashName",
    "PSDispatcher",
    "RoundRobin",
    "PServerPlan",
    "VarBlock",
    "lr_ops",
    "pserver_program",
    "pserver_startup",
    "rewrite_trainer_program",
    "rewrite_trainer_startup",
    "slice_variable",
]
