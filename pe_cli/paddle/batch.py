"""``paddle.batch`` (its home is pe_cli/data/batch.py, which the Fluid face shares)."""

from ..data.batch import batch  # noqa: F401

__all__ = ["batch"]
