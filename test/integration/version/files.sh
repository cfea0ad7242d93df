# The runtime's version in the files it writes (docs/formats.md): bytes
# 24-31 of the basic log's, the FDR log's and an FDR snapshot's header,
# which every llvm-xray installed (14 here; 13, 16, 19 when present) still
# reads with the right counts; the Chrome JSON's process_name; the pprof
# profile's comment. And the program's own answer: __xray_runtime_version()
# and XRAY_RUNTIME_VERSION say the same.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
command -v python3 >/dev/null || skip "python3 not found"
version=$(xr_version)
[ -n "$version" ] || fail "no XRAY_RUNTIME_VERSION in $XRAY_GEN_INCLUDE/xray/xray_version.h"
xr_cc calls "$TEST_SRC_DIR/calls.c"
readers=("$LLVM_XRAY")
for r in llvm-xray-13 llvm-xray-16 llvm-xray-19; do
  command -v "$r" >/dev/null && readers+=("$(command -v "$r")")
done

# run BASE MODE [ARG]: runs calls under MODE from the start, every call kept
run() {
  XRAY_OPTIONS="patch_premain=true xray_mode=$2 xray_logfile_base=$1-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0:trace_output=xray+chrome" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=0" \
    XRAY_PROFILING_OPTIONS="profiling_output=xray+pprof" \
    ./calls "${@:3}" >"$1.out" || fail "calls under $2 exited $?"
  expect_eq "$2: archive and headers" "$version $version" "$(cat "$1.out")"
}
# readable LOG [COUNTS]: every llvm-xray finds the calls (account: COUNTS,
# default all of them) and converts the file (19 entries)
readable() {
  local r counts
  for r in "${readers[@]}"; do
    counts=$("$r" account "$1" -m ./calls -sort=count -sortorder=dsc 2>"$1.err" |
      awk '/^ +[0-9]+ +[0-9]+ \[/ { print $NF "=" $2 }' | sort | paste -sd' ' -)
    expect_eq "$r account $1" "${2:-leaf=15 main=1 mid=3}" "$counts"
    "$r" convert -f yaml -m ./calls "$1" >"$1.yaml" 2>"$1.err" ||
      { cat "$1.err" >&2; fail "$r convert $1"; }
    [ "$(grep -c 'kind: *function-enter' "$1.yaml")" = 19 ] || fail "$r convert $1: not 19 entries"
  done
}

note "basic log and its Chrome JSON"
run basic xray-basic
log=$(only_file "basic-calls.??????")
expect_eq "basic header" "basic $version" "$(python3 "$TEST_SRC_DIR/header_stamp.py" "$log" "$version")"
readable "$log"
expect_eq "JSON process_name" "calls $version" "$(python3 -c '
import json, sys
ev = [e for e in json.load(open(sys.argv[1])) if e["name"] == "process_name"]
assert len(ev) == 1, ev
print(ev[0]["args"]["name"], ev[0]["args"]["xray_runtime"])' "$log.json")"

note "FDR log and snapshot"
run fdr xray-fdr snapshot
log=$(only_file "fdr-calls.??????")
snap=$(only_file "fdr-calls.??????.snap*")
# the snapshot is taken inside main: main has not returned
for f in "$log" "$snap"; do
  expect_eq "FDR header of $f" "fdr $version" "$(python3 "$TEST_SRC_DIR/header_stamp.py" "$f" "$version")"
  if [ "$f" = "$snap" ]; then readable "$f" "leaf=15 mid=3"; else readable "$f"; fi
  for r in "${readers[@]}"; do
    "$r" fdr-dump "$f" >"$f.dump" 2>&1 || { cat "$f.dump" >&2; fail "$r fdr-dump $f"; }
  done
done

note "pprof comment"
run prof xray-profiling
pb=$(only_file "prof-calls.??????.pb")
grep -aq "XRay runtime $version, profiling mode" "$pb" || fail "$pb does not name XRay runtime $version"
echo "version $version in every file: ok"
