"""TEST-ONLY: what both stand-in NKI namespaces (neuronxcc.nki and the nki
package) share: the SDK release this stand-in pretends to be, its version
gates, the LNC check of the runtime, the marker artifacts and the test
controls. Nothing here exists in the real SDK (tests/fakes/nki/README.md)."""
import json
import os
import signal
import sys
import time

import numpy as np

# ACCELOPT_STAND_IN_SDK: the Neuron release to behave like. Unset: 2.26
# (neuronxcc.nki only, as the paper's SDK). 2.27: both namespaces. 2.28 and
# later: neuronxcc.nki inside a kernel is a compile error. 2.30 and later:
# only neuron-explorer (bin/). 2.34: neuronxcc.nki cannot be imported.
RELEASE = int(os.environ.get("ACCELOPT_STAND_IN_SDK", "2.26").split(".")[1])
NKI_VERSION = "0.1.0" if RELEASE == 27 else "0.%d.0" % (RELEASE - 26)

_device_time = [1e-3]
_calls = [0]

# A cold first import is slow and talks (the NKI FAQ: the first import can
# take about a minute; SDK packages print while importing): this prints a
# line on stdout and, with ACCELOPT_STAND_IN_COLD_IMPORT_S, sleeps that long.
sys.stdout.write("stand-in Neuron SDK %s: loading (test-only)\n" % os.environ.get("ACCELOPT_STAND_IN_SDK", "2.26"))
sys.stdout.flush()
if os.environ.get("ACCELOPT_STAND_IN_COLD_IMPORT_S"):
    time.sleep(float(os.environ["ACCELOPT_STAND_IN_COLD_IMPORT_S"]))

# The runtime's inspect variables, read once, when the runtime starts (Neuron
# Explorer "Environment Variables", v2.33.1: NEURON_RT_* "Set them before the
# workload starts"): changing os.environ afterwards changes nothing here.
INSPECT = {k: os.environ.get(k) for k in ("NEURON_RT_INSPECT_ENABLE", "NEURON_RT_INSPECT_DEVICE_PROFILE",
                                          "NEURON_RT_INSPECT_OUTPUT_DIR",
                                          "NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP")}
_executions = {}  # NEFF (kernel) -> executions in this process


def inspect_capture(kernel_key):
    """Device profile mode 1 "Captures first execution per NEFF per core"
    (same page); NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP=N skips the first
    N executions and profiles the (N+1)-th (documented on the v2.33 pages:
    honoured from 2.33 only). Writes the marker NEFF/NTFF under the output
    folder as the capture guide's example names them
    (output/i-..._pid_<pid>/neff_<id>.neff, <id>_instid_0_vnc_<core>.ntff)."""
    n = _executions.get(kernel_key, 0)
    _executions[kernel_key] = n + 1
    if INSPECT["NEURON_RT_INSPECT_ENABLE"] != "1" or INSPECT["NEURON_RT_INSPECT_DEVICE_PROFILE"] not in ("1", "model"):
        return
    skip = int(INSPECT["NEURON_RT_INSPECT_DEVICE_PROFILE_NUM_WARMUP"] or 0) if RELEASE >= 33 else 0
    if n != skip:
        return
    out = os.path.join(INSPECT["NEURON_RT_INSPECT_OUTPUT_DIR"] or "./output", "i-0standin_pid_%d" % os.getpid())
    os.makedirs(out, exist_ok=True)
    key = abs(hash(kernel_key)) % 10**12
    core = os.environ.get("NEURON_RT_VISIBLE_CORES", "0")
    write_artifacts(os.path.join(out, "neff_%d.neff" % key), os.path.join(out, "%d_instid_0_vnc_%s.ntff" % (key, core)))


def broken_core_check():
    broken = os.environ.get("ACCELOPT_STAND_IN_BROKEN_CORE")
    if broken is not None and broken == os.environ.get("NEURON_RT_VISIBLE_CORES"):
        os.write(2, b"stand-in: NeuronCore does not answer; aborting like a runtime fault\n")
        os.abort()


def lnc_check(compiled_lnc):
    """The runtime loads a NEFF only when its LNC equals NEURON_LOGICAL_NC_CONFIG
    (Neuron docs, "Logical NeuronCore configuration"; default 1 here)."""
    runtime = int(os.environ.get("NEURON_LOGICAL_NC_CONFIG", "1"))
    if compiled_lnc != runtime:
        raise RuntimeError("stand-in runtime: failed to load the NEFF: it was compiled for logical-nc-config=%d, the "
                           "runtime's NEURON_LOGICAL_NC_CONFIG is %d" % (compiled_lnc, runtime))


def write_artifacts(neff, ntff):
    with open(neff, "w") as f:
        f.write("ACCELOPT-TEST-STAND-IN-NEFF\n")
    with open(ntff, "w") as f:
        t = _device_time[0] * (1 + 0.001 * (_calls[0] % 3))
        json.dump({"accelopt_test_stand_in": True, "total_time": t}, f)


# Test controls.
def fake_device_time(seconds):
    _device_time[0] = seconds


def fake_crash():
    os.kill(os.getpid(), signal.SIGSEGV)


def fake_hang():
    while True:
        pass


def fake_float64_output(x):
    return np.asarray(x, dtype=np.float64)


# What the identity kernels use, in numpy terms.
shared_hbm = "shared_hbm"
sbuf = "sbuf"


def ndarray(shape, dtype=np.float32, buffer=None, name=None):
    return np.empty(shape, dtype=dtype)


def load(x, dtype=None):
    return np.array(x, dtype=dtype or x.dtype)


def store(dst, value):
    dst[...] = value


def dma_copy(dst, src):
    dst[...] = src


# The nki.language compute calls NKIBench's kernels make, in numpy terms
# (both language modules answer unknown names from here, PEP 562). Test-only
# semantics: what the NKI ops compute, not how a NeuronCore does it.
def _axes(axis):
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


NUMPY_OPS = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
    "exp": np.exp, "sqrt": np.sqrt, "tanh": np.tanh, "maximum": np.maximum, "minimum": np.minimum,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "sigmoid": lambda x: 0.5 * (1.0 + np.tanh(0.5 * x)),
    "matmul": lambda a, b, transpose_x=False: np.matmul(a.T if transpose_x else a, b),
    "mean": lambda x, axis=None, keepdims=False, **kw: np.mean(x, axis=_axes(axis), keepdims=keepdims),
    "sum": lambda x, axis=None, keepdims=False, **kw: np.sum(x, axis=_axes(axis), keepdims=keepdims),
    "zeros": lambda shape, dtype=np.float32, **kw: np.zeros(shape, dtype=dtype),
    "affine_range": range, "sequential_range": range, "static_range": range,
}


def numpy_op(name):
    if name in NUMPY_OPS:
        return NUMPY_OPS[name]
    raise AttributeError("stand-in nki.language has no %r" % name)
