"""``python -m pe_cli`` is the ``pe`` command."""
from .cli import main

main(prog_name="pe")
