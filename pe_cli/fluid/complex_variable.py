"""``fluid.framework.ComplexVariable`` (Fluid 1.8): a complex tensor as two real Variables of one
shape and dtype, ``real`` and ``imag`` (complex64 over float16/float32, else complex128).
``paddle.complex``'s functions build on it, in static programs as in Fluid 1.8.5 (its docs call it
dygraph-only, but its static programs run: checked on the wheel); ``numpy()`` of one needs values,
so it works on eager (dygraph.guard) variables only."""


class ComplexVariable:
    def __init__(self, real, imag):
        assert real.shape == imag.shape, (
            "The real part and imaginary part of a ComplexVariable should have the same shape!"
        )
        assert real.dtype == imag.dtype, (
            "The real part and imaginary part of a ComplexVariable should have the same data type!"
        )
        self.real, self.imag = real, imag
        self._dtype = "complex64" if str(real.dtype) in ("float16", "float32") else "complex128"
        self._shape = real.shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self._shape

    @property
    def name(self):
        return {"real": self.real.name, "imag": self.imag.name}

    @name.setter
    def name(self, name):
        if isinstance(name, str):
            self.real.name, self.imag.name = name + ".real", name + ".imag"
        elif isinstance(name, (tuple, list)) and len(name) == 2:
            self.real.name, self.imag.name = name[0], name[1]
        else:
            raise ValueError(
                "An invalid name assigned to the ComplexVariable, "
                "which must be a string, or a tuple or a list with length 2!"
            )

    def numpy(self):
        return self.real.numpy() + 1j * self.imag.numpy()

    def __str__(self):
        return "REAL: " + str(self.real) + "IMAG: " + str(self.imag)

    __repr__ = __str__
