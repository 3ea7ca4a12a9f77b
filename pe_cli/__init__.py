"""pe: declarative static-graph training on a parallel executor, with a Fluid-compatible API."""

__version__ = "0.1.0"
