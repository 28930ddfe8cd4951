"""accelopt's untrusted nki runner: loads a candidate NKI kernel, runs it on
the one NeuronCore it is given, and hands raw outputs and profiler artifacts
back to the C++ judge. Nothing it prints becomes a result: the judge compares
the outputs with its own float64 reference and reads device time itself
(neuron-profile on the artifacts listed here).

Run by the judge (evaluators/nki/runner_link.hpp) as
    <evaluators.nki.python> runner.py JOB_JSON
in its own process group, with limits, a timeout, no network, and the
environment NEURON_RT_VISIBLE_CORES=<core>, NEURON_RT_NUM_CORES=1,
NEURON_CC_FLAGS=--auto-cast=none.

Channel: the process's original stdout (a pipe the judge reads); the runner
moves it to a private descriptor first and points fd 1 at stderr, so the
kernel's and the SDK's prints cannot mix into it. Records: one JSON line,
then `nbytes` raw bytes when it says so:
    {"type": "hello", "protocol": 1, "sdk": ..., "stand_in": bool}
    {"type": "output", "case": c, "index": k, "dtype": "float32", "elements": n, "nbytes": 4n}
        (with "run": "warmup I" | "timed I" for the outputs of timing runs, case 0's inputs)
    {"type": "sample", "round": r, "iteration": i, "neff": path, "ntff": path}
    {"type": "error", "stage": "sdk" | "load" | "compile" | "run" | "output", "message": ...}
    {"type": "done"}

THE PART THAT NEEDS THE NEURON SDK is the class NeuronSdk below (imports of
neuronxcc, nki.baremetal with the paper's compile options). Everything else
is plain Python + numpy and is tested on machines without the SDK against a
test-only stand-in (tests/fakes/nki/), which reports stand_in = true.
"""
import importlib.util
import json
import os
import sys
import traceback

import numpy as np

PROTOCOL = 1


class Channel:
    def __init__(self):
        self._out = os.fdopen(os.dup(1), "wb", buffering=0)
        os.dup2(2, 1)  # print() now goes to stderr
        sys.stdout = sys.stderr

    def record(self, header, payload=b""):
        line = json.dumps(header, separators=(",", ":")).encode() + b"\n"
        self._out.write(line)
        if payload:
            view = memoryview(payload)
            while view:
                n = self._out.write(view)
                view = view[n:]


class NeuronSdk:
    """The Neuron SDK, as the AccelOpt recipe uses it (kernel_wrapper.py)."""

    COMPILE_OPTIONS = "--disable-dge --logical-nc-config=1"

    def __init__(self):
        import neuronxcc  # noqa: the SDK's compiler package
        import neuronxcc.nki as nki
        self.nki = nki
        self.version = getattr(neuronxcc, "__version__", "unknown")
        # Only tests/fakes/nki defines this; the judge refuses such results
        # outside tests.
        self.stand_in = bool(getattr(neuronxcc, "ACCELOPT_TEST_STAND_IN", False))

    def run(self, fn, inputs, neff=None, ntff=None):
        kwargs = {"additional_compile_opt": self.COMPILE_OPTIONS}
        if neff:
            kwargs["save_neff_name"] = neff
            kwargs["save_trace_name"] = ntff
        return self.nki.baremetal(fn, **kwargs)(*inputs)


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError("cannot load " + path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_inputs(job, case):
    arrays = []
    with open(job["inputs_file"], "rb") as f:
        for spec in job["inputs"]:
            if spec["kind"] == "scalar":
                arrays.append(float(spec["value"]))
                continue
            n = int(np.prod(spec["shape"]))
            f.seek(int(spec["offset"]) + case * int(job["case_stride"]))
            a = np.fromfile(f, dtype=np.float32, count=n)
            if a.size != n:
                raise ValueError("short inputs file")
            arrays.append(a.reshape(spec["shape"]))
    return arrays


def main():
    channel = Channel()
    with open(sys.argv[1]) as f:
        job = json.load(f)
    try:
        sdk = NeuronSdk()
    except Exception as e:  # no SDK: the doctor names the fix
        channel.record({"type": "error", "stage": "sdk", "message": "the Neuron SDK cannot be imported: %s" % e})
        return 3
    channel.record({"type": "hello", "protocol": PROTOCOL, "sdk": sdk.version, "stand_in": sdk.stand_in})
    try:
        task = load_module(job["reference"], "accelopt_nki_reference")
        module = load_module(job["kernel"], "accelopt_nki_candidate")
        fn = getattr(module, job["function"], None)
        if fn is None:
            fn = getattr(module, "kernel", None) or getattr(module, "optimized_kernel", None)
        if fn is None:
            raise ValueError("the module defines neither %s, kernel nor optimized_kernel" % job["function"])
    except Exception:
        channel.record({"type": "error", "stage": "load", "message": traceback.format_exc(limit=4)})
        return 1
    expected = job["outputs"]
    for case in range(int(job["cases"])):
        inputs = read_inputs(job, case)
        try:
            result = sdk.run(fn, task.transform_to_nki_inputs(inputs))
        except Exception:
            channel.record({"type": "error", "stage": "compile" if case == 0 else "run",
                            "message": traceback.format_exc(limit=4)})
            return 1
        outs = result if isinstance(result, (tuple, list)) else (result,)
        if len(outs) != len(expected):
            channel.record({"type": "error", "stage": "output",
                            "message": "the kernel returned %d outputs, expected %d" % (len(outs), len(expected))})
            return 1
        for k, out in enumerate(outs):
            a = np.asarray(out)
            if a.dtype != np.float32:
                channel.record({"type": "error", "stage": "output",
                                "message": "output %d has dtype %s, expected float32" % (k, a.dtype)})
                return 1
            data = np.ascontiguousarray(a).reshape(-1).tobytes()
            channel.record({"type": "output", "case": case, "index": k, "dtype": "float32",
                            "elements": int(a.size), "nbytes": len(data)}, data)
    timing = job.get("timing")
    if timing:
        inputs = task.transform_to_nki_inputs(read_inputs(job, 0))
        r = int(timing["round"])
        try:
            # Every timed (and warm-up) run's outputs go back too: the judge
            # checks them against case 0, so a kernel cannot be right while
            # checked and something else while timed.
            runs = [("warmup", i, None, None) for i in range(int(timing["warmup"]))]
            for i in range(int(timing["iterations"])):
                runs.append(("timed", i, os.path.join(job["artifact_dir"], "r%d_i%d.neff" % (r, i)),
                             os.path.join(job["artifact_dir"], "r%d_i%d.ntff" % (r, i))))
            for kind, i, neff, ntff in runs:
                result = sdk.run(fn, inputs, neff, ntff)
                outs = result if isinstance(result, (tuple, list)) else (result,)
                for k, out in enumerate(outs):
                    a = np.asarray(out)
                    data = np.ascontiguousarray(a).reshape(-1).tobytes() if a.dtype == np.float32 else b""
                    channel.record({"type": "output", "case": 0, "index": k, "dtype": str(a.dtype),
                                    "elements": int(a.size), "nbytes": len(data), "run": "%s %d" % (kind, i)}, data)
                if neff:
                    channel.record({"type": "sample", "round": r, "iteration": i, "neff": neff, "ntff": ntff})
        except Exception:
            channel.record({"type": "error", "stage": "run", "message": traceback.format_exc(limit=4)})
            return 1
    channel.record({"type": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
