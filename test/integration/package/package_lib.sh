# Helpers shared by the package tests (sourced after lib.sh).
# Extra environment from CMake: XRAY_BUILD_DIR (the build tree to install).

# While the runtime is being assembled, an archive without the control API
# cannot run the consumer: skip rather than fail.
ARCHIVE_SYMBOLS=$(nm "$XRAY_LIB" 2>/dev/null || true)
for sym in __xray_set_handler __xray_patch __xray_function_address; do
  grep -q " T $sym\$" <<<"$ARCHIVE_SYMBOLS" || skip "libxray.a has no $sym yet"
done

# shellcheck disable=SC2034  # used by the scripts that source this file
CONSUMER_SRC="$TEST_SRC_DIR/consumer"

# Sanitizer phases of test/run-all.sh build the archive with
# XRAY_TEST_SANITIZE; consumers must then be built with the same flags.
SAN_FLAGS=()
SAN_CMAKE_ARGS=()
if [ -n "${XRAY_TEST_SANITIZE:-}" ]; then
  SAN_FLAGS=("${XRAY_SANITIZE_FLAGS[@]}")
  # shellcheck disable=SC2034  # used by the scripts that source this file
  SAN_CMAKE_ARGS=("-DCMAKE_C_FLAGS=$XRAY_TEST_SANITIZE" "-DCMAKE_EXE_LINKER_FLAGS=$XRAY_TEST_SANITIZE")
fi
# other_clangs: clang-13/16/19 when installed (not in sanitizer phases: their
# sanitizer runtimes may be missing).
other_clangs() {
  [ ${#SAN_FLAGS[@]} -eq 0 ] || return 0
  local cc
  for cc in "$@"; do command -v "$cc" >/dev/null && echo "$cc"; done
  return 0
}
EXPECTED_COUNTS="leaf=15/15 middle=2/2 top=1/1"

# install_runtime PREFIX: what a user does after building.
install_runtime() {
  cmake --install "$XRAY_BUILD_DIR" --prefix "$1" >install.log 2>&1 ||
    { cat install.log >&2; fail "cmake --install failed"; }
  local f
  for f in lib/libxray.a include/xray/xray_interface.h \
           include/xray/xray_log_interface.h include/xray/xray_records.h \
           include/xray/xray_version.h bin/xrayctl \
           lib/cmake/XRay/XRayConfig.cmake lib/cmake/XRay/XRayConfigVersion.cmake \
           lib/pkgconfig/xray.pc; do
    [ -f "$1/$f" ] || fail "not installed: $f"
  done
}

# check_app APP: the program is instrumented, linked with our runtime (not
# compiler-rt's), its own handler sees exact call counts, and its archive
# and headers are this build's version.
check_app() {
  local app=$1
  "$XRAY_READELF" -S "$app" >sections.txt
  grep -q xray_instr_map sections.txt || fail "$app has no xray_instr_map"
  local symbols
  symbols=$(nm "$app")
  grep -q ' [Tt] __xray_patch$' <<<"$symbols" || fail "$app lacks our __xray_patch"
  # compiler-rt's C++ internals (our runtime defines only the four LLVM 20
  # handler variables under such names, as data: D/B)
  if grep -v ' [BD] _ZN6__xray' <<<"$symbols" | grep -q '_ZN6__xray'; then
    fail "$app links compiler-rt's XRay runtime"
  fi
  local out
  out=$("$app" count) || fail "$app count exited with $?"
  expect_eq "$app count, first line" "result=180 functions=3" "$(sed -n 1p <<<"$out")"
  expect_eq "$app count, counts" "$EXPECTED_COUNTS" "$(sed -n 2p <<<"$out")"
  expect_eq "$app version (archive, headers)" "$(xr_version) $(xr_version)" "$("$app" version)"
}

# check_traced APP: run it under the basic mode chosen by environment only,
# and read the log with llvm-xray: leaf called 15 times.
# check_plugin APP PLUGIN: APP dlopens the instrumented PLUGIN (built with
# libxray-dso.a) and counts the events of its object exactly.
check_plugin() {
  local out
  out=$("$1" "$2") || fail "$1 $2 exited $?"
  expect_eq "$1: plugin events" "plugin events=10 objects=2 sum=20" "$out"
}

# check_host HOST PLUGIN: HOST, built without -fxray-instrument, has no
# instrumentation map and still traces the PLUGIN it dlopens.
check_host() {
  if "${XRAY_READELF:-readelf}" -S "$1" | grep -q xray_instr_map; then
    fail "$1 has an instrumentation map: a host is built without -fxray-instrument"
  fi
  check_plugin "$1" "$2"
}

check_traced() {
  local app=$1
  [ -n "${LLVM_XRAY:-}" ] || { note "llvm-xray not found: traced run not checked"; return 0; }
  grep -q ' [DdRrBbVv] xr_basic_impl$' <<<"$ARCHIVE_SYMBOLS" ||
    { note "basic mode not in libxray.a yet: traced run not checked"; return 0; }
  rm -rf traced && mkdir traced
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=traced/log-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" "$app" >traced/out ||
    fail "$app traced run failed"
  expect_eq "traced output" "result=180" "$(cat traced/out)"
  local log
  log=$(only_file "traced/log-*")
  "$LLVM_XRAY" account -m "$app" -format=csv -sort=count -sortorder=dsc "$log" >traced/account.csv ||
    fail "llvm-xray account could not read $log"
  # csv: funcid,count,min,median,90%ile,99%ile,max,sum,debug,function
  local counts
  counts=$(awk -F, 'NR > 1 {gsub(/"/, "", $NF); print $NF "=" $2}' traced/account.csv | sort | tr '\n' ' ')
  expect_eq "calls in the basic log" "leaf=15 middle=2 top=1 " "$counts"
}
