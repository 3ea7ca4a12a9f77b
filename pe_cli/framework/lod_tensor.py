"""LoDTensor: a dense array plus its level-of-detail (sequence boundaries), as the seeds describe.

Lengths (``recursive_sequence_lengths``) and offsets (``lod``) are two views of the same thing:
lengths [[2, 3]] are offsets [[0, 2, 5]]. Level i's lengths count entries of level i+1; the last
level's lengths count rows of the array.
"""

import numpy as np

from ..base.dtypes import convert_dtype
from ..base.errors import EnforceNotMet, PeError
from ..base.places import CPUPlace


class LoDTensor:
    """``LoDTensor()``; ``LoDTensor([[2, 2]])`` (Fluid's: the recursive sequence lengths, the data
    set later); or ``LoDTensor(array, lod)`` (pe's: an array and its offsets)."""

    def __init__(self, array=None, lod=None):
        lengths = None
        if isinstance(array, list) and lod is None and all(isinstance(level, list) for level in array):
            array, lengths = None, array
        self._array = None if array is None else np.asarray(array)
        # lent: the array may be held outside this tensor (a caller's array it was made around, or one
        # handed out without a copy), so no run writes it in place (pe_cli/executor/donation.py)
        self._lent = self._array is not None
        self._lod = [[int(v) for v in level] for level in (lod or [])]
        self._placed = None
        if lengths is not None:
            self.set_recursive_sequence_lengths(lengths)

    # -- the dense part ------------------------------------------------------------------------
    def set(self, array, place=None):
        self._array = np.array(array, copy=True) if not isinstance(array, np.ndarray) else array.copy()
        self._lent = False  # (its own copy)
        self._placed = place

    def _place(self):
        """The place given to ``set`` (Fluid's private accessor; a DataLoader's batch: its place), else
        CPUPlace()."""
        return self._placed if self._placed is not None else CPUPlace()

    def __array__(self, dtype=None, copy=None):
        """The values as numpy: ``numpy.array(tensor)`` a copy; ``numpy.asarray(tensor)`` the tensor's own
        array where it is one of that dtype on the host, which is then lent (no run writes it in place)."""
        if self._array is None:
            raise PeError("this LoDTensor holds no data yet: set() it or run the program that writes it")
        array = self._array
        if hasattr(array, "copy_to_host"):  # on a GPU (a CUDA place's scope): copy to the host
            array = array.copy_to_host()
        array = np.asarray(array)  # a kernel's 0-D value may be a numpy scalar: numpy wants an ndarray
        array = array if dtype is None else array.astype(dtype, copy=False)
        if copy:
            return array.copy()
        if array is self._array or array.base is self._array or _owner(array) is _owner(self._array):
            self._lent = True
        return array

    def shape(self):
        return list(self._array.shape) if self._array is not None else []

    def _get_dims(self):
        return self.shape()  # a list, as Fluid's

    def _set_dims(self, dims):
        """Fluid's resize: the array takes shape ``dims`` (its values, where the size is kept; zeros else)."""
        dims = tuple(int(d) for d in dims)
        if self._array is not None and self._array.size == int(np.prod(dims)):
            self._array = self._array.reshape(dims)
        else:
            self._array = np.zeros(dims, self._array.dtype if self._array is not None else np.float32)

    def _alloc(self, dtype):
        dims = self._array.shape if self._array is not None else (0,)
        if self._array is None or self._array.dtype != dtype:
            self._array = np.zeros(dims, dtype)
        return self._array

    def _alloc_float(self, place=None):
        """Fluid's: memory for the dims ``_set_dims`` gave, as float32 (zeros where newly made)."""
        self._alloc(np.float32)

    def _alloc_double(self, place=None):
        self._alloc(np.float64)

    def _alloc_int(self, place=None):
        """As ``_alloc_float``, int32 (Fluid's int)."""
        self._alloc(np.int32)

    def _mutable_data(self, place, dtype):
        """Fluid's: the address of the tensor's memory as ``dtype`` (a VarType or any dtype spelling),
        which the caller may keep writing: the array is lent."""
        address = int(self._alloc(np.dtype(convert_dtype(dtype))).ctypes.data)
        self._lent = True
        return address

    def __getitem__(self, index):
        """Fluid's slicing of a Tensor: a new tensor holding ``array[index]`` (no LoD)."""
        return LoDTensor(np.array(np.asarray(self)[index]))

    def _own_array(self):
        """The array, a host copy this tensor owns where it was on a device or not writable."""
        if (
            hasattr(self._array, "copy_to_host")
            or not self._array.flags.writeable
            or not self._array.flags.c_contiguous
        ):
            self._array = np.ascontiguousarray(np.array(self))
        return self._array

    def _copy(self, place=None):
        """A copy of this tensor (its values and LoD)."""
        return LoDTensor(None if self._array is None else np.array(self), self.lod())

    def _dtype(self):
        return self._array.dtype

    # Fluid's element accessors (its gradient checker perturbs one element at a time, in place)
    def _get_float_element(self, i):
        return float(np.asarray(self).reshape(-1)[i])

    def _set_float_element(self, i, value):
        self._own_array().reshape(-1)[i] = value

    _get_double_element = _get_float_element

    def _get_complex_element(self, i):
        return complex(np.asarray(self).reshape(-1)[i])

    _get_complex64_element = _get_complex128_element = _get_complex_element
    _set_complex64_element = _set_complex128_element = _set_float_element
    _set_double_element = _set_float_element

    def __len__(self):
        return 0 if self._array is None else len(self._array)

    # -- sequence information ------------------------------------------------------------------
    def set_lod(self, lod):
        for level in lod:
            if not level or level[0] != 0 or any(b < a for a, b in zip(level, level[1:])):
                raise PeError(f"set_lod: each level must be ascending offsets starting at 0, got {level}")
        self._lod = [list(level) for level in lod]

    def lod(self):
        return [list(level) for level in self._lod]

    def set_recursive_sequence_lengths(self, lengths):
        """Sets the LoD from per-level sequence lengths. As Fluid does, lengths that cannot describe
        this tensor raise EnforceNotMet: a negative length, or a level whose lengths do not add up to
        the next level's count (the rows, for the last level, once the tensor holds a value)."""
        lod = [[int(v) for v in np.concatenate([[0], np.cumsum(level)])] for level in lengths]
        rows = None if self._array is None else len(self._array)
        for i, level in enumerate(lengths):
            below = len(lengths[i + 1]) if i + 1 < len(lengths) else rows
            if any(int(n) < 0 for n in level) or (below is not None and sum(level) != below):
                raise EnforceNotMet(
                    f"set_recursive_sequence_lengths: {[list(l) for l in lengths]} is not a valid "
                    f"LoD for this tensor ({rows if rows is not None else 'no'} rows): level {i}'s "
                    f"lengths must be >= 0 and add up to {below}"
                )
        self._lod = lod

    def recursive_sequence_lengths(self):
        return [[b - a for a, b in zip(level, level[1:])] for level in self._lod]

    def has_valid_recursive_sequence_lengths(self):
        """True when each level's lengths add up to the number of entries of the next level (the
        array's rows for the last level)."""
        lengths = self.recursive_sequence_lengths()
        for i, level in enumerate(lengths):
            if any(n < 0 for n in level):
                return False
            below = len(lengths[i + 1]) if i + 1 < len(lengths) else len(self)
            if sum(level) != below:
                return False
        return True

    def __repr__(self):
        return f"LoDTensor(shape={self.shape()}, lod={self._lod})"

    def __str__(self):
        """Fluid's text of a tensor (its C++ ``operator<<``), which programs print and parse: the
        LoD, dims, layout, C++ type name and the values as C++ streams them (6 significant digits)."""
        if self._array is None:
            return repr(self)
        array = np.asarray(self)
        kind = _CPP_TYPES.get(array.dtype.name, array.dtype.name)
        lod = "{" + "".join("{" + ", ".join(str(int(o)) for o in level) + "}" for level in self._lod) + "}"
        values = " ".join(_cpp_value(v, kind) for v in array.reshape(-1).tolist())
        return (
            f"\tlod: {lod}\n\tdim: {', '.join(str(d) for d in array.shape)}\n\tlayout: NCHW\n"
            f"\tdtype: {kind}\n\tdata: [{values}]\n"
        )


