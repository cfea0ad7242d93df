# A fork child that ends with _exit keeps what a child that calls exit()
# keeps (lib/core/modes/exit_hook.c runs the exit policy first): with FDR started
# by the environment, a file of its own with every call it made; with FDR
# started from code, nothing (a flight recorder is written only when the
# program flushes it or takes a snapshot), and the parent's file holds only
# the parent's calls. The program is basic mode's (basic/progs/exit_kids.c):
# the parent calls in_parent 5 times, the child in_child 7 times.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
xr_cc exit_kids "$TEST_SRC_DIR/../basic/progs/exit_kids.c"
XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
XRAY_FDR_OPTIONS="func_duration_threshold_us=0" ./exit_kids child 7 >/dev/null ||
  fail "env run: exit status $?"
files=( xray-log.exit_kids.* )
expect_eq "env: two files, the parent's and the child's" 2 "${#files[@]}"
expect_eq "env: the calls of each file" "in_child:7/7
in_parent:5/5" "$(for f in "${files[@]}"; do fdr_calls "$f" exit_kids; done | sort)"

rm -f xray-log.exit_kids.*
env -u XRAY_OPTIONS ./exit_kids child 7 "func_duration_threshold_us=0" >/dev/null ||
  fail "code run: exit status $?"
files=( xray-log.exit_kids.* )
expect_eq "code: one file, the parent's" 1 "${#files[@]}"
expect_eq "code: the parent's calls only" "in_parent:5/5" "$(fdr_calls "${files[0]}" exit_kids)"
echo "exit_kids: ok"
