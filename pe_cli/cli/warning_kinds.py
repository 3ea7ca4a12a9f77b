"""Warnings, one line per kind: the first warning raised at a place in the code (its category, file
and line: one kind) is shown as Python shows it; the others of that kind are counted, and their count
is one line when the command ends (``pe: warning: 99,999 more UserWarnings like the one above ...``).
A model file with 100,000 attributes pe ignores printed 31 MB of warnings, one per attribute."""

import atexit
import os
import sys
import warnings

_KINDS = {}  # (category, file, line) -> warnings raised there


def collapse_warnings():
    """Installs the one-line-per-kind display for this process (once)."""
    if getattr(warnings.showwarning, "pe_collapsing", False):
        return
    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        key = (category, filename, lineno)
        _KINDS[key] = _KINDS.get(key, 0) + 1
        if _KINDS[key] == 1:
            shown(message, category, filename, lineno, file, line)

    show.pe_collapsing = True
    warnings.showwarning = show
    atexit.register(_counts)


def _counts():
    for (category, filename, lineno), n in _KINDS.items():
        if n > 1:
            try:
                print(
                    f"pe: warning: {n - 1:,} more {category.__name__}s like the one above "
                    f"({os.path.basename(filename)}:{lineno}) not shown",
                    file=sys.stderr,
                    flush=True,
                )
            except (OSError, ValueError):
                pass
