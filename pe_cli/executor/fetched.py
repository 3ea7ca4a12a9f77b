"""What a fetch returns: a numpy array that also converts to a Python number when it holds one
element, as numpy's arrays did before 2.3. ``float(loss)`` on a fetched shape-[1] loss is the most
common idiom of Fluid scripts (``float(avg_cost)``, ``int(acc)``); numpy >= 2.3 refuses it for
arrays of one or more dimensions, so pe's fetched arrays keep it working (everything else is
numpy's ndarray: indexing, arithmetic and ``np.mean`` are unchanged)."""

import numpy as np


class Fetched(np.ndarray):
    def _one(self, convert):
        if self.size != 1:
            raise TypeError(
                f"only arrays of one element can be converted to Python scalars; this fetched "
                f"value has shape {list(self.shape)} (index it, or reduce it first)"
            )
        return convert(self.reshape(-1).view(np.ndarray)[0])

    def __float__(self):
        return self._one(float)

    def __int__(self):
        return self._one(int)

    def __complex__(self):
        return self._one(complex)

    def __format__(self, spec):
        """A one-element value formats as its number (``"{:.3f}".format(loss)``)."""
        if spec and self.size == 1:
            return format(self.reshape(-1).view(np.ndarray)[0].item(), spec)
        return super().__format__(spec)

    def __repr__(self):
        return repr(self.view(np.ndarray))


def fetched(array):
    """``array`` (a host numpy array pe owns) as a fetched value."""
    return np.asarray(array).view(Fetched)
