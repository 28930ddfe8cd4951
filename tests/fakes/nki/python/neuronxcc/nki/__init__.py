"""TEST-ONLY stand-in for neuronxcc.nki (NKI Beta 1): jit marks the kernel,
baremetal calls it on numpy arrays, profiler artifacts are marker files."""
import os

import accelopt_stand_in as _s

if _s.RELEASE >= 34:
    raise ImportError("stand-in: Neuron 2.34 removed the neuronxcc.nki namespace")

from . import language  # noqa: F401,E402


def jit(fn=None, **kwargs):
    def mark(f):
        f._accelopt_beta1 = True
        return f
    return mark if fn is None else mark(fn)


def baremetal(fn, save_neff_name=None, save_trace_name=None, additional_compile_opt=None, **kwargs):
    opts = (additional_compile_opt or "").split()
    lnc = [o for o in opts if o.startswith("--logical-nc-config=")]
    if "--disable-dge" not in opts or len(lnc) != 1 or len(opts) != 2:
        raise RuntimeError("stand-in: unexpected compile options %r" % (additional_compile_opt,))
    # The docs disagree on 2.28..2.33 ("Announcing the removal of the
    # neuronxcc.nki namespace ... in Neuron 2.34": a compile error "in Neuron
    # 2.28 and later"; the 2.28/2.29 NKI notes: removal "postponed"):
    # ACCELOPT_STAND_IN_BETA1_READING=postponed models the latter.
    if _s.RELEASE >= 28 and os.environ.get("ACCELOPT_STAND_IN_BETA1_READING") != "postponed":
        raise RuntimeError("stand-in compiler: neuronxcc.nki inside a kernel is a compile error from Neuron 2.28")

    def run(*inputs):
        _s.broken_core_check()
        _s.lnc_check(int(lnc[0].split("=")[1]))
        _s._calls[0] += 1
        out = fn(*inputs)
        if save_neff_name:
            # ACCELOPT_STAND_IN_FILE_NEFF: the documented quirk, the NEFF left
            # as file.neff in the working directory.
            neff = "file.neff" if os.environ.get("ACCELOPT_STAND_IN_FILE_NEFF") else save_neff_name
            _s.write_artifacts(neff, save_trace_name)
        return out

    return run
