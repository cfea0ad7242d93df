# The same instrumented program (reference.c) linked once with our runtime
# and once with compiler-rt's AArch64 runtime (libclang-rt-14-dev:arm64),
# run in basic, FDR and profiling modes and read back by llvm-xray: the same
# function ids, kinds and call counts (tail calls included). Ours must also
# log arg1 and events exactly; where compiler-rt cannot, the test asserts
# what it was seen to do ("reference behaviour observed", docs/design.md,
# "Compared with compiler-rt"): a change there shows up as a failure here.
# AArch64 builds only; skipped (77) without the reference archives.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
[ "$XRAY_TEST_ARCH" = aarch64 ] || skip "AArch64 only (this build is for $XRAY_TEST_ARCH)"
[ -z "${XRAY_TEST_SANITIZE:-}" ] || skip "compiler-rt's archives clash with the sanitizer runtimes"
need_llvm_xray
command -v python3 >/dev/null || skip "python3 not found"

# compiler-rt's AArch64 runtime: clang 14's (Debian's libclang-rt-14-dev:arm64
# puts it in clang 14's resource directory; clang 19's has none). Linked as
# `clang --target=aarch64-linux-gnu -fxray-instrument
# -fxray-modes=xray-basic,xray-fdr,xray-profiling` links it, whole.
ref_dir=
for cc in "$XRAY_CLANG" clang-14; do
  d=$("$cc" -print-resource-dir 2>/dev/null)/lib/linux || continue
  if [ -f "$d/libclang_rt.xray-aarch64.a" ]; then ref_dir=$d; break; fi
done
[ -n "$ref_dir" ] || skip "compiler-rt's AArch64 XRay runtime is not installed (libclang-rt-14-dev:arm64; test/run-all.sh installs it)"
ref_archives=()
for a in xray xray-basic xray-fdr xray-profiling; do
  [ -f "$ref_dir/libclang_rt.$a-aarch64.a" ] || skip "no $ref_dir/libclang_rt.$a-aarch64.a"
  ref_archives+=("$ref_dir/libclang_rt.$a-aarch64.a")
done
# clang 19 is the first to emit AArch64 event sleds
major=$("$XRAY_CLANG" -dM -E -x c /dev/null | sed -n 's/^#define __clang_major__ //p')
events=0
[ "${major:-0}" -lt 19 ] || events=1

xr_cc ours "$TEST_SRC_DIR/reference.c"
# compiler-rt: a program with event sleds needs __xray_CustomEvent and
# __xray_TypedEvent, which compiler-rt 14's AArch64 runtime lacks: it does
# not link (reference behaviour observed).
crt_link() {
  "$XRAY_CLANG" -g -O1 "${XRAY_CFLAGS[@]}" "$TEST_SRC_DIR/reference.c" -o crt \
    -Wl,--whole-archive "${ref_archives[@]}" -Wl,--no-whole-archive -lpthread -lrt -lm -ldl
}
if [ $events = 1 ]; then
  crt_link 2>crt_link.err && fail "compiler-rt 14 now links a program with AArch64 event sleds: update this test and docs/design.md"
  { grep -q "undefined reference to .__xray_CustomEvent" crt_link.err &&
      grep -q "undefined reference to .__xray_TypedEvent" crt_link.err; } ||
    { cat crt_link.err >&2; fail "compiler-rt link: not the expected missing event trampolines"; }
  note "reference behaviour observed: no __xray_CustomEvent / __xray_TypedEvent in compiler-rt 14's AArch64 runtime"
  # the rest without event sleds (-fxray-instrumentation-bundle leaves them out)
  XRAY_CFLAGS+=(-fxray-instrumentation-bundle=function)
  xr_cc ours_noev "$TEST_SRC_DIR/reference.c"
fi
crt_link || fail "linking with compiler-rt's runtime"
# Each links the runtime it should: compiler-rt's C++ internals in crt only.
grep -q '_ZN6__xray' <<<"$(nm crt)" || fail "crt lacks compiler-rt's runtime"
if grep -v ' [BD] _ZN6__xray' <<<"$(nm ours)" | grep -q '_ZN6__xray'; then
  fail "ours links compiler-rt's runtime"
