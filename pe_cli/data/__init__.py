"""Data for training: file readers (IDX, .npy/.npz, CSV), per-feed transforms, a seeded resumable
batcher, and Fluid's DataFeeder. Nothing here imports the engine's kernels."""

from .batcher import Batcher  # noqa: F401
from .feeder import DataFeeder  # noqa: F401
from .idx import load_mnist, read_idx, write_idx  # noqa: F401
from .readers import DataError, read_npy, read_npz  # noqa: F401
from .tables import read_csv, read_table  # noqa: F401
from .sources import load_source  # noqa: F401
from .transforms import apply_transforms, conform  # noqa: F401
