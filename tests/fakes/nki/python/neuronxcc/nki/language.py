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
