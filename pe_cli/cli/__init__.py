"""The ``pe`` command: main.py parses and dispatches (``pe = pe_cli.cli.main.main:main``), tools.py holds
the smaller commands (summary, predict, export, plot), errors.py turns every error into one line and
an exit status. Each command loads the engine in its body, so ``pe --help`` loads click alone."""
