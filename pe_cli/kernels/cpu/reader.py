"""CPU out-kernels of ops/reader.py (meta rules: shapes/services.py): a reader variable holds an empty marker; the
batches reach read's variables through the executors' feeds (pe_cli/executor/feeding.py). Each kernel by name is
its adapter (kernels/cuda/reader.py's HOST_OPS)."""

from ...shapes import services as rules
from ..structured import adapter


def create_py_reader_out(ins, outs, attrs, meta):
    """Out: the marker, the empty buffer handed."""


def create_double_buffer_reader_out(ins, outs, attrs, meta):
    """Out: UnderlyingReader's marker (``Meta.aliases``)."""


def read_out(ins, outs, attrs, meta):
    """Nothing: the executors fill read's variables from the reader's queue before the run's ops."""


create_py_reader_out.launches = create_double_buffer_reader_out.launches = read_out.launches = None
create_py_reader = adapter(rules.create_py_reader_meta, create_py_reader_out, "create_py_reader")
create_double_buffer_reader = adapter(
    rules.create_double_buffer_reader_meta, create_double_buffer_reader_out, "create_double_buffer_reader"
)
read = adapter(rules.read_meta, read_out, "read")
