"""accelopt's trusted nki reference process: runs a problem's numpy
reference (reference.py, copied from the user's AccelOpt checkout by
`accelopt-eval import nkibench`) on the judge's inputs widened to float64,
and returns its outputs as float64 to the judge. Trusted code only: it never
loads a candidate. Run by the judge under a plain Python with numpy
(evaluators.nki.reference_python), with a timeout and no network.

    python3 reference_runner.py JOB_JSON

Same job file and records as runner.py; outputs are float64 files in
job["reference_dir"] (one case in memory at a time):
    {"type": "output", "case": c, "index": k, "dtype": "float64", "elements": n, "nbytes": 8n, "file": name}
    {"type": "error", "stage": "load" | "run", "message": ...}
    {"type": "done"}
"""
import importlib.util
import json
import os
import sys
import traceback

import numpy as np


def main():
    out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def record(header):
        out.write(json.dumps(header, separators=(",", ":")).encode() + b"\n")

    with open(sys.argv[1]) as f:
        job = json.load(f)
    try:
        spec = importlib.util.spec_from_file_location("accelopt_nki_reference", job["reference"])
        task = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(task)
    except Exception:
        record({"type": "error", "stage": "load", "message": traceback.format_exc(limit=4)})
        return 1
    with open(job["inputs_file"], "rb") as f:
        for case in range(int(job["cases"])):
            args = []
            for s in job["inputs"]:
                if s["kind"] == "scalar":
                    args.append(float(s["value"]))
                    continue
                n = int(np.prod(s["shape"]))
                f.seek(int(s["offset"]) + case * int(job["case_stride"]))
                args.append(np.fromfile(f, dtype=np.float32, count=n).astype(np.float64).reshape(s["shape"]))
            try:
                res = task.forward(*args)
            except Exception:
                record({"type": "error", "stage": "run", "message": traceback.format_exc(limit=4)})
                return 1
            outs = res if isinstance(res, (tuple, list)) else (res,)
            for k, o in enumerate(outs):
                data = np.ascontiguousarray(np.asarray(o, dtype=np.float64)).reshape(-1)
                name = "c%d_k%d.f64" % (case, k)
                with open(os.path.join(job["reference_dir"], name), "wb") as g:
                    data.tofile(g)
                record({"type": "output", "case": case, "index": k, "dtype": "float64",
                        "elements": int(data.size), "nbytes": int(data.nbytes), "file": name})
            del res, outs, args
    record({"type": "done"})
    return 0


if __name__ == "__main__":
    sys.exit(main())
