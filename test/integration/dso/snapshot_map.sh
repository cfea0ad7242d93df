# FDR snapshots of a program with instrumented shared objects get their
# <snapshot>.map: their records hold dense ids, which only the map names,
# and a crashed process never writes its exit log's map. A snapshot by the
# API and one by a crash (snapshot_on_crash, the fault inside a shared
# object): the map is there, its header names the snapshot, an unloaded
# object is in it, and every id the real llvm-xray reads from the snapshot
# is named, with exact counts per function. The buffers handed out in
# memory get the same map from __xray_fdr_object_map. Snapshots taken by
# one thread while another loads and unloads objects: every function id of
# every snapshot is in its map (the TSan phase runs this too).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/dso_lib.sh"
need_llvm_xray
command -v python3 >/dev/null || skip "no python3"
objs=()
for k in 1 2 3; do
  cat >"snap$k.c" <<END
__attribute__((noinline)) int snap${k}_leaf(int x) { return x ^ $k; }
__attribute__((noinline)) int snap${k}_fn(int x) { return snap${k}_leaf(x) + 1; }
__attribute__((noinline)) void snap${k}_crash(volatile int *p) { *p = $k; }
END
  xr_so "$XRAY_CLANG" "snap$k.so" "snap$k.c"
  objs+=("$PWD/snap$k.so")
done
xr_exe "$XRAY_CLANG" snapshot_map "$TEST_SRC_DIR/snapshot_map.c"
ulimit -c 0 2>/dev/null || true

calls="exe_leaf enter 2 exit 2
snap1_fn enter 2 exit 2
snap1_leaf enter 2 exit 2
snap2_fn enter 3 exit 3
snap2_leaf enter 3 exit 3
snap3_fn enter 4 exit 4
snap3_leaf enter 4 exit 4"
for how in api crash memory; do
  # TSan's own SIGSEGV handler ends the process first (fdr.crash is not
  # on the TSan list either)
  [ $how != crash ] || [[ "${XRAY_TEST_SANITIZE:-}" != *thread* ]] || continue
  rm -f xray-log.* mem.fdr*
  rc=0
  XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
    XRAY_FDR_OPTIONS="func_duration_threshold_us=0 snapshot_on_crash=true no_file_flush=true" \
    ./snapshot_map "$how" "${objs[@]}" >out.txt 2>err.txt || rc=$?
  if [ $how = api ]; then
    [ $rc = 0 ] || { cat err.txt >&2; fail "api: exited $rc"; }
    snap=$(cat out.txt)
    expect_eq "api: the printed name" "$(only_file 'xray-log.snapshot_map.*.snap000001')" "$snap"
    want=$calls
  elif [ $how = memory ]; then
    [ $rc = 0 ] || { cat err.txt >&2; fail "memory: exited $rc"; }
    snap=mem.fdr
    expect_eq "memory: __xray_fdr_object_map" "1 mem.fdr.map" "$(cat out.txt)"
    want=$calls
  else
    # SIGSEGV (ASan's handler, installed first, exits 1)
    [ $rc -ge 128 ] || { [ -n "${XRAY_TEST_SANITIZE:-}" ] && [ $rc = 1 ]; } ||
      { cat err.txt >&2; fail "crash: exited $rc"; }
    snap=$(only_file 'xray-log.snapshot_map.*.snap000001')
    want=$(printf '%s\nsnap2_crash enter 1 exit 0' "$calls" | sort)
  fi
  [ -f "$snap.map" ] || { cat err.txt >&2; fail "$how: no $snap.map"; }
  expect_eq "$how: map header" \
    "# XRay object map of $snap: function <dense id = id-base + function> <object> <function> <name>" \
    "$(head -1 "$snap.map")"
  expect_eq "$how: map objects" "0 snapshot_map 1, 1 snap1.so 3, 2 snap2.so 3, 3 snap3.so 3" \
    "$(xr_map_objects "$snap.map")"
  expect_eq "$how: snap3.so unloaded" 1 "$(grep -c '^object 3 unloaded .*/snap3.so$' "$snap.map")"
  xr_log_counts "$snap" | sort >counts.txt || fail "$how: an id of the snapshot is not in its map"
  expect_eq "$how: calls named by the map" "$want" "$(cat counts.txt)"
done
xr_exe "$XRAY_CLANG" snapshot_race "$TEST_SRC_DIR/snapshot_race.c" -pthread
rm -f xray-log.*
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
  XRAY_FDR_OPTIONS="func_duration_threshold_us=0 no_file_flush=true" \
  ./snapshot_race "${objs[@]}" >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "race: exited $exit_status"; }
expect_eq "race: snapshots" "snapshots 40" "$(cat out.txt)"
expect_eq "race: maps" 40 "$(find . -maxdepth 1 -name 'xray-log.snapshot_race.*.snap*.map' | wc -l)"
# (the first snapshots may come before any call: the last follows 39)
records=0
for snap in xray-log.snapshot_race.*.snap??????; do
  "$LLVM_XRAY" convert --output-format=yaml "$snap" >race.yaml || fail "race: llvm-xray convert $snap"
  n=$(python3 - "$snap.map" race.yaml <<'PY') || fail "race: $snap has ids its map does not name"
import re, sys
named = {int(l.split()[1]) for l in open(sys.argv[1]) if l.startswith('function ')}
ids = [int(m.group(1)) for m in re.finditer(r'func-id: *(\d+),.*kind: *function-', open(sys.argv[2]).read())]
assert set(ids) <= named, sorted(set(ids) - named)
print(len(ids))
PY
  records=$((records + n))
done
[ "$records" -ge 78 ] || fail "race: $records function records in all snapshots, want at least 78"
echo "snapshot_map: ok"
