# Tail exits and logged arguments are written as such; short calls and short
# tail-call chains are erased at a threshold, long calls are kept.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
# -O2: tail_a and tail_b end in tail calls (a TAIL sled before the jmp).
fdr_prog tail_args -O2
"$LLVM_XRAY" extract tail_args | grep -q "kind: tail-exit" ||
  skip "the compiler made no tail calls"

# Threshold 0: everything, exactly.
rm -f xray-log.tail_args.*
./tail_args "func_duration_threshold_us=0" 5
f=$(only_file "xray-log.tail_args.*")
fdr_yaml "$f" tail_args >all.yaml
kinds() { grep -E "function: $1," all.yaml | sed -E 's/.*kind: ([a-z-]+).*/\1/' | sort | uniq -c | awk '{print $2 "=" $1}' | paste -sd' ' -; }
expect_eq "tail_a records" "function-enter=5 function-tail-exit=5" "$(kinds tail_a)"
expect_eq "tail_b records" "function-enter=5 function-tail-exit=5" "$(kinds tail_b)"
expect_eq "leaf records" "function-enter=5 function-exit=5" "$(kinds leaf)"
expect_eq "with_arg records" "function-enter-arg=5 function-exit=5" "$(kinds with_arg)"
expect_eq "with_arg arguments" "100 101 102 103 104" \
  "$(grep -E 'function: with_arg,' all.yaml | grep -o 'args: \[ [0-9]* \]' | tr -dc '0-9 \n' | xargs)"
expect_eq "account" "leaf:5 slow:1 tail_a:5 tail_b:5 with_arg:5" "$(fdr_counts "$f" tail_args)"

# Threshold 200 ms (a short call takes nanoseconds: only a 200 ms stall
# could keep one), on one CPU (xr_pinned: a call that changed CPU is never
# erased): the 300 ms slow() stays; every short call and every tail-call
# chain (tail_a -> tail_b -> leaf) is erased; calls with a logged argument
# are never erased (as compiler-rt).
rm -f xray-log.tail_args.*
xr_pinned ./tail_args "func_duration_threshold_us=200000" 50
f=$(only_file "xray-log.tail_args.*")
fdr_yaml "$f" tail_args >short.yaml
expect_eq "kept at 200 ms" "slow:1/1 with_arg:50/50" "$(fdr_calls "$f" tail_args)"
expect_eq "account at 200 ms" "slow:1 with_arg:50" "$(fdr_counts "$f" tail_args)"
echo "tail_args: ok"
