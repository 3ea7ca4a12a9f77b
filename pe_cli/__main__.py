"""``python -m pe_cli`` is the ``pe`` command."""

from .cli.main import main

main(prog_name="pe")
