"""The IR: Program ▸ Block ▸ Operator, Variable, Parameter."""

from . import unique_name
from ..base.dtypes import VarType, convert_dtype
from .operator import Operator, OpRole
from .program import (
    Block,
    Program,
    default_main_program,
    default_startup_program,
    name_scope,
    program_guard,
    switch_main_program,
    switch_startup_program,
)
from .source import current_source, source_guard
from .variable import Parameter, Variable

__all__ = [
    "Block",
    "Operator",
    "OpRole",
    "Parameter",
    "Program",
    "Variable",
    "VarType",
    "convert_dtype",
    "current_source",
    "default_main_program",
    "default_startup_program",
    "name_scope",
    "program_guard",
    "source_guard",
    "switch_main_program",
    "switch_startup_program",
    "unique_name",
]
