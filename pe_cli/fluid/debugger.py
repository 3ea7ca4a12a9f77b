"""``fluid.debugger``: a program as readable code (``pprint_program_codes``) and a block as a
graphviz drawing (``draw_block_graphviz``). The text and the DOT are pe's (pe_cli/run/graph.py,
the ones ``pe graph`` prints)."""
import shutil
import subprocess

from ..base.atomic_file import atomic_write
from ..run.graph import program_dot, program_text

__all__ = ["pprint_program_codes", "pprint_block_codes", "draw_block_graphviz"]


def pprint_program_codes(program_desc):
    """The program as text: its feeds, parameters and one line per op (a block an op runs nested
    under it)."""
    program = getattr(program_desc, "_program", program_desc)
    return program_text(program)


def pprint_block_codes(block_desc, show_backward=False):
    """One line per op of the block; without ``show_backward``, its gradient ops left out."""
    lines = [line for line in program_text(block_desc.program).splitlines()
             if show_backward or "@GRAD" not in line and "_grad(" not in line]
    return "\n".join(lines) + "\n"


def draw_block_graphviz(block, highlights=None, path="./temp.dot"):
    """Writes the block's program as a DOT file at ``path`` and, where graphviz's ``dot`` is
    installed, draws it next to it as a PDF (Fluid's ``path[:-3] + "pdf"``). ``highlights``: names
    of variables the caller cares about (accepted; pe's drawing marks none)."""
    atomic_write(path, program_dot(block.program, title=f"block {block.idx}"))
    dot = shutil.which("dot")
    if dot is not None:
        subprocess.run([dot, "-Tpdf", path, "-o", path[:-3] + "pdf"], check=False, capture_output=True)
