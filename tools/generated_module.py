"""What the tools that generate a module of pe_cli/ share (tools/op_family_index.py, tools/layer_index.py):
print the module's text, or with --write put it in place of the file."""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def print_or_write(description, out, text):
    """The command line of a generating tool: ``text()`` printed, or with --write written to ``out``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--write", action="store_true", help=f"rewrite {os.path.relpath(out, ROOT)}")
    write = parser.parse_args().write
    new = text()
    if write:
        with open(out + ".tmp", "w", encoding="utf-8") as f:
            f.write(new)
        os.replace(out + ".tmp", out)
    else:
        sys.stdout.write(new)
