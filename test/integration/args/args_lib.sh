# Helpers of the argument-capture tests (sourced after lib.sh): the program
# (args_prog.c) and the checker (check_args.py), whose table is the one
# SPEC the tests give.
need_llvm_xray
XRAYCTL=${XRAYCTL:-$(dirname "$XRAY_LIB")/../bin/xrayctl} # cross.sh: under the emulator
[ -x "$XRAYCTL" ] || fail "xrayctl not built at $XRAYCTL"
command -v protoc >/dev/null || skip "protoc not found (Debian: protobuf-compiler)"
PB_PYTHON=
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null && "$py" -c 'import google.protobuf, yaml' 2>/dev/null; then
    PB_PYTHON=$py
    break
  fi
done
[ -n "$PB_PYTHON" ] || skip "no python3 with the protobuf and yaml modules (Debian: python3-protobuf)"
PERFETTO_DIR=$XRAY_SRC/test/integration/perfetto
mkdir -p pb
protoc --proto_path="$PERFETTO_DIR" --python_out=pb "$PERFETTO_DIR/xray_perfetto.proto" ||
  fail "protoc rejects xray_perfetto.proto"
CHECK=("$PB_PYTHON" "$TEST_SRC_DIR/check_args.py")
xr_cc args_prog "$TEST_SRC_DIR/args_prog.c" -lm
# shellcheck disable=SC2034  # used by the scripts that source this file
SPEC=$("${CHECK[@]}" spec "$XRAY_TEST_ARCH")
# shellcheck disable=SC2034  # used by the scripts that source this file
PROG_FILE=$(xr_program_file args_prog)

# log_of PREFIX: the one binary log matching PREFIX* (not .json/.pftrace/.map)
log_of() {
  local f files=()
  for f in "$1"*; do
    case $f in *.json | *.pftrace | *.map | *.culled) ;; *) [ -e "$f" ] && files+=("$f") ;; esac
  done
  [ ${#files[@]} -eq 1 ] || fail "expected one log $1*, got: ${files[*]:-none}"
  echo "${files[0]}"
}
# check WHAT KIND FILE...: the checker on FILE, its "ok: N values" line kept
check() {
  local what=$1
  shift
  "${CHECK[@]}" "$@" "$XRAY_TEST_ARCH" >check.out || { cat check.out >&2; fail "$what"; }
  note "$what: $(cat check.out)"
}
