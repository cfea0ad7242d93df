# Exact event sequences (entry, exit, tail, log-args with and without an arg1
# handler, removal, unpatch) at -O2, and the ids against llvm-xray extract.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
xr_cc events "$TEST_SRC_DIR/events.c" -O2
./events >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "events exited $exit_status"; }
expect_file_eq "event sequence" "$(xr_expected events)" out.txt
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"

need_llvm_xray
# llvm-xray's ids for the same binary: "id N name" in id order.
"$LLVM_XRAY" extract --symbolize events >map.yaml
grep 'kind: function-enter\|kind: log-args-enter' map.yaml |
  sed -E 's/.*id: *([0-9]+),.*function-name: *([A-Za-z_0-9]+).*/id \1 \2/' | sort -n -k2 >extract.txt
grep '^id ' out.txt >runtime.txt
expect_file_eq "ids vs llvm-xray extract" runtime.txt extract.txt
