# Helpers of the FDR integration tests (sourced after lib.sh).
need_llvm_xray

source "$XRAY_SRC/test/integration/fdr/fdr_framing_lib.sh"
# fdr_largest_block TRACE: the byte count of TRACE's largest block.
fdr_largest_block() {
  python3 "$XRAY_SRC/test/integration/fdr/fdr_frame_check.py" "$1" |
    sed -n 's/.*, largest \([0-9]*\),.*/\1/p'
}

# fdr_counts TRACE BINARY: "name:count ..." of every function llvm-xray
# account finds, sorted by name, on one line.
fdr_counts() {
  "$LLVM_XRAY" account -m "$2" -format=csv "$1" |
    awk -F, 'NR > 1 { gsub(/"/, "", $NF); print $NF ":" $2 }' | sort | paste -sd' ' -
}
# fdr_calls TRACE [BINARY]: "name:enters/exits ..." from the YAML records
# (enter-with-arg counts as enter, tail exit as exit), sorted by name. Works
# for several concurrent threads, where llvm-xray 14's account gives up
# (it wants TSCs to grow across threads in its per-thread record order).
fdr_calls() {
  fdr_yaml "$@" | awk '
    /kind: function-/ {
      match($0, /function: [^,]*/); name = substr($0, RSTART + 10, RLENGTH - 10)
      gsub(/\x27/, "", name)
      if ($0 ~ /kind: function-enter/) enters[name]++; else exits[name]++
      seen[name] = 1
    }
    END { for (n in seen) printf "%s:%d/%d\n", n, enters[n], exits[n] }' |
    sort | paste -sd' ' -
}
# fdr_dump_count TRACE PATTERN: number of fdr-dump lines matching PATTERN.
fdr_dump_count() {
  "$LLVM_XRAY" fdr-dump "$1" | grep -c -E "$2" || true
}
# fdr_yaml TRACE [BINARY]: the trace as llvm-xray YAML (symbolized with a binary).
fdr_yaml() {
  if [ $# -gt 1 ]; then
    "$LLVM_XRAY" convert -f yaml -m "$2" --symbolize "$1"
  else
    "$LLVM_XRAY" convert -f yaml "$1"
  fi
}
# fdr_header_field TRACE OFFSET SIZE: little-endian unsigned field of a file.
fdr_header_field() {
  od -A n -t u"$3" -j "$2" -N "$3" "$1" | tr -d ' '
}
# xr_cc_ref OUT SRC...: the same program linked with compiler-rt's runtime
# (the clang driver adds it), for side-by-side checks.
xr_cc_ref() {
  local out=$1; shift
  "$XRAY_CLANG" -g -O1 -fxray-instrument -fxray-instruction-threshold=1 \
    -I"$XRAY_INCLUDE" "$@" -o "$out" 2>/dev/null
}
# fdr_prog NAME [FLAGS...]: builds progs/NAME.c into ./NAME
fdr_prog() {
  local name=$1; shift
  xr_cc "$name" "$TEST_SRC_DIR/progs/$name.c" -I"$TEST_SRC_DIR/progs" "$@"
}
# wait_file FILE [CONTENT]: waits until FILE exists (and holds CONTENT);
# bounded (60 s) so that a broken program fails the test instead of hanging.
file_holds() { [ -e "$1" ] && { [ $# -lt 2 ] || [ "$(cat "$1")" == "$2" ]; }; }
wait_file() {
  xr_poll file_holds "$@" || fail "timed out waiting for $1${2:+ to hold $2}"
}
# fdr_requests TRACE BINARY: per thread, "first..last/count ok|bad" of the
# arguments of handle_request's enters (sorted by thread, threads in order
# of their first request); ok when they strictly increase in record order.
fdr_requests() {
  fdr_yaml "$1" "$2" | awk '
    /function: handle_request,/ && /kind: function-enter-arg/ {
      match($0, /thread: [0-9]+/); t = substr($0, RSTART + 8, RLENGTH - 8)
      match($0, /args: \[ [0-9]+/); n = substr($0, RSTART + 8, RLENGTH - 8) + 0
      if (!(t in count)) { first[t] = n; ok[t] = "ok" }
      else if (n <= lastn[t]) ok[t] = "bad"
      lastn[t] = n; count[t]++
    }
    END { for (t in count) printf "%s..%s/%s %s\n", first[t], lastn[t], count[t], ok[t] }' | sort -n
}
# snapshot_json_once LABEL SNAP: the helper wrote SNAP's .json before the
# flush (the program hard-linked it to SNAP.json.before_flush), flush did not
# write it again (same inode), and err.txt says so exactly once (one writer).
snapshot_json_once() {
  [ -f "$2.json.before_flush" ] || fail "$1: no $2.json before the flush"
  expect_eq "$1: .json not written again at flush (same inode)" \
    "$(stat -c %i "$2.json.before_flush")" "$(stat -c %i "$2.json")"
  expect_eq "$1: one writer" 1 "$(grep -cF "snapshot '$2' also as chrome ('$2.json')" err.txt)"
}
# fdr_json_check JSON TRACE BINARY: JSON (the Chrome trace written for
# TRACE) parses, and holds per function as many complete ("X") events as
# llvm-xray's records of TRACE give calls: one per enter record, plus one
# per exit whose enter is not in the trace (the ring overwrote it). Prints
# "name:count ..." sorted by name.
fdr_json_check() {
  fdr_yaml "$2" "$3" >"$1.yaml" || fail "llvm-xray convert $2"
  python3 - "$1" "$1.yaml" <<'PY' || fail "$1 does not match llvm-xray convert of $2"
import collections, json, re, sys
got = collections.Counter(e["name"] for e in json.load(open(sys.argv[1]))
                          if e.get("ph") == "X")
want = collections.Counter()
stacks = collections.defaultdict(list)
record = re.compile(r"function: '?([^,']+)'?, .*thread: (\d+), .*kind: function-([a-z-]+),")
for line in open(sys.argv[2]):
    m = record.search(line)
    if not m:
        continue
    name, thread, kind = m.groups()
    stack = stacks[thread]
    if kind.startswith("enter"):
        want[name] += 1
        stack.append(name)
    elif name in stack:  # exit, tail-exit: frames above it were unwound
        del stack[len(stack) - 1 - stack[::-1].index(name):]
    else:
        want[name] += 1  # its enter is not in the trace
        stack.clear()
assert got == want, (dict(got), dict(want))
print(" ".join("%s:%d" % kv for kv in sorted(got.items())))
PY
}
# wait_status CMD...: how CMD ended, as the raw wait status says; CMD's
# standard output goes to prog.out. CMD starts with SIGPIPE and SIGXFSZ at
# their defaults, as from a shell (python ignores both).
wait_status() {
  python3 - "$@" <<'PY'
import os, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
out = os.open("prog.out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
saved = os.dup(1)
os.dup2(out, 1)
pid = os.spawnvp(os.P_NOWAIT, sys.argv[1], sys.argv[1:])
os.dup2(saved, 1)
_, st = os.waitpid(pid, 0)
if os.WIFSIGNALED(st):
    print("signal=%d core=%d" % (os.WTERMSIG(st), 1 if os.WCOREDUMP(st) else 0))
else:
    print("exit=%d" % os.WEXITSTATUS(st))
PY
}
