# Helpers of the trace-view tests (sourced after lib.sh).
need_llvm_xray
command -v python3 >/dev/null || skip "python3 not found"
CHECK="python3 $TEST_SRC_DIR/chrome_check.py"
# The llvm-xray versions to check against: the configured one, plus 14 and
# 19 when installed (the oldest and newest the docs check against), each once.
LLVM_XRAY_VERSIONS=()
for x in "$LLVM_XRAY" "$(command -v llvm-xray-14 || true)" "$(command -v llvm-xray-19 || true)"; do
  [ -n "$x" ] || continue
  r=$(readlink -f "$x")
  case " ${LLVM_XRAY_VERSIONS[*]} " in *" $r "*) ;; *) LLVM_XRAY_VERSIONS+=("$r") ;; esac
done

# build_threads: progs/threads.c -> ./threads
build_threads() {
  xr_cc threads "$TEST_SRC_DIR/progs/threads.c"
}
# log_of PREFIX: the one binary log (not the .json) matching PREFIX*
log_of() {
  local f files=()
  for f in "$1"*; do
    if [[ -e $f && $f != *.json ]]; then files+=("$f"); fi
  done
  [ ${#files[@]} -eq 1 ] || fail "expected one log $1*, got: ${files[*]:-none}"
  echo "${files[0]}"
}
# check_against_llvm_xray LOG: the JSON beside LOG against convert and
# account of every llvm-xray version; prints the checker's summary.
check_against_llvm_xray() {
  local log=$1 args=() i=0
  for x in "${LLVM_XRAY_VERSIONS[@]}"; do
    i=$((i + 1))
    "$x" account -m threads -format=csv "$log" > "account$i.csv" ||
      fail "$x account rejects $log"
    "$x" convert -f trace_event -m threads --symbolize "$log" -o "convert$i.json" ||
      fail "$x convert rejects $log"
    args+=(--account "account$i.csv" --ref "convert$i.json")
  done
  $CHECK "$log.json" "${args[@]}"
}
