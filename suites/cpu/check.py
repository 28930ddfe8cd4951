#!/usr/bin/env python3
"""Sanity checker for suites/cpu problems -- a tool for people adding problems.

This is NOT the product's evaluator (that is `accelopt-eval`, evaluators/). It
only answers, for each problem folder: is problem.json well formed and
consistent (param kinds, shapes, flops/bytes against their formulas)? Does the
baseline compile together with the reference? Does the fp32 baseline meet the
tolerance against the double reference for every seed and every adversarial
case, without touching its inputs? How long does one baseline call take?

For each problem it writes a C++ driver generated from problem.json, compiles
driver + baseline.cpp + reference.cpp with `g++ -O3 -march=native`, runs it and
prints one table row. Inputs are drawn with std::mt19937_64 seeded by
(seed, parameter index); the evaluator draws its own numbers, so values differ
from accelopt-eval's but the distributions are the same.

Usage:
    suites/cpu/check.py                    # every problem under suites/cpu
    suites/cpu/check.py silu adamw         # only these
    suites/cpu/check.py --no-time          # correctness only
    suites/cpu/check.py --seeds 0,21 --keep-build /tmp/chk
    suites/cpu/check.py gqa_full --kernel /tmp/no_max.cpp   # must FAIL
    suites/cpu/check.py --known-wrong      # every <problem>/known_wrong/*.cpp must FAIL

Exit status: 0 when every problem passes, 1 otherwise.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SEEDS = [0, 21, 42, 63, 84]
KINDS = ("input", "output", "scalar", "dim")
# kind -> {field: default}; None marks a required field (docs/contracts.md).
DIST_KINDS = {"normal": {"mean": 0.0, "std": 1.0}, "uniform": {"low": 0.0, "high": 1.0},
              "abs_normal": {"std": 1.0, "offset": 0.0}, "constant": {"value": None}}
BOUNDS = ("memory", "vector", "matmul")
REQUIRED = ("name", "backend", "description", "workload", "function", "params", "dims",
            "paper_dims", "adversarial", "flops", "flops_formula", "bytes", "bytes_formula",
            "bound", "tolerance")


def fail(msg):
    raise ValueError(msg)


def element_count(shape, dims):
    n = 1
    for s in shape:
        if isinstance(s, int):
            if s <= 0:
                fail(f"shape literal {s} must be positive")
            n *= s
        elif s in dims:
            n *= dims[s]
        else:
            fail(f"shape entry {s!r} is neither a positive integer nor a dim")
    return n


def validate(p, folder):
    """Checks problem.json against docs/contracts.md; returns a list of warnings."""
    for key in REQUIRED:
        if key not in p:
            fail(f"missing field {key!r}")
    if p["name"] != os.path.basename(folder):
        fail(f"name {p['name']!r} differs from folder {os.path.basename(folder)!r}")
    if p["bound"] not in BOUNDS:
        fail(f"bound must be one of {BOUNDS}")
    names = [q["name"] for q in p["params"]]
    if len(set(names)) != len(names):
        fail("duplicate parameter names")
    dims = p["dims"]
    for q in p["params"]:
        kind = q.get("kind")
        if kind not in KINDS:
            fail(f"param {q.get('name')}: kind must be one of {KINDS}")
        if kind in ("input", "output"):
            if q.get("dtype") != "float32":
                fail(f"param {q['name']}: only float32 arrays are supported")
            element_count(q["shape"], dims)
        if kind == "input":
            check_dist(q.get("distribution"), q["name"])
        if kind == "scalar" and not isinstance(q.get("value"), (int, float)):
            fail(f"scalar {q['name']} needs a numeric value")
        if kind == "dim" and q["name"] not in dims:
            fail(f"dim {q['name']} has no value in dims")
    dim_params = {q["name"] for q in p["params"] if q["kind"] == "dim"}
    if set(dims) != dim_params:
        fail(f"dims {sorted(dims)} differ from dim params {sorted(dim_params)}")
    if not any(q["kind"] == "output" for q in p["params"]):
        fail("no output parameter")
    inputs = {q["name"] for q in p["params"] if q["kind"] == "input"}
    for a in p["adversarial"]:
        if a.get("param") not in inputs:
            fail(f"adversarial entry names {a.get('param')!r}, not an input")
        check_dist(a.get("distribution"), a["param"])
    for key in ("flops", "bytes"):
        want = eval(p[key + "_formula"], {"__builtins__": {}}, dict(dims))
        if want != p[key]:
            fail(f"{key} = {p[key]} but {key}_formula gives {want}")
    arrays = sum(element_count(q["shape"], dims) for q in p["params"] if q["kind"] in ("input", "output"))
    if p["bytes"] != 4 * arrays:
        fail(f"bytes = {p['bytes']} but inputs + outputs hold {4 * arrays} bytes")
    fn = p["function"]
    for path, sig in (("baseline.cpp", fn), ("reference.cpp", fn + "_reference")):
        text = open(os.path.join(folder, path)).read()
        if not re.search(r'extern\s+"C"\s+void\s+' + re.escape(sig) + r"\s*\(", text):
            fail(f'{path} does not define extern "C" void {sig}(...)')
    return []


def check_dist(d, name):
    if not isinstance(d, dict) or d.get("kind") not in DIST_KINDS:
        fail(f"{name}: distribution kind must be one of {sorted(DIST_KINDS)}")
    for field, default in DIST_KINDS[d["kind"]].items():
        if not isinstance(d.get(field, default), (int, float)):
            fail(f"{name}: distribution {d['kind']} needs a number for {field}")


def cases_of(p):
    """[(case name, {input: distribution})]: the default case, then each adversarial case."""
    base = {q["name"]: q["distribution"] for q in p["params"] if q["kind"] == "input"}
    cases = [("default", dict(base))]
    order, by_case = [], {}
    for i, a in enumerate(p["adversarial"]):
        key = a.get("case", f"#{i}:{a['param']}")
        if key not in by_case:
            by_case[key] = dict(base)
            order.append(key)
        by_case[key][a["param"]] = a["distribution"]
    return cases + [(k, by_case[k]) for k in order]


def dist_code(d):
    """C++ initializer {kind, a, b} for the driver's Dist (fields in DIST_KINDS order)."""
    fields = DIST_KINDS[d["kind"]]
    vals = [float(d.get(f, 0.0 if default is None else default)) for f, default in fields.items()]
    vals += [0.0] * (2 - len(vals))
    return f"{{{list(DIST_KINDS).index(d['kind'])}, {vals[0]!r}, {vals[1]!r}}}"


