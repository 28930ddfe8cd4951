"""accelopt's untrusted nki runner: loads a candidate NKI kernel, runs it on
the one NeuronCore it is given, and hands raw outputs and profiler artifacts
back to the C++ judge. Nothing it prints becomes a result: the judge compares
the outputs with its own float64 reference and reads device time itself
(neuron-profile on the artifacts listed here).

Run by the judge (evaluators/nki/runner_link.hpp) as
    <evaluators.nki.python> runner.py JOB_JSON
in its own process group, with limits, a timeout, no network, and the
environment NEURON_RT_VISIBLE_CORES=<core>, NEURON_RT_NUM_CORES=1,
NEURON_LOGICAL_NC_CONFIG=<lnc>, NEURON_CC_FLAGS=--auto-cast=none.

Two SDK generations (evaluators/nki/sdk.hpp; job["sdk"]["path"]):
"neuronxcc" (Neuron <= 2.27, nki.baremetal, the paper's; on 2.28..2.33 also
for a Beta 1 kernel the judge could not migrate) and "nki" (the nki package,
Neuron 2.28 and later; job["sdk"]["lnc_call"] says how the kernel's LNC is
set). On the nki path each timed execution is its own process
(job["timing"]["capture"] == "inspect"), started by the judge with the
runtime's inspect variables already set.

Channel: the process's original stdout (a pipe the judge reads); the runner
moves it to a private descriptor first and points fd 1 at stderr, so the
kernel's and the SDK's prints cannot mix into it. Records are JSON lines;
outputs are files in job["output_dir"] that the records name (any size,
nothing truncated; the judge checks each file's size against nbytes):
    {"type": "hello", "protocol": 2, "sdk": ..., "path": "neuronxcc" | "nki", "stand_in": bool}
    {"type": "output", "case": c, "index": k, "dtype": "float32", "elements": n, "nbytes": 4n, "file": name}
        (with "run": "warmup I" | "timed I" for the outputs of timing runs, case 0's inputs)
    {"type": "sample", "round": r, "iteration": i, "neff": path, "ntff": path}
        (inspect capture: the outputs of its warm-ups are "run": "i<I> warmup J")
    {"type": "error", "stage": "sdk" | "load" | "compile" | "run" | "output", "message": ...}
    {"type": "done"}

THE PARTS THAT NEED THE NEURON SDK are the classes NeuronxccSdk and
NkiPackageSdk below. Everything else is plain Python + numpy and is tested
on machines without the SDK against a test-only stand-in (tests/fakes/nki/),
which reports stand_in = true.
"""
import importlib.util
import json
import os
import sys
import traceback

import numpy as np

PROTOCOL = 2


class Channel:
    def __init__(self):
        self._out = os.fdopen(os.dup(1), "wb", buffering=0)
        os.dup2(2, 1)  # print() now goes to stderr
        sys.stdout = sys.stderr

    def record(self, header):
        self._out.write(json.dumps(header, separators=(",", ":")).encode() + b"\n")


class Outputs:
    """Outputs go to files in the evaluation's folder (job["output_dir"]),
    never through the channel: no size cap, nothing truncated. A record
    names the file; the judge checks its size and reads it in chunks."""

    def __init__(self, job, channel):
        self.dir = job["output_dir"]
        self.channel = channel

    def write(self, header, array, name):
        path = os.path.join(self.dir, name)
        data = np.ascontiguousarray(array).reshape(-1)
        with open(path, "wb") as f:
            data.tofile(f)
        header = dict(header, elements=int(data.size), nbytes=int(data.nbytes), file=name)
        self.channel.record(header)


