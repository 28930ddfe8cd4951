"""TEST-ONLY stand-in for the standalone nki package (Neuron 2.27 and later):
a @nki.jit kernel called with numpy arrays runs on them (standalone
execution); with the runtime's inspect variables set it leaves a marker NEFF
and NTFF in NEURON_RT_INSPECT_OUTPUT_DIR. Importable only when
ACCELOPT_STAND_IN_SDK says 2.27 or later."""
import os

import accelopt_stand_in as _s

if _s.RELEASE < 27:
    raise ImportError("stand-in: no nki package before Neuron 2.27")

__version__ = _s.NKI_VERSION
ACCELOPT_TEST_STAND_IN = True

from . import isa, language  # noqa: F401,E402


class Kernel:
    """LNC (nki.jit docs): 2.28..2.32, the call site's bracket LNC (default 1)
    "must match the NEURON_LOGICAL_NC_CONFIG environment variable set for the
    Neuron Runtime. Mismatching the two will cause a runtime error" (v2.31.0
    nki.jit); from 2.33 the kernel takes NEURON_LOGICAL_NC_CONFIG ("Configure
    the LNC ... by setting the NEURON_LOGICAL_NC_CONFIG environment variable",
    v2.33.1 nki.jit), and a bracket that differs is an error (EVRF066)."""

    def __init__(self, fn, lnc=None):
        self.fn = fn
        self.lnc = lnc

    def __getitem__(self, lnc):
        return Kernel(self.fn, lnc)

    def __call__(self, *inputs):
        if getattr(self.fn, "_accelopt_beta1", False) or getattr(self.fn, "__module__", "") == "neuronxcc.nki":
            raise RuntimeError("stand-in NKI compiler: a neuronxcc.nki kernel cannot be compiled by the nki package")
        _s.broken_core_check()
        env_lnc = int(os.environ.get("NEURON_LOGICAL_NC_CONFIG", "1"))
        if _s.RELEASE >= 33:
            _s.lnc_check(self.lnc if self.lnc is not None else env_lnc)
        else:
            _s.lnc_check(self.lnc if self.lnc is not None else 1)
        _s._calls[0] += 1
        out = self.fn(*inputs)
        _s.inspect_capture(self.fn.__module__ + "." + self.fn.__qualname__)
        return out


def jit(fn=None, **kwargs):
    return (lambda f: Kernel(f)) if fn is None else Kernel(fn)


if _s.RELEASE >= 29:
    def simulate(kernel):
        """Stand-in for nki.simulate (NKI 0.3.0 and later): runs the kernel's
        numpy code on the CPU, no device, no artifacts."""
        fn = kernel.fn if isinstance(kernel, Kernel) else kernel

        def run(*inputs):
            return fn(*inputs)
        return run