def driver_source(p):
    fn, dims, params = p["function"], p["dims"], p["params"]
    arrays = [q for q in params if q["kind"] in ("input", "output")]
    inputs = [q for q in params if q["kind"] == "input"]
    cases = cases_of(p)
    f_args, d_args, f_decl, d_decl = [], [], [], []
    for q in params:
        k, n = q["kind"], q["name"]
        if k == "input":
            f_decl.append(f"const float* {n}"); d_decl.append(f"const double* {n}")
            f_args.append(f"f_{n}.data()"); d_args.append(f"d_{n}.data()")
        elif k == "output":
            f_decl.append(f"float* {n}"); d_decl.append(f"double* {n}")
            f_args.append(f"f_{n}.data()"); d_args.append(f"d_{n}.data()")
        elif k == "scalar":
            v = float(q["value"])
            f_decl.append(f"float {n}"); d_decl.append(f"double {n}")
            f_args.append(f"static_cast<float>({v!r})")
            d_args.append(f"static_cast<double>(static_cast<float>({v!r}))")
        else:
            f_decl.append(f"int64_t {n}"); d_decl.append(f"int64_t {n}")
            f_args.append(f"int64_t{{{dims[n]}}}"); d_args.append(f"int64_t{{{dims[n]}}}")
    L = []
    w = L.append
    w("#include <chrono>\n#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstdlib>")
    w("#include <algorithm>\n#include <random>\n#include <vector>\n#include <cstring>")
    w(f'extern "C" void {fn}({", ".join(f_decl)});')
    w(f'extern "C" void {fn}_reference({", ".join(d_decl)});')
    w("struct Dist { int kind; double a, b; };  // 0 normal(mean, std), 1 uniform(low, high), 2 abs_normal(std, offset), 3 constant(value)")
    w("static void fill(std::vector<float>& v, Dist d, uint64_t seed, uint64_t index) {")
    w("  std::seed_seq seq{seed, index, uint64_t{0x5eed}};")
    w("  std::mt19937_64 rng(seq);")
    w("  std::normal_distribution<double> normal(0.0, 1.0);")
    w("  std::uniform_real_distribution<double> uniform(0.0, 1.0);")
    w("  for (auto& x : v) {")
    w("    if (d.kind == 0) x = static_cast<float>(d.a + d.b * normal(rng));")
    w("    else if (d.kind == 1) x = static_cast<float>(d.a + (d.b - d.a) * uniform(rng));")
    w("    else if (d.kind == 2) x = static_cast<float>(std::fabs(d.a * normal(rng)) + d.b);")
    w("    else x = static_cast<float>(d.a);")
    w("  }")
    w("}")
    w("static double rel_l2(const std::vector<float>& got, const std::vector<double>& ref) {")
    w("  double num = 0, den = 0;")
    w("  for (size_t i = 0; i < ref.size(); ++i) {")
    w("    if (!std::isfinite(got[i]) && std::isfinite(ref[i])) return INFINITY;")
    w("    const double e = double(got[i]) - ref[i]; num += e * e; den += ref[i] * ref[i];")
    w("  }")
    w("  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);")
    w("}")
    w("static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }")
    w("int main(int argc, char** argv) {")
    w("  const bool timing = argc > 1 && std::strcmp(argv[1], \"time\") == 0;")
    w("  std::vector<uint64_t> seeds;")
    w("  for (int i = 2; i < argc; ++i) seeds.push_back(std::strtoull(argv[i], nullptr, 10));")
    for q in arrays:
        n, cnt = q["name"], element_count(q["shape"], dims)
        w(f"  std::vector<float> f_{n}({cnt}); std::vector<double> d_{n}({cnt});")
        if q["kind"] == "input":
            w(f"  std::vector<float> keep_{n}({cnt});")
    w(f"  static const char* kCase[] = {{{', '.join(json.dumps(c[0]) for c in cases)}}};")
    w(f"  static const Dist kDist[][{len(inputs)}] = {{")
    for _, dists in cases:
        w("    {" + ", ".join(dist_code(dists[q["name"]]) for q in inputs) + "},")
    w("  };")
    w(f"  for (int c = 0; c < {len(cases)}; ++c) {{")
    w("    for (uint64_t seed : seeds) {")
    for i, q in enumerate(inputs):
        n = q["name"]
        w(f"      fill(f_{n}, kDist[c][{i}], seed, {i});")
        w(f"      std::copy(f_{n}.begin(), f_{n}.end(), d_{n}.begin());")
        w(f"      keep_{n} = f_{n};")
    for q in arrays:
        if q["kind"] == "output":
            w(f"      std::fill(f_{q['name']}.begin(), f_{q['name']}.end(), NAN);")
    w("      double t0 = now();")
    w(f"      {fn}_reference({', '.join(d_args)});")
    w("      double t1 = now();")
    w(f"      {fn}({', '.join(f_args)});")
    w("      double t2 = now();")
    w("      int changed = 0;")
    for q in inputs:
        n = q["name"]
        w(f"      if (std::memcmp(keep_{n}.data(), f_{n}.data(), keep_{n}.size() * sizeof(float)) != 0) changed = 1;")
    w("      double worst = 0; int finite_ref = 1;")
    for q in arrays:
        if q["kind"] == "output":
            n = q["name"]
            w(f"      for (double r : d_{n}) if (!std::isfinite(r)) finite_ref = 0;")
            w(f"      {{ double e = rel_l2(f_{n}, d_{n}); if (!(e <= worst)) worst = e; }}")
    w("      char err[32];")
    w('      if (std::isnan(worst)) std::snprintf(err, sizeof err, "NaN");')
    w('      else if (std::isinf(worst)) std::snprintf(err, sizeof err, "Infinity");')
    w('      else std::snprintf(err, sizeof err, "%.6g", worst);')
    w('      std::printf("{\\"case\\": \\"%s\\", \\"seed\\": %llu, \\"rel_l2\\": %s, \\"inputs_changed\\": %d, '
      '\\"finite_reference\\": %d, \\"ref_s\\": %.6f, \\"call_s\\": %.6f}\\n", kCase[c], '
      '(unsigned long long)seed, err, changed, finite_ref, t1 - t0, t2 - t1);')
    w("      std::fflush(stdout);")
    w("    }")
    w("  }")
    w("  if (timing) {")
    for i, q in enumerate(inputs):
        w(f"    fill(f_{q['name']}, kDist[0][{i}], 0, {i});")
    w(f"    {fn}({', '.join(f_args)});")
    w("    std::vector<double> samples;")
    w("    double start = now();")
    w("    while (samples.size() < 3 || (samples.size() < 15 && now() - start < 1.0)) {")
    w("      double a = now();")
    w(f"      {fn}({', '.join(f_args)});")
    w("      samples.push_back(now() - a);")
    w("    }")
    w("    std::sort(samples.begin(), samples.end());")
    w('    std::printf("{\\"timing\\": true, \\"median_s\\": %.6f, \\"min_s\\": %.6f, \\"runs\\": %zu}\\n", '
      "samples[samples.size() / 2], samples[0], samples.size());")
    w("  }")
    w("  return 0;")
    w("}")
    return "\n".join(L) + "\n"