class NeuronxccSdk:
    """Neuron up to 2.27: neuronxcc.nki (NKI Beta 1), as the AccelOpt
    recipe uses it (kernel_wrapper.py): nki.baremetal with the compile
    options, save_neff_name / save_trace_name for the timed runs."""

    path = "neuronxcc"

    def __init__(self, compile_options):
        import neuronxcc  # noqa: the SDK's compiler package
        import neuronxcc.nki as nki
        self.nki = nki
        self.compile_options = compile_options
        self.version = getattr(neuronxcc, "__version__", "unknown")
        # Only tests/fakes/nki defines this; the judge refuses such results
        # outside tests.
        self.stand_in = bool(getattr(neuronxcc, "ACCELOPT_TEST_STAND_IN", False))

    def run(self, fn, inputs, neff=None, ntff=None):
        kwargs = {"additional_compile_opt": self.compile_options}
        if not neff:
            return self.nki.baremetal(fn, **kwargs)(*inputs)
        kwargs["save_neff_name"] = neff
        kwargs["save_trace_name"] = ntff
        # The documented quirk: with save_trace_name the NEFF may be left as
        # file.neff in the working directory rather than under
        # save_neff_name. Run in the artifact folder and move it.
        here = os.getcwd()
        os.chdir(os.path.dirname(neff))
        try:
            result = self.nki.baremetal(fn, **kwargs)(*inputs)
        finally:
            os.chdir(here)
        quirk = os.path.join(os.path.dirname(neff), "file.neff")
        if not os.path.exists(neff) and os.path.exists(quirk):
            os.rename(quirk, neff)
        return result


class NkiPackageSdk:
    """Neuron 2.28 and later: the standalone nki package (NKI Beta 2 and
    later). A @nki.jit kernel called with numpy arrays is specialized,
    compiled to its own NEFF and run on the NeuronCore (Neuron docs, nki.jit:
    "np.ndarray: compiles and executes standalone kernel").

    LNC (job["sdk"]["lnc_call"], evaluators/nki/sdk.hpp): "bracket" on
    2.28..2.32, kernel[lnc](...) (nki.jit docs of 2.31: "The LNC value must
    match the NEURON_LOGICAL_NC_CONFIG environment variable ... Mismatching
    the two will cause a runtime error"); "env" from 2.33, the kernel called
    plainly and NEURON_LOGICAL_NC_CONFIG (set by the judge) alone decides.

    Device profiles: the judge starts this process with the runtime's
    inspect variables already set (Neuron Explorer "Environment Variables":
    NEURON_RT_* are read at run time, "Set them before the workload
    starts"); device profile mode 1 "Captures first execution per NEFF per
    core", so one process captures one timed execution, whose NEFF and NTFF
    are found in NEURON_RT_INSPECT_OUTPUT_DIR (how they are named is not
    documented beyond the example of the capture guide; the one .neff and
    one .ntff found are moved to the names the judge asked for)."""

    path = "nki"

    def __init__(self, compile_options, simulate=False, lnc_call="env", lnc=1):
        import nki
        self.nki = nki
        self.version = getattr(nki, "__version__", "unknown")
        self.stand_in = bool(getattr(nki, "ACCELOPT_TEST_STAND_IN", False))
        self.lnc_call = lnc_call
        self.lnc = int(lnc)
        # The CPU simulator (nki.simulate, NKI 0.3.0 / Neuron 2.29 and
        # later): correctness only, no device, no time.
        self.simulate = simulate
        if simulate and not hasattr(nki, "simulate"):
            raise ImportError("this nki package (%s) has no nki.simulate (NKI 0.3.0, Neuron 2.29, and later)"
                              % self.version)

    def call(self, fn, inputs):
        if self.lnc_call == "bracket":
            return fn[self.lnc](*inputs)
        return fn(*inputs)

    def run(self, fn, inputs, neff=None, ntff=None):
        if self.simulate:
            if neff:
                raise RuntimeError("the CPU simulator does not time kernels")
            return self.nki.simulate(fn)(*inputs)
        result = self.call(fn, inputs)
        if neff:
            self.collect(neff, ntff)
        return result

    @staticmethod
    def collect(neff, ntff):
        capture = os.environ.get("NEURON_RT_INSPECT_OUTPUT_DIR")
        if os.environ.get("NEURON_RT_INSPECT_ENABLE") != "1" or not capture:
            raise RuntimeError("the runtime's inspect variables were not set when this process started")
        found = {".neff": [], ".ntff": []}
        for root, _, files in os.walk(capture):
            for name in files:
                ext = os.path.splitext(name)[1]
                if ext in found:
                    found[ext].append(os.path.join(root, name))
        if len(found[".neff"]) != 1 or len(found[".ntff"]) != 1:
            raise RuntimeError("the runtime's inspect folder holds %d NEFF and %d NTFF files, expected one each"
                               % (len(found[".neff"]), len(found[".ntff"])))
        os.rename(found[".neff"][0], neff)
        os.rename(found[".ntff"][0], ntff)


