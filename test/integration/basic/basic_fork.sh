# fork() from inside an instrumented call: the child writes its own file
# with its own pid and only its own calls (not the parent's buffered
# records, not the exit of the call it was forked in); the parent's file
# has the parent's calls. Both are read by llvm-xray.
source "$TEST_SRC_DIR/basic_lib.sh"
build fork
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./fork > pids.txt
read -r parent child < pids.txt
expect_eq "log files" 2 "$(nfiles 'xray-log.fork.*')"
for f in xray-log.fork.*; do
  pids=$(yaml fork "$f" | grep -o 'process: [0-9]*' | sort -u)
  case "$pids" in
    "process: $parent") plog=$f ;;
    "process: $child") clog=$f ;;
    *) fail "$f: unexpected pids: $pids" ;;
  esac
done
[ -n "${plog:-}" ] && [ -n "${clog:-}" ] || fail "one file per process expected"
expect_eq "parent's calls" "before 1
in_parent 5
spawn 1" "$(counts fork "$plog")"
expect_eq "child's calls" "in_child 3" "$(counts fork "$clog")"
expect_eq "child's threads" "thread: $child" "$(yaml fork "$clog" | grep -o 'thread: [0-9]*' | sort -u)"
