# Basic mode with trace_output=xray+chrome: the JSON beside the log parses,
# nests per thread, marks the calls longjmp skipped, and has exactly the
# calls and total times llvm-xray convert and account (14 and 19) find in
# the log itself. trace_output=chrome alone leaves only the JSON.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/trace_lib.sh"
build_threads
cfg="func_duration_threshold_us=0:trace_output=xray+chrome"
XRAY_OPTIONS=xray_logfile_base=one- ./threads xray-basic "$cfg" 1 3000 1 0
log=$(log_of one-threads.)
# 429 jumps (i % 7 == 0 below 3000) leave 4 deep() frames each
expect_eq "one thread" "deep:1716 leaf:6000 marks:unwound=1716 mid:3000 worker:1" \
  "$(check_against_llvm_xray "$log" | sort | paste -sd' ' -)"
names() { # process and thread names of a JSON
  python3 -c 'import json,sys; print(" ".join(sorted(e["name"] + "=" + e["args"]["name"] for e in json.load(open(sys.argv[1])) if e["ph"] == "M")))' "$1"
}
expect_eq "names" "process_name=threads thread_name=worker-0" "$(names "$log.json")"

# four threads: the JSON alone (llvm-xray's view of threaded basic logs is
# tested in llvm_xray.sh)
XRAY_OPTIONS=xray_logfile_base=four- ./threads xray-basic "func_duration_threshold_us=0:trace_output=chrome" 4 3000 1 0
json=$(only_file "four-threads.*.json")
[ "$(find . -maxdepth 1 -name 'four-threads.*' | wc -l)" = 1 ] || fail "trace_output=chrome left the binary log: $(echo four-threads.*)"
expect_eq "four threads" "deep:6864 leaf:24000 marks:unwound=6864 mid:12000 worker:4" \
  "$($CHECK "$json" | sort | paste -sd' ' -)"
expect_eq "names" "process_name=threads thread_name=worker-0 thread_name=worker-1 thread_name=worker-2 thread_name=worker-3" "$(names "$json")"
echo "basic: ok"