def make_sdk(job):
    sdk = job.get("sdk", {})
    options = sdk.get("compile_options", "--disable-dge --logical-nc-config=1")
    if sdk.get("path", "neuronxcc") == "nki":
        return NkiPackageSdk(options, bool(sdk.get("simulate", False)), sdk.get("lnc_call", "env"),
                             sdk.get("lnc", 1))
    return NeuronxccSdk(options)


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
        sdk = make_sdk(job)
    except Exception as e:  # no SDK: the doctor names the fix
        channel.record({"type": "error", "stage": "sdk", "message": "the Neuron SDK cannot be imported: %s" % e})
        return 3
    outputs = Outputs(job, channel)
    channel.record({"type": "hello", "protocol": PROTOCOL, "sdk": sdk.version, "path": sdk.path,
                    "stand_in": sdk.stand_in})
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
            outputs.write({"type": "output", "case": case, "index": k, "dtype": "float32"}, a,
                          "c%d_k%d.f32" % (case, k))
    timing = job.get("timing")
    if timing:
        inputs = task.transform_to_nki_inputs(read_inputs(job, 0))
        r = int(timing["round"])
        try:
            # Every timed (and warm-up) run's outputs go back too: the judge
            # checks them against case 0, so a kernel cannot be right while
            # checked and something else while timed.
            # capture "inspect" (nki path): this process makes one captured
            # execution, iteration job["timing"]["iteration"], after the
            # warm-ups the runtime skips (NUM_WARMUP, set by the judge).
            art = job["artifact_dir"]
            if timing.get("capture") == "inspect":
                it = int(timing["iteration"])
                runs = [("i%d warmup" % it, j, None, None) for j in range(int(timing["warmup"]))]
                runs.append(("timed", it, os.path.join(art, "r%d_i%d.neff" % (r, it)),
                             os.path.join(art, "r%d_i%d.ntff" % (r, it))))
            else:
                runs = [("warmup", i, None, None) for i in range(int(timing["warmup"]))]
                for i in range(int(timing["iterations"])):
                    runs.append(("timed", i, os.path.join(art, "r%d_i%d.neff" % (r, i)),
                                 os.path.join(art, "r%d_i%d.ntff" % (r, i))))
            for kind, i, neff, ntff in runs:
                result = sdk.run(fn, inputs, neff, ntff)
                outs = result if isinstance(result, (tuple, list)) else (result,)
                for k, out in enumerate(outs):
                    a = np.asarray(out)
                    header = {"type": "output", "case": 0, "index": k, "dtype": str(a.dtype),
                              "run": "%s %d" % (kind, i)}
                    if a.dtype == np.float32:
                        outputs.write(header, a, "r%d_%s%d_k%d.f32" % (r, kind.replace(" ", "_"), i, k))
                    else:
                        channel.record(dict(header, elements=int(a.size), nbytes=0))
                if neff:
                    channel.record({"type": "sample", "round": r, "iteration": i, "neff": neff, "ntff": ntff})
        except Exception:
            channel.record({"type": "error", "stage": "run", "message": traceback.format_exc(limit=4)})
            return 1
    channel.record({"type": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
