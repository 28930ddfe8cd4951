"""TEST-ONLY stand-in for neuronxcc.nki.language: test controls only."""
import os
import signal

import numpy as np

_device_time = [1e-3]
_calls = [0]


def fake_device_time(seconds):
    _device_time[0] = seconds


def fake_crash():
    os.kill(os.getpid(), signal.SIGSEGV)


def fake_hang():
    while True:
        pass


def fake_float64_output(x):
    return np.asarray(x, dtype=np.float64)


# What the identity kernel of the health check uses, in numpy terms.
shared_hbm = "shared_hbm"


def ndarray(shape, dtype=np.float32, buffer=None, name=None):
    return np.empty(shape, dtype=dtype)


def load(x, dtype=None):
    return np.array(x, dtype=dtype or x.dtype)


def store(dst, value):
    dst[...] = value
