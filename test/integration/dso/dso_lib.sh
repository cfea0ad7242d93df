# Helpers for the shared-object tests (sourced after lib.sh).
# Env from CMake: XRAY_DSO_LIB (libxray-dso.a).
{ [ -n "${XRAY_DSO_LIB:-}" ] && [ -f "$XRAY_DSO_LIB" ]; } || skip "libxray-dso.a not built"

# The executable exports the runtime's ABI so that objects loaded with dlopen
# find it (objects linked at build time make the linker export it anyway).
XRAY_EXPORT_FLAGS=("-Wl,--dynamic-list=$XRAY_SRC/cmake/xray.dynlist")

# xr_so CC OUT SRC... [flags]: an instrumented shared object with libxray-dso.a
xr_so() {
  local cc=$1 out=$2; shift 2
  "$cc" -g -O1 -fPIC -shared -fxray-instrument "$(xr_no_link_deps_flag "$cc")" \
    -fxray-instruction-threshold=1 "$@" -o "$out" \
    -Wl,--whole-archive "$XRAY_DSO_LIB" -Wl,--no-whole-archive \
    ${XRAY_SANITIZE_FLAGS[@]+"${XRAY_SANITIZE_FLAGS[@]}"}
}
# xr_exe CC OUT SRC... [flags]: an instrumented program with libxray.a that
# exports the ABI
xr_exe() {
  local cc=$1 out=$2; shift 2
  "$cc" -g -O1 -fxray-instrument "$(xr_no_link_deps_flag "$cc")" -fxray-instruction-threshold=1 \
    -I"$XRAY_INCLUDE" "$@" -o "$out" "${XRAY_EXPORT_FLAGS[@]}" \
    -Wl,--whole-archive "$XRAY_LIB" -Wl,--no-whole-archive -lpthread -ldl \
    ${XRAY_SANITIZE_FLAGS[@]+"${XRAY_SANITIZE_FLAGS[@]}"}
}
# xr_host CC OUT SRC... [flags]: a host built WITHOUT -fxray-instrument (no
# instrumentation map of its own) that links libxray.a and exports the ABI,
# for instrumented shared objects (an interpreter and its C modules)
xr_host() {
  local cc=$1 out=$2; shift 2
  "$cc" -g -O1 -I"$XRAY_INCLUDE" "$@" -o "$out" "${XRAY_EXPORT_FLAGS[@]}" \
    -Wl,--whole-archive "$XRAY_LIB" -Wl,--no-whole-archive -lpthread -ldl \
    ${XRAY_SANITIZE_FLAGS[@]+"${XRAY_SANITIZE_FLAGS[@]}"}
}

# xr_map_objects MAP: the objects of a <log>.map as "id file functions",
# joined by ", " (file without its directory).
xr_map_objects() {
  awk '$1 == "object" { n = split($NF, p, "/"); printf "%s%s %s %s", sep, $2, p[n], $7; sep = ", " }
       END { print "" }' "$1"
}
# xr_log_counts LOG: "name enter N exit N" per function of LOG (basic or
# FDR, read by the real llvm-xray), named through LOG.map; fails on an id
# of the log that the map does not name.
xr_log_counts() {
  "$LLVM_XRAY" convert --output-format=yaml "$1" >log.yaml || fail "llvm-xray convert $1"
  python3 - "$1.map" <<'PY'
import re, sys, collections
names = {}
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == 'function':
        names[int(f[1])] = f[4]
counts = collections.defaultdict(collections.Counter)
for line in open('log.yaml'):
    m = re.search(r'func-id: *(\d+),.*kind: *function-(enter|exit)', line)
    if m:
        fid = int(m.group(1))
        if fid not in names:
            sys.exit('id %d (%#x) of the log is not in the map' % (fid, fid))
        counts[names[fid]][m.group(2)] += 1
for name in sorted(counts):
    print(name, 'enter', counts[name]['enter'], 'exit', counts[name]['exit'])
PY
}
# xr_modes_build: modes.c's program and its linked chain libfirst.so ->
# libsecond.so (the plugin it dlopens is the caller's).
xr_modes_build() {
  xr_so "$XRAY_CLANG" libsecond.so "$XRAY_SRC/test/integration/dso/second.c"
  xr_so "$XRAY_CLANG" libfirst.so "$XRAY_SRC/test/integration/dso/first.c" -L. -lsecond -Wl,-rpath,\$ORIGIN
  xr_exe "$XRAY_CLANG" modes "$XRAY_SRC/test/integration/dso/modes.c" -L. -lfirst -Wl,-rpath,\$ORIGIN
}
# xr_modes_expected_counts: what xr_log_counts gives for a basic or FDR log of
# ./modes with plugin.c as its plugin (every object traced).
xr_modes_expected_counts() {
  printf '%s\n' "exe_leaf enter 3 exit 3" "first_add enter 5 exit 5" "plugin_fn enter 4 exit 4" \
    "plugin_leaf enter 4 exit 4" "second_mul enter 5 exit 5"
}
# xr_modes_profile PLUGIN OUTPUTS: ./modes (modes.c) with PLUGIN in profiling
# mode, profiling_output=OUTPUTS (folded and report among them): the exact
# folded stacks (written to expected.folded) and a report line with each
# function's calls.
xr_modes_profile() {
  rm -f xray-log.*
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-profiling" \
    XRAY_PROFILING_OPTIONS="profiling_output=$2 folded_value=calls" \
    ./modes "$1" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "profiling run exited $exit_status"; }
  cat >expected.folded <<'END'
exe_leaf 3
first_add 5
first_add;second_mul 5
plugin_fn 4
plugin_fn;plugin_leaf 4
END
  expect_file_eq "folded stacks" expected.folded "$(only_file 'xray-log.modes.*.folded')"
  local report f
  report=$(only_file 'xray-log.modes.*.txt')
  for f in exe_leaf:3 first_add:5 second_mul:5 plugin_fn:4 plugin_leaf:4; do
    grep -Eq "^ +[0-9.]+ +[0-9.]+ +[0-9.]+ +${f#*:} .* ${f%:*}\$" "$report" ||
      fail "report: no line for ${f%:*} with ${f#*:} calls"
  done
}
