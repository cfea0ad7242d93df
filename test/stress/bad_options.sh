# Bad input in every option string: garbage bytes, 10 kB values,
# negative/huge/empty numbers, repeated separators, broken quotes. The host
# program must run exactly as without XRay (same stdout, exit 0), patched
# and tracing where the options still allow it; a bad value is reported on
# stderr, never fatal.
# shellcheck source=../integration/lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/stress_lib.sh"
cat >prog.c <<'C'
#include <stdio.h>
__attribute__((noinline)) int sq(int x) { return x * x; }
__attribute__((noinline)) int sum(int n) { int s = 0; for (int i = 0; i < n; i++) s += sq(i); return s; }
int main(void) { printf("sum=%d\n", sum(100)); return 0; }
C
xr_cc prog prog.c
want="sum=328350"

RANDOM=8 # fixed seed: the same garbage every run
garbage() { # N: N random bytes, no NUL
  local s="" i b
  for ((i = 0; i < $1; i++)); do
    b=$((RANDOM % 255 + 1))
    s+=$(printf '%b' "\\x$(printf %02x "$b")")
  done
  printf '%s' "$s"
}
big=$(printf 'A%.0s' $(seq 1 10240))
bad_values=(
  "" "-1" "-2147483649" "2147483648" "99999999999999999999999" "0x" "0x1g"
  "+" "-" " " "1e9" "1.5" "true" "maybe" "$big" "'unterminated" "\"x\"y"
  "=" "==" "$(garbage 40)"
)
run_case() { # VAR VALUE...
  local var=$1 value=$2 out rc=0
  out=$(env "$var=$value" ./prog 2>stderr.txt) || rc=$?
  [ $rc -eq 0 ] || { head -c 2000 stderr.txt >&2; fail "$var=<${#value} bytes> exit $rc"; }
  [ "$out" = "$want" ] || fail "$var=<${#value} bytes>: stdout [$out]"
  cases=$((cases + 1))
}
cases=0
for name in patch_premain xray_mode xray_logfile_base xray_page_size_override \
            verbosity xray_naive_log_max_stack_depth xray_fdr_log; do
  for v in "${bad_values[@]}"; do
    run_case XRAY_OPTIONS "$name=$v"
    run_case XRAY_OPTIONS "$name=$v patch_premain=true xray_mode=xray-basic xray_logfile_base=bo-"
  done
done
# Separators, names without values, unknown names, garbage everywhere.
for s in ",,,,::::    \t\n" "patch_premain" "=true" ":::patch_premain=true:::" \
         "$big=1" "patch_premain=true,,,,xray_mode=xray-fdr::::verbosity=0,xray_logfile_base=bo-" \
         "$(garbage 200)" "$(garbage 2000)" "a=b=c=d" "help=maybe" \
         "verbosity=1 $(garbage 100) patch_premain=true"; do
  run_case XRAY_OPTIONS "$s"
done
# Each mode's own options, with the mode started from the environment.
for mode in "${MODES[@]}"; do
  have_mode "$mode" || continue
  var=${mode#xray-}; var=XRAY_${var^^}_OPTIONS
  for name in func_duration_threshold_us max_stack_depth thread_buffer_size \
              buffer_size buffer_max no_file_flush grace_period_ms \
              per_thread_allocator_max global_allocator_max buffers_max no_flush; do
    for v in "${bad_values[@]}"; do
      value="$name=$v"
      [ "$name" = grace_period_ms ] && value="$name=$v grace_period_ms=0"
      XRAY_OPTIONS="patch_premain=true xray_mode=$mode xray_logfile_base=bo-$mode-" \
        run_case "$var" "$value"
    done
  done
  run_case "$var" "$(garbage 300)"
done
# No failure may leave the program without its output or with a stray file
# outside the configured bases.
stray=$(printf '%s\n' * | grep -v -E '^(prog|prog\.c|stderr\.txt|bo-.*)$' || true)
[ -z "$stray" ] || fail "unexpected files: $stray"
echo "bad_options: $cases runs ok"
