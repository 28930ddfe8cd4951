#!/usr/bin/env bash
# The install test (ctest install_test): `cmake --install`s the build into a
# staging folder (DESTDIR, the build's own prefix: /usr unless configured
# otherwise) and,
# from the installed files alone, checks what a user runs:
#   - config/ and suites/ are installed whole (every file of the source
#     tree's config/ under etc/accelopt, of suites/ under usr/share/accelopt);
#   - a daemon config of every backend passes the installed acceloptd's
#     --check-config (acceloptd.json: cpu, cuda.json, triton.json,
#     acceloptd-nki.json), the paths it names (/usr/share/accelopt,
#     /var/lib/accelopt, /run/accelopt) moved to where the staged install
#     put them;
#   - every problem of every installed suite loads with the installed
#     accelopt-eval (`suite`: problem.json, reference and baseline, whatever
#     the backend's language), and so do nki problems imported by it from
#     the NKIBench-shaped test fixture (tests/evaluators/nkibench, standing
#     for a user's AccelOpt checkout);
#   - the nki runner's scripts are where the nki config's runner_dir says.
#   tests/install/install_test.sh BUILD_DIR SOURCE_DIR BINDIR SYSCONFDIR DATADIR
# (the last three absolute, as configured: CMAKE_INSTALL_FULL_*DIR).
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
bindir=$3 sysconfdir=$4 datadir=$5
stage=$build/install-test
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }

rm -rf "$stage"
mkdir -p "$stage"
DESTDIR="$stage/root" cmake --install "$build" >"$stage/install.log" 2>&1 ||
  { cat "$stage/install.log" >&2; fail "cmake --install"; }
root=$stage/root
bin=$root$bindir
share=$root$datadir/accelopt
etc=$root$sysconfdir/accelopt
for b in acceloptd acceloptctl accelopt-eval accelopt-store; do
  [[ -x "$bin/$b" ]] || fail "$bin/$b not installed"
done

# config/ and suites/ whole.
listing() { (cd "$1" && find . -type f | LC_ALL=C sort); }
if ! diff <(listing "$src/config") <(listing "$etc") >"$stage/config.diff"; then
  cat "$stage/config.diff" >&2
  fail "config/ is not installed whole under $sysconfdir/accelopt (< source only, > installed only)"
fi
if ! diff <(listing "$src/suites") <(listing "$share/suites") >"$stage/suites.diff"; then
  cat "$stage/suites.diff" >&2
  fail "suites/ is not installed whole under $datadir/accelopt/suites"
fi
for f in runner.py reference_runner.py; do
  [[ -f "$share/nki/$f" ]] || fail "the nki runner's $f is not in $datadir/accelopt/nki"
done

# Every installed suite's problems, as installed.
suites=()
for d in "$share"/suites/*/; do suites+=("${d%/}"); done
[[ ${#suites[@]} -ge 4 ]] || fail "expected the cpu, cpu-hard, cuda and triton suites, found ${suites[*]}"
"$bin/accelopt-eval" suite "${suites[@]}" >"$stage/suites.log" 2>&1 ||
  { cat "$stage/suites.log" >&2; fail "an installed suite's problem does not load"; }
for s in cpu cpu-hard cuda triton; do
  n_src=$(find "$src/suites/$s" -name problem.json | wc -l)
  n_ok=$(grep -c "^$share/suites/$s/[^/]*: [a-z]* ok$" "$stage/suites.log" || true)
  [[ "$n_src" -gt 0 && "$n_ok" == "$n_src" ]] || fail "suite $s: $n_ok of $n_src problems loaded (see $stage/suites.log)"
done

# nki problems: imported by the installed tool, as config/nki.json says.
state=$stage/state
mkdir -p "$state/suites" "$stage/run"
"$bin/accelopt-eval" import nkibench "$src/tests/evaluators/nkibench" --out "$state/suites/nki" >"$stage/import.log" 2>&1 ||
  { cat "$stage/import.log" >&2; fail "accelopt-eval import nkibench"; }
"$bin/accelopt-eval" suite "$state/suites/nki" >"$stage/nki.log" 2>&1 ||
  { cat "$stage/nki.log" >&2; fail "an imported nki problem does not load"; }
grep -q ": nki ok$" "$stage/nki.log" || fail "no nki problem loaded (see $stage/nki.log)"

# A daemon config of every backend, its absolute paths moved into the stage.
mkdir -p "$stage/configs"
for pair in cpu:acceloptd.json cuda:cuda.json triton:triton.json nki:acceloptd-nki.json; do
  backend=${pair%%:*} cfg=${pair#*:}
  [[ -f "$etc/$cfg" ]] || fail "$backend: $sysconfdir/accelopt/$cfg not installed"
  grep -q "\"$backend\": {" "$etc/$cfg" || fail "$cfg configures no $backend backend"
  sed -e "s|/usr/share/accelopt|$share|g" -e "s|/var/lib/accelopt|$state|g" -e "s|/run/accelopt|$stage/run|g" \
    "$etc/$cfg" >"$stage/configs/$cfg"
  "$bin/acceloptd" --check-config "$stage/configs/$cfg" >"$stage/check-$cfg.log" 2>&1 ||
    { cat "$stage/check-$cfg.log" >&2; fail "$backend: acceloptd --check-config $cfg"; }
done
echo "install_test: ok ($(grep -c ' ok$' "$stage/suites.log") suite problems, $(grep -c ' ok$' "$stage/nki.log") nki)"
