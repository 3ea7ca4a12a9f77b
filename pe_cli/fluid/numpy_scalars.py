"""numpy 1.x's ``float(a)`` / ``int(a)`` of a one-element array, given back under ``pe fluid``.

Fluid 1.8's programs ran on numpy 1.x, which converted any array holding exactly one element to a
Python number: ``float(np.array(loss_list))``, ``"%.2f" % row`` for a row of shape [1],
``math.isnan(cost)``. numpy 1.25 deprecated it for arrays of one or more dimensions and numpy 2.3+
raises ``TypeError: only 0-dimensional arrays can be converted to Python scalars``, on arrays the
program made itself as much as on fetched ones. ``pe fluid`` (that process only, never ``import pe``)
restores the 1.x rule on ``numpy.ndarray``: an array of one element converts, as its only element;
an array of 0 or 2+ elements still raises numpy's TypeError, exactly as numpy 1.x did.

How: ``ndarray`` is a C type whose ``__float__``/``__int__`` cannot be assigned from Python. Its
type dict gets a Python ``__float__``/``__int__`` (reshaping a one-element array to 0-d and calling
numpy's own conversion), and its number slots ``nb_float``/``nb_int`` are pointed at CPython's
generic slot functions, which call the ``__float__``/``__int__`` found on the type (the functions
every Python class defining them gets). The layout read is checked first (the type's name and a
probe class); where it does not match, nothing is changed and numpy's rule stays.
"""

import ctypes
import gc

import numpy as np

# PyTypeObject: ob_refcnt, ob_type, ob_size, tp_name, basicsize, itemsize, dealloc, vectorcall_offset,
# getattr, setattr, as_async, repr, as_number. PyNumberMethods: nb_int is slot 16, nb_float slot 18.
_TP_NAME, _TP_AS_NUMBER = 3, 12
_SLOTS = {"__int__": 16, "__float__": 18}
_PTR = ctypes.sizeof(ctypes.c_void_p)
_state = {"installed": False}


def _word(address):
    return ctypes.c_void_p.from_address(address)


def _number_methods(cls):
    return _word(id(cls) + _TP_AS_NUMBER * _PTR).value


class _Probe:
    """A class defining both conversions: its slots are CPython's generic slot functions."""

    def __float__(self):
        return 0.0

    def __int__(self):
        return 0


class _Bare:
    pass


def _layout_ok():
    name = ctypes.c_char_p.from_address(id(np.ndarray) + _TP_NAME * _PTR).value
    if name != b"numpy.ndarray" or not _number_methods(np.ndarray):
        return False
    probe, bare = _number_methods(_Probe), _number_methods(_Bare)
    return all(_word(probe + i * _PTR).value and not _word(bare + i * _PTR).value for i in _SLOTS.values())


def _one_element(numpy_conversion):
    def convert(self):
        if self.ndim and self.size == 1:
            self = self.view(np.ndarray).reshape(())
        return numpy_conversion(self)

    return convert


def _patch(cls, originals):
    """Points ``cls``'s number slots at the generic ones; ``cls`` is ndarray, or a subclass that kept
    numpy's slot when it was made."""
    for name, slot in _SLOTS.items():
        address = _number_methods(cls) + slot * _PTR
        if cls is np.ndarray or _word(address).value == originals[name]:
            _word(address).value = _word(_number_methods(_Probe) + slot * _PTR).value
    ctypes.pythonapi.PyType_Modified(ctypes.py_object(cls))


def install():
    """Makes every numpy array of one element convert with ``float()``/``int()`` (once); returns
    whether the rule is in place."""
    if _state["installed"]:
        return True
    if not _layout_ok():
        return False
    originals = {name: _word(_number_methods(np.ndarray) + slot * _PTR).value for name, slot in _SLOTS.items()}
    type_dict = gc.get_referents(np.ndarray.__dict__)[0]  # the dict behind the read-only mappingproxy
    for name in _SLOTS:
        type_dict[name] = _one_element(np.ndarray.__dict__[name])
    pending = [np.ndarray]
    while pending:
        cls = pending.pop()
        _patch(cls, originals)
        pending.extend(cls.__subclasses__())
    _state["installed"] = True
    return True
