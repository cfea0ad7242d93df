# Helpers of the valgrind tests (sourced after lib.sh).
command -v valgrind >/dev/null || skip "valgrind not found (apt-get install valgrind)"
[ -z "${XRAY_TEST_SANITIZE:-}" ] || skip "valgrind does not run sanitized programs"
[ -z "${XRAY_TEST_EMULATOR:-}" ] || skip "valgrind does not run under an emulator"
need_llvm_xray
command -v python3 >/dev/null || skip "python3 not found"

# traced.c -> ./traced; DWARF 4: valgrind 3.19 misreads clang's DWARF 5.
xr_cc traced "$TEST_SRC_DIR/traced.c" -gdwarf-4
# shellcheck disable=SC2034  # read by the scripts that source this file
CALLS=200 # per thread; the counts below follow from it (traced.c)
# shellcheck disable=SC2034  # read by the scripts that source this file
WANT_FUNCS="custom_event:20 leaf:800 mid:400 typed_event:20 worker:2"

# memcheck NAME [VAR=VALUE...] CMD...: CMD under memcheck with those
# environment variables, its output in NAME.out and NAME.err, valgrind's
# report in NAME.vg. Fails unless CMD exits 0 and memcheck found no error
# at all (so none in the runtime's frames). Run behind the command in
# VG_PREFIX, if any.
VG_PREFIX=()
memcheck() {
  local name=$1 rc=0 vars=()
  shift
  while [[ $1 == *=* ]]; do vars+=("$1"); shift; done
  "${VG_PREFIX[@]}" env "${vars[@]}" valgrind --error-exitcode=97 --log-file="$name.vg" "$@" \
    >"$name.out" 2>"$name.err" || rc=$?
  [ $rc = 0 ] || { cat "$name.vg" "$name.err" >&2; fail "$name: exit status $rc under memcheck"; }
  grep -q "ERROR SUMMARY: 0 errors from 0 contexts" "$name.vg" ||
    { cat "$name.vg" >&2; fail "$name: memcheck errors"; }
}
# events_of NAME: the custom events (as many typed) traced.c logged.
events_of() { sed -n 's/^events //p' "$1.out"; }
# yaml_calls LOG NAME: "name:enters/exits ..." of LOG's function records
# and "~custom:N ~typed:N ~sync:N ~other:N" of its events (traced.c's
# custom and typed ones, the FDR log's per-thread sync events, any other
# custom event), from llvm-xray convert (no
# instrumentation map: llvm-xray reads none with typed-event sleds; the ids
# are named from NAME.out's "id" lines).
yaml_calls() {
  "$LLVM_XRAY" convert -f yaml "$1" | awk -v ids="$2.out" '
    BEGIN { while ((getline l < ids) > 0) { split(l, f, " "); if (f[1] == "id") name[f[3]] = f[2] } }
    /kind: function-/ {
      match($0, /func-id: [0-9]+/); id = substr($0, RSTART + 9, RLENGTH - 9)
      n = (id in name) ? name[id] : "id" id
      if ($0 ~ /kind: function-enter/) enters[n]++; else exits[n]++
      seen[n] = 1
    }
    /kind: custom-event, .*data: \x27?valgrind-custom/ { custom++; next }
    /kind: custom-event, .*data: \x27?xray-sync/ { sync++; next }
    /kind: custom-event/ { other++ }
    /kind: typed-event, .*data: \x27?valgrind-typed!/ { typed++ }
    END {
      for (n in seen) printf "%s:%d/%d\n", n, enters[n], exits[n]
      printf "~custom:%d\n~other:%d\n~sync:%d\n~typed:%d\n", custom, other, sync, typed
    }' | sort | paste -sd' ' -
}
# want_yaml EVENTS [SYNC] [OTHER]: yaml_calls' line for CALLS per thread,
# EVENTS custom and as many typed events.
want_yaml() {
  echo "custom_event:20/20 leaf:800/800 mid:400/400 typed_event:20/20 worker:2/2 ~custom:$1 ~other:${3:-0} ~sync:${2:-0} ~typed:$1"
}
