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
    def __init__(self, fn, lnc=None):
        self.fn = fn
        self.lnc = lnc

    def __getitem__(self, lnc):
        return Kernel(self.fn, lnc)

    def __call__(self, *inputs):
        if getattr(self.fn, "_accelopt_beta1", False) or getattr(self.fn, "__module__", "") == "neuronxcc.nki":
            raise RuntimeError("stand-in NKI compiler: a neuronxcc.nki kernel cannot be compiled by the nki package")
        _s.broken_core_check()
        _s.lnc_check(self.lnc if self.lnc is not None else int(os.environ.get("NEURON_LOGICAL_NC_CONFIG", "1")))
        _s._calls[0] += 1
        out = self.fn(*inputs)
        capture = os.environ.get("NEURON_RT_INSPECT_OUTPUT_DIR")
        if os.environ.get("NEURON_RT_INSPECT_ENABLE") == "1" and capture:
            os.makedirs(os.path.join(capture, "i-0"), exist_ok=True)
            n = _s._calls[0]
            _s.write_artifacts(os.path.join(capture, "i-0", "kernel_%d.neff" % n),
                               os.path.join(capture, "i-0", "kernel_%d_nc0.ntff" % n))
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
