# Tail exits (progs/tail.cc, built -O2): tail_caller() tail-calls
# thrower(), which throws into an untraced catcher, 100 times: each
# tail_caller call ends at its tail exit, each thrower call is closed as
# unwound by the next entry at its stack pointer. tail_catcher() catches
# thrower's exception itself and tail-calls finish(), 100 times: its tail
# exit closes thrower's call as unwound, then its own. Then later() runs
# 10 times. On AArch64 clang records a tail call's sled as an exit.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/exc_lib.sh"
xr_cxx tail "$TEST_SRC_DIR/progs/tail.cc" -O2
command -v llvm-objdump >/dev/null || skip "llvm-objdump not found"

# The tail calls are there: each caller ends with a jump to its callee,
# and its exit sled is a tail exit's (AArch64: an exit's).
if [ "$XRAY_TEST_ARCH" = aarch64 ]; then
  jump='^ *[0-9a-f]+:[[:space:]]*b[[:space:]]' sled=function-exit tail_kind=exit
else
  jump='^ *[0-9a-f]+:[[:space:]]*jmp[[:space:]]' sled=tail-exit tail_kind=tail
fi
llvm-objdump -d --no-show-raw-insn tail >tail.dis || fail "llvm-objdump -d tail"
"$LLVM_XRAY" extract --symbolize tail >tail.sleds || fail "llvm-xray extract tail"
for pair in tail_caller:thrower tail_catcher:finish; do
  caller=${pair%:*} callee=${pair#*:}
  awk -v f="<$caller>:" '$2 == f { on = 1; next } on && /^$/ { exit } on' tail.dis |
    grep -Eq "$jump.*<$callee>" || fail "$caller does not end in a tail call of $callee"
  expect_eq "$caller's exit sleds" "$sled" \
    "$(grep "function-name: $caller," tail.sleds | grep -v 'kind: function-enter' |
       sed -E 's/.*kind: ([a-z-]+),.*/\1/' | sort -u | paste -sd' ' -)"
done

ended() { # "exit=0 tail=100" with a tail exit's kind of this CPU
  if [ "$tail_kind" = tail ]; then echo "exit=0 tail=$1"; else echo "exit=$1 tail=0"; fi
}
exc_check_all tail tail 2 "" "caught 100" \
"finish calls=100 exit=100 tail=0 unwound=0 open=0
later calls=10 exit=10 tail=0 unwound=0 open=0
tail_caller calls=100 $(ended 100) unwound=0 open=0
tail_catcher calls=100 $(ended 100) unwound=0 open=0
thrower calls=200 exit=0 tail=0 unwound=200 open=0" \
"tail_caller 100
thrower 100
tail_catcher 100
tail_catcher;thrower 100
finish 100
later 10" ./tail
exc_check_all tail tail 1 "thrower;later" "caught 100" \
"later calls=10 exit=10 tail=0 unwound=0 open=0
thrower calls=200 exit=0 tail=0 unwound=200 open=0" \
"thrower 200
later 10" ./tail
