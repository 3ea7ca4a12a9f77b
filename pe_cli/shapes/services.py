"""Meta rules (shapes/structured.py) of the ops served by Fluid's fleet parameter services (ops/parameter_service.py),
of the reader ops (ops/reader.py) and of py_func (ops/py_func.py), whose out-kernels talk to a service pe lacks,
hand on a reader's marker or call Python.

pull_box_sparse, pull_sparse and pull_sparse_v2: Out[i] as Fluid infers it (Ids[i]'s dims, less a last 1 for the
first two, + the embedding size), float32, ``fresh`` (their out-kernels refuse: the service is not in pe); where
Ids[i] lacks that last 1, (None, None); the push ops and push_dense: no output. create_py_reader: Out, the reader's
marker, an empty int32 [0]; create_double_buffer_reader: Out is UnderlyingReader's marker as it is
(``Meta.aliases``); read: no output (the executors fill its variables from the reader's queue). py_func: Out, one
value per variable (``facts.count``), what the Python function returns, ``fresh`` of (None, None)."""

import numpy as np

from .structured import Meta


def _pull(size_attr, drop_last):
    def meta(attrs, ins, facts):
        specs = []
        for ids in ins["Ids"]:
            dims = tuple(ids.shape)
            if drop_last and not (dims and dims[-1] == 1):
                specs.append((None, None))
                continue
            specs.append(((dims[:-1] if drop_last else dims) + (attrs[size_attr],), np.dtype(np.float32)))
        return Meta({"Out": specs}, "service", fresh=True)

    return meta


pull_box_sparse_meta = _pull("size", True)
pull_sparse_meta = _pull("EmbeddingDim", True)
pull_sparse_v2_meta = _pull("EmbeddingDim", False)


def push_meta(attrs, ins, facts):
    return Meta({}, "service")


def create_py_reader_meta(attrs, ins, facts):
    return Meta({"Out": ((0,), np.dtype(np.int32))}, "marker")


def create_double_buffer_reader_meta(attrs, ins, facts):
    x = ins["UnderlyingReader"]
    shape, dtype = getattr(x, "shape", None), getattr(x, "dtype", None)
    spec = (None, None) if shape is None or dtype is None else (tuple(shape), dtype)
    return Meta({"Out": spec}, "marker", aliases={"Out": "UnderlyingReader"})


def read_meta(attrs, ins, facts):
    return Meta({}, "fed")


def py_func_meta(attrs, ins, facts):
    return Meta({"Out": [(None, None)] * facts.count("Out", 0)}, "python", fresh=True)
