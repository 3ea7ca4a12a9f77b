"""Data for training: file readers (IDX, .npy/.npz, CSV), a seeded batcher with transforms, and
Fluid's DataFeeder."""
from .idx import load_mnist, read_idx, write_idx  # noqa: F401
