"""The caching allocator of a CUDA device: buffers by size class, leased to one array (and its
views) and returned to the pool when they are all gone, so a steady training loop allocates nothing.
Under numba's simulator the buffers are host memory."""

import weakref

import numpy as np


def _bucket(nbytes):
    """Size class of a request: multiples of 512 bytes (small arrays share buffers freely)."""
    return max(512, (nbytes + 511) // 512 * 512)


class Pool:
    """Device buffers by size class. A buffer is leased to one array (and its views); when they
    are all gone it returns to the free list of its class and the next request of that class
    reuses it. ``allocations`` counts real device allocations (a steady training loop makes none)."""

    def __init__(self, dev, cuda, simulated):
        self.device = dev
        self._cuda = cuda
        self._sim = simulated
        self.free = {}  # size class -> [raw buffer]
        self.leased = {}  # token -> lease object, for the real driver's refcounted pointers
        self.allocations = 0
        self.bytes = 0
        self.reuses = 0

    def empty(self, shape, dtype):
        shape = tuple(int(d) for d in shape)
        dtype = np.dtype(dtype)
        size = 1
        for d in shape:
            size *= d
        nbytes = size * dtype.itemsize
        if nbytes == 0:
            return self._cuda.device_array(shape, dtype, stream=self.device.stream)
        key = _bucket(nbytes)
        raw = None
        bucket = self.free.get(key)
        if bucket:
            try:
                raw = bucket.pop()  # atomic: finalizers may append from any thread
                self.reuses += 1
            except IndexError:
                raw = None
        if raw is None:
            raw = self._allocate(key)
        return self._lease(raw, key, shape, dtype)

    def _allocate(self, nbytes):
        self.allocations += 1
        self.bytes += nbytes
        if self._sim:
            return np.empty(nbytes, dtype=np.uint8)
        with self.device:
            try:
                return self.device.context.memalloc(nbytes)
            except Exception:  # out of memory: give the cached buffers back, then retry
                self.trim()
                return self.device.context.memalloc(nbytes)

    def trim(self):
        """Frees every cached buffer no array is using (numba frees device memory lazily)."""
        self.free = {}
        if not self._sim:
            with self.device:
                self.device.context.deallocations.clear()

    def _release(self, key, raw):
        self.free.setdefault(key, []).append(raw)

    def _lease(self, raw, key, shape, dtype):
        strides = _c_strides(shape, dtype.itemsize)
        if self._sim:
            lease = _HostLease(raw, shape, dtype, strides)
            weakref.finalize(lease, self._release, key, raw)
            from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray

            return FakeCUDAArray(np.asarray(lease), stream=self.device.stream)
        from numba.cuda.cudadrv.devicearray import DeviceNDArray
        from numba.cuda.cudadrv.driver import AutoFreePointer

        # Numba's own allocator pattern: a refcounted pointer whose finalizer runs when the array
        # and every view of it are gone; here the finalizer hands the buffer back to the pool.
        token = object()
        leased = self.leased

        def give_back(token=token, key=key, raw=raw):
            leased.pop(token, None)
            self._release(key, raw)

        mem = AutoFreePointer(weakref.proxy(self.device.context), raw.device_pointer, key, finalizer=give_back)
        leased[token] = mem
        return DeviceNDArray(shape, strides, dtype, stream=self.device.stream, gpu_data=mem.own())

    def stats(self):
        return {
            "allocations": self.allocations,
            "bytes": self.bytes,
            "reuses": self.reuses,
            "free": sum(len(v) for v in self.free.values()),
        }


class _HostLease:
    """Simulator only: exposes a pooled host buffer as an array; alive while any view is."""

    __slots__ = ("__array_interface__", "raw", "__weakref__")

    def __init__(self, raw, shape, dtype, strides):
        self.raw = raw
        self.__array_interface__ = {
            "shape": shape,
            "typestr": dtype.str,
            "strides": strides,
            "data": (raw.ctypes.data, False),
            "version": 3,
        }
        if dtype.fields is not None:
            self.__array_interface__["descr"] = dtype.descr


def _c_strides(shape, itemsize):
    strides = []
    step = itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))
