"""TEST-ONLY stand-in for neuronxcc.nki: jit is the identity, baremetal calls
the kernel on numpy arrays, profiler artifacts are marker files."""
import json
import os

from . import language  # noqa: F401


def jit(fn=None, **kwargs):
    if fn is None:
        return lambda f: f
    return fn


def baremetal(fn, save_neff_name=None, save_trace_name=None, additional_compile_opt=None, **kwargs):
    if additional_compile_opt != "--disable-dge --logical-nc-config=1":
        raise RuntimeError("stand-in: unexpected compile options %r" % (additional_compile_opt,))

    def run(*inputs):
        # Test control: a "broken" NeuronCore (ACCELOPT_STAND_IN_BROKEN_CORE).
        broken = os.environ.get("ACCELOPT_STAND_IN_BROKEN_CORE")
        if broken is not None and broken == os.environ.get("NEURON_RT_VISIBLE_CORES"):
            os.write(2, b"stand-in: NeuronCore does not answer; aborting like a runtime fault\n")
            os.abort()
        language._calls[0] += 1
        out = fn(*inputs)
        if save_neff_name:
            with open(save_neff_name, "w") as f:
                f.write("ACCELOPT-TEST-STAND-IN-NEFF\n")
            with open(save_trace_name, "w") as f:
                t = language._device_time[0] * (1 + 0.001 * (language._calls[0] % 3))
                json.dump({"accelopt_test_stand_in": True, "total_time": t}, f)
        return out

    return run