def check_problem(folder, args, build):
    p = json.load(open(os.path.join(folder, "problem.json")))
    validate(p, folder)
    driver = os.path.join(build, p["name"] + "_driver.cpp")
    exe = os.path.join(build, p["name"])
    with open(driver, "w") as f:
        f.write(driver_source(p))
    cmd = [args.cxx, "-O3", "-march=native", "-std=c++20", "-o", exe, driver,
           args.kernel or os.path.join(folder, "baseline.cpp"), os.path.join(folder, "reference.cpp")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("compile failed:\n" + r.stderr[-3000:])
    run = [exe, "time" if args.time else "check"] + [str(s) for s in args.seeds]
    r = subprocess.run(run, capture_output=True, text=True, timeout=args.timeout)
    if r.returncode != 0:
        fail(f"driver exited with {r.returncode}:\n{r.stderr[-2000:]}")
    rows = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    return p, rows


def rejections(p, rows):
    """Why a run fails: the (case, reason) pairs, deduplicated over seeds."""
    out = []
    for r in rows:
        if "case" not in r:
            continue
        if not (r["rel_l2"] < p["tolerance"]):
            out.append((r["case"], f"rel_l2 {r['rel_l2']:.3g}"))
        if r["inputs_changed"]:
            out.append((r["case"], "modified an input"))
    seen, unique = set(), []
    for case, why in out:
        if case not in seen:
            seen.add(case)
            unique.append(f"{case} ({why})")
    return unique


def check_known_wrong(names, args, build):
    """Each known-wrong kernel must be rejected; returns the exit status."""
    args.time = False
    all_ok = True
    for name in names:
        folder = os.path.join(args.suite, name)
        wrong_dir = os.path.join(folder, "known_wrong")
        if not os.path.isdir(wrong_dir):
            continue
        for f in sorted(os.listdir(wrong_dir)):
            if not f.endswith(".cpp"):
                continue
            args.kernel = os.path.join(wrong_dir, f)
            label = f"{name}/{f}"
            try:
                p, rows = check_problem(folder, args, build)
            except (ValueError, subprocess.TimeoutExpired, json.JSONDecodeError, OSError) as e:
                all_ok = False
                print(f"{label:48} ERROR {str(e).splitlines()[0]}")
                continue
            why = rejections(p, rows)
            all_ok &= bool(why)
            print(f"{label:48} {'rejected by ' + ', '.join(why) if why else 'NOT REJECTED'}")
    return 0 if all_ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("problems", nargs="*", help="problem names (default: every folder with a problem.json)")
    ap.add_argument("--suite", default=HERE, help="suite folder (default: this script's folder)")
    ap.add_argument("--seeds", default=",".join(map(str, DEFAULT_SEEDS)))
    ap.add_argument("--no-time", dest="time", action="store_false", help="skip the timing runs")
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--keep-build", help="write drivers and binaries here instead of a temp folder")
    ap.add_argument("--kernel", help="check this source instead of baseline.cpp (one problem only); "
                    "use it to confirm that a known-wrong kernel is rejected")
    ap.add_argument("--known-wrong", action="store_true",
                    help="instead of the baselines, check every <problem>/known_wrong/*.cpp and "
                    "succeed only if each one is rejected")
    ap.add_argument("--json", action="store_true", help="print one JSON object per problem instead of a table")
    args = ap.parse_args()
    args.seeds = [int(s) for s in args.seeds.split(",") if s]
    if args.kernel and len(args.problems) != 1:
        ap.error("--kernel needs exactly one problem name")
    names = args.problems or sorted(d for d in os.listdir(args.suite)
                                    if os.path.isfile(os.path.join(args.suite, d, "problem.json")))
    build = args.keep_build or tempfile.mkdtemp(prefix="suite-check-")
    os.makedirs(build, exist_ok=True)
    if args.known_wrong:
        return check_known_wrong(names, args, build)
    if not args.json:
        print(f"{'problem':24} {'dims':34} {'ms/call':>8} {'GFLOP/s':>8} {'GB/s':>6} "
              f"{'default err':>11} {'worst adversarial':>28} {'tol':>7}  result")
    all_ok = True
    for name in names:
        folder = os.path.join(args.suite, name)
        try:
            p, rows = check_problem(folder, args, build)
        except (ValueError, subprocess.TimeoutExpired, json.JSONDecodeError, OSError) as e:
            all_ok = False
            print(f"{name:24} ERROR {e}")
            continue
        tol = p["tolerance"]
        checks = [r for r in rows if "case" in r]
        timing = next((r for r in rows if r.get("timing")), None)
        problems = []
        for r in checks:
            if not (r["rel_l2"] < tol):
                problems.append(f"{r['case']}/seed{r['seed']}: rel_l2 {r['rel_l2']:.3g}")
            if r["inputs_changed"]:
                problems.append(f"{r['case']}/seed{r['seed']}: baseline modified an input")
            if not r["finite_reference"]:
                problems.append(f"{r['case']}/seed{r['seed']}: reference output not finite")
        default_err = max((r["rel_l2"] for r in checks if r["case"] == "default"), default=float("nan"))
        adv = [r for r in checks if r["case"] != "default"]
        worst = max(adv, key=lambda r: r["rel_l2"], default=None)
        ok = not problems
        all_ok &= ok
        if args.json:
            print(json.dumps({"problem": name, "ok": ok, "problems": problems, "rows": rows}))
            continue
        dims = " ".join(f"{k}{v}" for k, v in p["dims"].items())
        ms = timing["median_s"] * 1e3 if timing else float("nan")
        gflops = p["flops"] / timing["median_s"] / 1e9 if timing else float("nan")
        gbs = p["bytes"] / timing["median_s"] / 1e9 if timing else float("nan")
        worst_s = f"{worst['rel_l2']:.2e} ({worst['case']})" if worst else "-"
        print(f"{name:24} {dims:34} {ms:8.1f} {gflops:8.2f} {gbs:6.2f} {default_err:11.2e} {worst_s:>28} "
              f"{tol:7.0e}  {'ok' if ok else 'FAIL'}")
        for msg in problems[:5]:
            print(f"    {msg}")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
