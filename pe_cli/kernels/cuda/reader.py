"""CUDA twins of kernels/cpu/reader.py: the reader variables' markers stay on the host."""

from ..cpu.reader import create_double_buffer_reader, create_py_reader, read  # noqa: F401
