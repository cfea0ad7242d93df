# A program that writes its process title over argv[0] after start: every
# file of every mode (basic, FDR and its snapshot, profiling and its report)
# is named after the program as it started, and the profiling report's
# header says that name. A process's files share one suffix: the FDR
# snapshot and the final log sort together.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
xr_cc titled_server_prog "$TEST_SRC_DIR/title.c"
prog=titled_server_prog
# run MODE ARG [VAR=VALUE...]: runs the program, checks its output
run() {
  local mode=$1 arg=$2; shift 2
  rm -f xray-log.*
  env "$@" XRAY_OPTIONS="patch_premain=true xray_mode=$mode verbosity=1" ./$prog "$arg" >out.txt 2>err.txt ||
    fail "$mode: exited $?"
  expect_eq "$mode: program output" "$([ "$arg" = snapshot ] && echo 581 || echo 145)" "$(cat out.txt)"
}
work_records() {
  "$LLVM_XRAY" convert -f yaml -m ./$prog --symbolize "$1" | grep -c 'function: work, .*kind: function-'
}
# names: every file's name, the suffix written as S
names() { printf '%s\n' xray-log.* | sed -E "s/^xray-log\.$prog\.[A-Za-z0-9]{6}/xray-log.$prog.S/" | paste -sd' ' -; }

run xray-basic - XRAY_BASIC_OPTIONS=func_duration_threshold_us=0
expect_eq "basic: files" "xray-log.$prog.S" "$(names)"
expect_eq "basic: work's records" 20 "$(work_records xray-log.$prog.*)"

run xray-fdr snapshot XRAY_FDR_OPTIONS="func_duration_threshold_us=0 trace_output=xray+chrome"
expect_eq "fdr: files" "xray-log.$prog.S xray-log.$prog.S.json xray-log.$prog.S.snap000001 xray-log.$prog.S.snap000001.json" "$(names)"
suffixes=$(printf '%s\n' xray-log.* | sed -E "s/^xray-log\.$prog\.([A-Za-z0-9]{6}).*/\1/" | sort -u | wc -l)
expect_eq "fdr: one suffix for the log and the snapshot" 1 "$suffixes"
expect_eq "fdr: work's records in the snapshot" 20 "$(work_records xray-log.$prog.*.snap000001)"
# every file a verbosity 1 line names exists (none is a temporary .json.part)
expect_eq "fdr: files named at verbosity 1" \
  "$(printf '%s\n' xray-log.$prog.??????.json xray-log.$prog.*.snap000001.json)" \
  "$(grep -o "wrote [0-9]* events to [^ ]*" err.txt | sed 's/.* to //' | sort)"
grep -q "\"name\":\"process_name\".*\"name\":\"$prog\"" xray-log.$prog.??????.json ||
  fail "fdr: the Chrome trace's process name is not $prog"

run xray-profiling - XRAY_PROFILING_OPTIONS="profiling_output=xray+report"
expect_eq "profiling: files" "xray-log.$prog.S xray-log.$prog.S.txt" "$(names)"
grep -q "^# XRay profile of $prog (pid [0-9]*): 1 thread(s), 2 function(s)$" xray-log.$prog.??????.txt ||
  fail "profiling: report header: $(head -1 xray-log.$prog.??????.txt)"
echo "title: ok"