fi
# With events, the function checks compare crt with the build it matches;
# names come from that build's map too: llvm-xray (14 and 19) cannot read a
# map with typed-event sleds ("Exec format error"); the ids are the same.
cmp_bin=ours
[ $events = 0 ] || cmp_bin=ours_noev
sleds() { "$LLVM_XRAY" extract --symbolize "$1" | sed -E 's/address: [^,]*, function: [^,]*, //'; }
expect_eq "instrumentation maps (ids, kinds, names)" "$(sleds crt)" "$(sleds $cmp_bin)"
# clang marks the tail call's sled an exit: 2 sleds of tail, entry and exit.
expect_eq "tail's sleds" "function-enter function-exit" \
  "$("$LLVM_XRAY" extract --symbolize $cmp_bin | grep 'function-name: *tail[,}]' |
     grep -o 'kind: *[a-z-]*' | sed 's/kind: *//' | sort | xargs)"

# records BIN LOG: "id name kind count" of every function record.
records() {
  "$LLVM_XRAY" convert -f yaml --symbolize -m "$1" "$2" |
    sed -n -E 's/.*func-id: *([0-9]+), *function: *([^,]*),.*kind: *([a-z-]+).*/\1 \2 \3/p' |
    sort | uniq -c | awk '{ print $2, $3, $4, $1 }'
}
run() { # BIN MODE WHAT -> the log's name; fails unless BIN exits 0
  rm -f "xray-log.$1".*
  XRAY_OPTIONS="verbosity=0" "./$1" "$2" "func_duration_threshold_us=0" "$3" >"$1.$2.out" 2>&1 ||
    { exit_status=$?; cat "$1.$2.out" >&2; fail "$1 $2 $3 exited $exit_status"; }
  only_file "xray-log.$1.*"
}
ids() { "$LLVM_XRAY" extract --symbolize "$1" | sed -n -E "s/.*id: *([0-9]+),.*function-name: *$2[,}].*/\1/p" | head -1; }
leaf=$(ids $cmp_bin leaf) mid=$(ids $cmp_bin mid) tail=$(ids $cmp_bin tail) top=$(ids $cmp_bin top)
calls="$leaf leaf function-enter 9
$leaf leaf function-exit 9
$mid mid function-enter 3
$mid mid function-exit 3
$tail tail function-enter 3
$tail tail function-exit 3
$top top function-enter 1
$top top function-exit 1"
calls=$(sort <<<"$calls")
for mode in xray-basic xray-fdr; do
  note "$mode"
  log=$(run $cmp_bin $mode calls)
  expect_eq "ours, $mode: ids, kinds, counts" "$calls" "$(records $cmp_bin "$log")"
  log=$(run crt $mode calls)
  expect_eq "compiler-rt, $mode: ids, kinds, counts" "$calls" "$(records crt "$log")"
done

