# The Perfetto schema for the tests that decode traces (sourced after
# lib.sh): a Python with the protobuf runtime (and the modules named in
# PB_MODULES, when the sourcing script sets it) in PB_PYTHON, and this
# folder's xray_perfetto.proto (its own copy of the messages and fields the
# runtime writes) compiled by protoc into ./pb.
PERFETTO_DIR=$XRAY_SRC/test/integration/perfetto
command -v protoc >/dev/null || skip "protoc not found (Debian: protobuf-compiler)"
PB_PYTHON=
for py in python3 /usr/bin/python3; do
  if command -v "$py" >/dev/null &&
     "$py" -c "import google.protobuf${PB_MODULES:+, $PB_MODULES}" 2>/dev/null; then
    PB_PYTHON=$py
    break
  fi
done
[ -n "$PB_PYTHON" ] ||
  skip "no python3 with the protobuf module${PB_MODULES:+ and $PB_MODULES} (Debian: python3-protobuf)"
mkdir -p pb
protoc --proto_path="$PERFETTO_DIR" --python_out=pb "$PERFETTO_DIR/xray_perfetto.proto" ||
  fail "protoc rejects xray_perfetto.proto"
