"""The value of a LoDTensorArray variable: its tensors (arrays, None for a slot never written) and
the LoD each was written with. The array ops' kernels make and read it; a scope variable's
``get_lod_tensor_array()`` (pe_cli/executor/tensor_array_var.py) fills it from LoDTensors."""


class TensorArray(list):
    """A LoDTensorArray's value: its tensors, and the LoD each was written with (``lods``)."""

    __slots__ = ("lods",)

    def __init__(self, items=(), lods=None):
        super().__init__(items)
        self.lods = list(lods) if lods is not None else [None] * len(self)