note "xray-profiling"
paths() { python3 "$TEST_SRC_DIR/../profiling/profile_reader.py" --ids --merge "$1"; }
# tail's call of leaf hangs under top: tail has exited when leaf is entered
profile=$(sort <<<"$top 1
$top;$mid 3
$top;$mid;$leaf 6
$top;$leaf 3
$top;$tail 3")
log=$(run $cmp_bin xray-profiling calls)
# paths from the root (main is not patched when top is entered)
expect_eq "ours, profiling: paths and counts" "$profile" "$(paths "$log" | sort)"
log=$(run crt xray-profiling calls)
expect_eq "compiler-rt, profiling: paths and counts" "$profile" "$(paths "$log" | sort)"

# arg1: add1 is built with xray_log_args(1).
add1=$(ids $cmp_bin add1)
for mode in xray-basic xray-fdr; do
  log=$(run $cmp_bin $mode args)
  expect_eq "ours, $mode: add1's records" \
"func-id: $add1 function-enter-arg [ 100 ]
func-id: $add1 function-exit
func-id: $add1 function-enter-arg [ 18446744073709551610 ]
func-id: $add1 function-exit
func-id: $add1 function-enter-arg [ 1311768465173141112 ]
func-id: $add1 function-exit" \
    "$("$LLVM_XRAY" convert -f yaml "$log" | grep -o 'func-id: [0-9]*,.*kind: [a-z-]*' |
       sed -E 's/, function: [^,]*//; s/^(func-id: [0-9]*),( args: (\[[^]]*\]),)?.*kind: ([a-z-]*)/\1 \4 \3/; s/ *$//')"
done
# compiler-rt 14's __xray_ArgLoggerEntry on AArch64 is a bare `ret`, which
# returns onto the literal id word in its sled: SIGILL (reference behaviour
# observed; 128 + 4).
rc=0
(ulimit -c 0; XRAY_OPTIONS=verbosity=0 ./crt xray-basic func_duration_threshold_us=0 args) >crt.args.out 2>&1 || rc=$?
expect_eq "compiler-rt, arg1: killed by SIGILL (reference behaviour observed)" 132 $rc

if [ $events = 1 ]; then
  note "custom and typed events (FDR)"
  log=$(run ours xray-fdr events)
  expect_eq "ours: custom events" "ref-event ref-event ref-event" \
    "$("$LLVM_XRAY" fdr-dump "$log" | grep '^<Custom Event' | sed -E "s/.*data = '(.*)'>$/\1/" | xargs)"
  expect_eq "ours: typed events" "7:ref 7:ref 7:ref" \
    "$("$LLVM_XRAY" fdr-dump "$log" | grep '^<Typed Event' | sed -E "s/.*type = ([0-9]+), size = [0-9]+, data = '(.*)'$/\1:\2/" | xargs)"
  ev=$(ids $cmp_bin events)
  expect_eq "ours: the records, events in their function" \
"$ev events custom-event 3
$ev events function-enter 3
$ev events function-exit 3
$ev events typed-event 3" "$(records $cmp_bin "$log")"
fi
# Register preservation: regs.c with compiler-rt's sled layout (-DXR_REF),
# no handler and a full (user) handler. One instrumented function gives it
# an instrumentation map (without one compiler-rt does not initialise, and
# __xray_set_handler refuses). What it loses is its reference behaviour,
# observed under qemu (SVE on): NZCV at every event; with a handler x9-x15,
# x17, FPCR, FPSR, and every z/p register and FFR (it saves q0-q7, which
# also cuts z0-z7 to 128 bits without a handler); at a tail exit x8 too,
# and the handler is told "exit" (1), not "tail exit" (2). Ours keeps all
# of it: aarch64.regs.
note "register preservation"
echo 'void xr_ref_instrumented(void) {}' >instr.c
"$XRAY_CLANG" -O1 -fxray-instrument -fxray-instruction-threshold=1 -c instr.c -o instr.o
"$XRAY_CLANG" -O1 -no-pie -DXR_REF -I"$XRAY_INCLUDE" "$TEST_SRC_DIR/regs.c" "$TEST_SRC_DIR/regs_probe.S" \
  instr.o -o regs_crt -Wl,--whole-archive "$ref_dir/libclang_rt.xray-aarch64.a" -Wl,--no-whole-archive \
  -lpthread -lrt -lm -ldl
rc=0; ./regs_crt >regs_crt.txt 2>regs_crt.err || rc=$?
[ $rc -eq 1 ] || { cat regs_crt.txt regs_crt.err >&2; fail "regs_crt exited $rc, not 1 (registers lost)"; }
if [ "$(head -1 regs_crt.txt)" = "sve: yes" ]; then
  cp "$TEST_SRC_DIR/regs.reference.expected" regs_crt.expected
else # the same without the SVE registers
  sed -E 's/^sve: yes$/sve: no/; /MISMATCH .*: (z[0-9]+|p[0-9]+|ffr)$/d' \
    "$TEST_SRC_DIR/regs.reference.expected" >regs_crt.expected
fi
expect_file_eq "compiler-rt's registers (reference behaviour observed)" regs_crt.expected regs_crt.txt
echo "reference: ok"