def _owner(array):
    base = getattr(array, "base", None)
    return array if base is None else base


# numpy dtype -> the C++ type name Fluid's tensor text gives
_CPP_TYPES = {
    "float32": "float",
    "float64": "double",
    "float16": "::paddle::platform::float16",
    "int32": "int",
    "int64": "int64_t",
    "bool": "bool",
    "uint8": "uint8_t",
    "int16": "int16_t",
    "int8": "int8_t",
}


def _cpp_value(v, kind):
    """One value as C++'s ostream prints it: floats with 6 significant digits (%g), bools 1 or 0,
    (u)int8 as the character of that byte."""
    if isinstance(v, bool):
        return str(int(v))
    if kind in ("uint8_t", "int8_t"):
        return chr(v % 256)
    return format(v, "g") if isinstance(v, float) else str(v)


class LoDTensorArray(list):
    """``fluid.LoDTensorArray``: a list of LoDTensors (one batch of a py_reader's slots when pushed
    into its queue)."""


def create_lod_tensor(data, recursive_seq_lens, place=None):
    """From a numpy array, a list of sequences (each a list of ids) or another LoDTensor."""
    if isinstance(data, LoDTensor):
        return create_lod_tensor(np.array(data), recursive_seq_lens, place)
    if isinstance(data, list):
        # A list of sequences: flatten and check its lengths agree with the last level.
        flat = [step for seq in data for step in seq]
        lengths = [len(seq) for seq in data]
        if recursive_seq_lens and lengths != list(recursive_seq_lens[-1]):
            raise PeError(
                f"create_lod_tensor: sequence lengths {lengths} do not match "
                f"recursive_seq_lens {recursive_seq_lens[-1]}"
            )
        data = np.array(flat, dtype="int64").reshape(len(flat), 1)
    tensor = LoDTensor(np.asarray(data))
    tensor.set_recursive_sequence_lengths(recursive_seq_lens)
    if not tensor.has_valid_recursive_sequence_lengths():
        raise PeError(f"create_lod_tensor: lengths {recursive_seq_lens} do not fit data with {len(tensor)} rows")
    return tensor


def create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low, high):
    rows = sum(recursive_seq_lens[-1])
    data = np.random.randint(low, high + 1, size=[rows] + list(base_shape)).astype("int64")
    return create_lod_tensor(data, recursive_seq_lens, place)
