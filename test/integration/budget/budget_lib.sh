# Helpers of the budget's tests (sourced after lib.sh).
need_llvm_xray

# The first line of every <log>.culled (docs/formats.md).
# shellcheck disable=SC2034  # used by the scripts that source this file
CULLED_HEADER=$(printf '# object\tfunction\tculled_at_s\tcalls_per_s\tcost_percent\tname')

# budget_build: ./budget_prog from budget_prog.c.
budget_build() {
  xr_cc budget_prog "$TEST_SRC_DIR/budget_prog.c"
}
# log_of DIR: the one log in DIR (log.budget_prog.XXXXXX, no suffix).
log_of() {
  only_file "$1/log.budget_prog.??????"
}
# culled_names FILE: the names (last column) of FILE's functions, sorted,
# on one line.
culled_names() {
  grep -v '^#' "$1" | awk -F'\t' '{ print $NF }' | sort | paste -sd' ' -
}
# check_culled_lines FILE: every function line has six tab-separated
# columns: object 0, the function's id as llvm-xray extract numbers it, a
# time, a call rate and a cost, each a number, and the function's name.
check_culled_lines() {
  "$LLVM_XRAY" extract --symbolize ./budget_prog >extract.yaml
  local object id at calls cost name want
  while IFS=$'\t' read -r object id at calls cost name; do
    [[ $object == "#"* ]] && continue
    want=$(sed -n "s/.*{ id: *\([0-9]*\),.*function-name: *${name}[ ,}].*/\1/p" extract.yaml | head -1)
    expect_eq "$1: $name's object" 0 "$object"
    expect_eq "$1: $name's id" "$want" "$id"
    [[ $at =~ ^[0-9]+\.[0-9]{3}$ && $calls =~ ^[0-9]+$ && $cost =~ ^[0-9]+\.[0-9]{3}$ ]] ||
      fail "$1: $name: not numbers: '$at' '$calls' '$cost'"
    [ "$calls" -gt 0 ] || fail "$1: $name culled at 0 calls per second"
  done <"$1"
}
# summary_lines ERR PERCENT CULLED: how many exit summary lines ERR holds
# for a budget of PERCENT with CULLED functions culled.
summary_lines() {
  grep -cE "^==[0-9]+==XRay: budget $2 %: [0-9,]+ of [0-9,]+ functions traced, $3 culled, est\. cost [0-9]+\.[0-9] %$" "$1" || true
}
# account_count LOG NAME: calls of NAME in LOG by llvm-xray account, which
# must read LOG with no error.
account_count() {
  "$LLVM_XRAY" account -m ./budget_prog -format=csv "$1" >account.csv 2>account.err ||
    { cat account.err >&2; fail "llvm-xray account failed on $1"; }
  [ ! -s account.err ] || { cat account.err >&2; fail "llvm-xray account complained about $1"; }
  awk -F, -v n="$2" 'NR > 1 { f = $NF; gsub(/"/, "", f); if (f == n) print $2 }' account.csv
}
# stack_reads LOG: llvm-xray stack reads LOG with no error.
stack_reads() {
  "$LLVM_XRAY" stack -instr_map ./budget_prog "$1" >stack.txt 2>stack.err ||
    { cat stack.err >&2; fail "llvm-xray stack failed on $1"; }
  [ ! -s stack.err ] || { cat stack.err >&2; fail "llvm-xray stack complained about $1"; }
}
# report_calls REPORT NAME: NAME's calls in a profile's report (.txt).
report_calls() {
  awk -v n="$2" '$1 != "#" && $8 == n { print $4 }' "$1"
}
# out_value FILE KEY: the value of "KEY value" in the program's output.
out_value() {
  sed -n "s/^$2 //p" "$1"
}
