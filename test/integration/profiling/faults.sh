# fork, signals, thread exit inside a call, exit with a thread still inside
# a call, arena exhaustion, bad options: no crash, valid files, exact counts
# where the program makes them deterministic.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc faults "$TEST_SRC_DIR/faults.c"
have_reader=0
if command -v python3 >/dev/null && [ -n "${LLVM_XRAY:-}" ]; then have_reader=1; fi
paths() { # FILE -> merged "path count" lines (names)
  python3 "$TEST_SRC_DIR/profile_reader.py" --llvm-xray "$LLVM_XRAY" -m faults \
    --check-times --merge "$1"
}
calls() { # FOLDED PATH -> count
  awk -v p="$2" '$1 == p { print $2 }' "$1"
}
C="profiling_output=xray+folded folded_value=calls"

note "fork"
./faults fork "$C" || fail "fork exited $?"
files=(xray-log.faults.??????)
expect_eq "files (parent and child)" 2 "${#files[@]}"
parent=""; child=""
for f in "${files[@]}"; do
  if grep -q '^d ' "$f.folded"; then parent=$f; else child=$f; fi
done
{ [ -n "$parent" ] && [ -n "$child" ]; } || fail "cannot tell parent from child"
expect_eq "parent d" 1 "$(calls "$parent.folded" 'd')"
expect_eq "parent c" "" "$(calls "$parent.folded" 'c')"
expect_eq "child c;g" 1 "$(calls "$child.folded" 'c;g')"
# the child keeps what its thread recorded before fork
expect_eq "child a;g" 1 "$(calls "$child.folded" 'a;g')"
if [ $have_reader = 1 ]; then
  paths "$parent" > /dev/null || fail "parent file rejected"
  paths "$child" > /dev/null || fail "child file rejected"
fi
rm -f xray-log.faults.*

note "signals"
./faults signal "$C" || fail "signal exited $?"
f=$(only_file "xray-log.faults.??????")
expect_eq "f" 200001 "$(calls "$f.folded" 'f')"
expect_eq "f;on_signal (raise inside f)" 1 "$(calls "$f.folded" 'f;on_signal')"
expect_eq "f;on_signal;g" 1 "$(calls "$f.folded" 'f;on_signal;g')"
[ $have_reader = 0 ] || paths "$f" > /dev/null || fail "file rejected"
rm -f xray-log.faults.*

note "thread exits inside a call"
./faults thread "$C" || fail "thread exited $?"
f=$(only_file "xray-log.faults.??????")
expect_eq "runner;leave_thread" 1 "$(calls "$f.folded" 'runner;leave_thread')"
expect_eq "runner;g" 1 "$(calls "$f.folded" 'runner;g')"
[ $have_reader = 0 ] || paths "$f" > /dev/null || fail "file rejected"
rm -f xray-log.faults.*

note "exit while a thread is blocked inside a call"
XRAY_OPTIONS="verbosity=0" ./faults running "$C" || fail "running exited $?"
f=$(only_file "xray-log.faults.??????")
expect_eq "block_runner;blocker" 1 "$(calls "$f.folded" 'block_runner;blocker')"
[ $have_reader = 0 ] || paths "$f" > /dev/null || fail "file rejected"
rm -f xray-log.faults.*

note "exit while two threads call instrumented code: both collected"
./faults spinning "$C" 2> err.txt || fail "spinning exited $?"
[ ! -s err.txt ] || { cat err.txt >&2; fail "busy threads reported"; }
f=$(only_file "xray-log.faults.??????")
expect_eq "spinner roots" 1 "$(grep -c '^spinner ' "$f.folded")"
[ "$(calls "$f.folded" 'spinner;f')" -ge 2 ] || fail "spinner;f calls"
[ $have_reader = 0 ] || expect_eq "blocks" 2 "$(python3 "$TEST_SRC_DIR/profile_reader.py" --ids "$f" | grep -c '^block')"
rm -f xray-log.faults.*

note "statuses: init twice, finalize twice, flush before/after, a second session"
./faults states "$C" || fail "states: failed checks (bit mask) $?"
# one process: its logs are <suffix>, <suffix>-2, <suffix>-3
mapfile -t files < <(printf '%s\n' xray-log.faults.* | grep -E '\.faults\.[a-z0-9]{6}(-[23])?$')
expect_eq "files (the empty first session and two more)" 3 "${#files[@]}"
for f in "${files[@]}"; do
  if grep -q '^c;g ' "$f.folded" 2>/dev/null; then second=$f; fi
done
[ -n "${second:-}" ] || fail "second session's file"
expect_eq "second session c" 2 "$(calls "$second.folded" c)"
expect_eq "second session a (not carried over)" "" "$(calls "$second.folded" a)"
rm -f xray-log.faults.*

note "small global_allocator_max: losses counted and reported"
./faults wide "$C per_thread_allocator_max=4096 global_allocator_max=8192" 2> err.txt || fail "wide exited $?"
f=$(only_file "xray-log.faults.??????")
grep -q "call(s) for lack of memory" err.txt || { cat err.txt >&2; fail "loss not reported"; }
[ $have_reader = 0 ] || paths "$f" > /dev/null || fail "file rejected"
rm -f xray-log.faults.*

note "bad option values: each reported, init refused (as every mode), no file"
set +e
XRAY_PROFILING_OPTIONS="per_thread_allocator_max=0 global_allocator_max=lots stack_allocator_max=999999999999999999999 profiling_output=pdf folded_value=bytes" \
  ./faults init "" 2> err.txt
rc=$?
set -e
expect_eq "exit code (init refused)" 10 "$rc"
for opt in per_thread_allocator_max global_allocator_max stack_allocator_max folded_value; do
  grep -q "$opt" err.txt || { cat err.txt >&2; fail "no message for $opt"; }
done
grep -q "profiling_output 'pdf'" err.txt || { cat err.txt >&2; fail "no message for profiling_output"; }
expect_eq "files" "" "$(ls xray-log.faults.* 2>/dev/null)"

note "impossible combination: init refused with a message"
set +e
./faults init "per_thread_allocator_max=1048576 global_allocator_max=65536" 2> err.txt
rc=$?
set -e
expect_eq "exit code (init refused)" 10 "$rc"
grep -q "larger than global_allocator_max" err.txt || { cat err.txt >&2; fail "no message"; }
echo "faults: ok"
