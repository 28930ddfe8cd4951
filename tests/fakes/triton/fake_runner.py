# The triton runner's test double as a process: the real runner loop
# (evaluators/triton/harness/runner.py, the protocol the judge drives) on a
# host-memory stand-in device (numpy arrays; the "kernels" are numpy
# functions called on them). Test-only: tests/evaluators/triton_judge_test.cpp
# writes it beside a copy of runner.py with a first line naming
# /usr/bin/python3 -I; never part of the evaluator.
#
# Its "device time" is the host clock between start and stop: not a GPU
# measurement of anything; the tests only use it to check the judge's
# decisions about a runner's claims and the protocol. The mode is the file
# name's suffix (the judge passes nothing but the function name):
#   ..._honest  reports the measured start -> stop time
#   ..._under   reports 1/50 of it (a runner hiding time from the judge)
#   ..._over    reports it plus 5 s (a claim larger than the round trip)
import importlib.util
import os
import sys
import time

import numpy as np

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("triton_runner", os.path.join(_here, "runner.py"))
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)

MODE = os.path.basename(__file__).rsplit("_", 1)[-1]


class NumpyDevice:
    def __init__(self):
        self.t0 = 0

    def alloc(self, elements):
        return np.empty(elements, dtype=np.float32)

    def host_view(self, region, offset, elements):
        return np.frombuffer(region, dtype=np.float32, count=elements, offset=offset)

    def upload(self, device, host):
        device[:] = host

    def fill_nan(self, device):
        device.fill(np.nan)

    def flush_l2(self):
        pass

    def start(self):
        self.t0 = time.monotonic_ns()

    def stop(self):
        measured = time.monotonic_ns() - self.t0
        if MODE == "under":
            return measured / 50
        if MODE == "over":
            return measured + 5e9
        return measured

    def download(self, host, device):
        host[:] = device

    def synchronize(self):
        pass


if __name__ == "__main__":
    if MODE not in ("honest", "under", "over"):
        runner.die("unknown fake mode " + MODE)
    runner.run(NumpyDevice, sys.argv)
