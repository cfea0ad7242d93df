# Helpers for basic-mode integration tests (sourced after lib.sh's checks).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
need_llvm_xray
PROGS="$TEST_SRC_DIR/progs"

# build NAME [extra flags...]: progs/NAME.c -> ./NAME against libxray.a
build() {
  local name=$1; shift
  xr_cc "$name" "$PROGS/$name.c" "$@"
}

# counts BIN LOG: "function count" per line, sorted by name (llvm-xray account)
counts() {
  "$LLVM_XRAY" account -m "$1" -format=csv "$2" |
    awk -F, 'NR > 1 { gsub(/"/, "", $NF); print $NF, $2 }' | sort
}

# edges BIN LOG: "caller -> callee" per call-graph edge (llvm-xray graph)
edges() {
  "$LLVM_XRAY" graph -m "$1" "$2" |
    awk '/label="[^"]*"\];$/ && !/->/ { id = $1; sub(/.*label="/, ""); sub(/"\];$/, ""); name[id] = $0 }
         /->/ { e[++n] = $1 " " $3 }
         END { for (i = 1; i <= n; i++) { split(e[i], p, " ");
                 print (p[1] in name ? name[p[1]] : "(root)") " -> " name[p[2]] } }' | sort
}

# yaml BIN LOG: the records as YAML (llvm-xray convert), symbolized
yaml() {
  "$LLVM_XRAY" convert -f yaml -m "$1" --symbolize "$2"
}

# logs PATTERN: number of files matching
nfiles() {
  # shellcheck disable=SC2206  # $1 is a glob: expanding it is the point
  local matched=( $1 )
  if [ -e "${matched[0]}" ]; then echo ${#matched[@]}; else echo 0; fi
}

# The compiler-rt reference runtime, for side-by-side checks (may be absent).
REF_DIR="$("$XRAY_CLANG" -print-resource-dir)/lib/linux"
# (not under sanitizers: compiler-rt's archives clash with their runtimes)
have_ref() {
  [ -z "${XRAY_TEST_SANITIZE:-}" ] &&
  [ -f "$REF_DIR/libclang_rt.xray-${XRAY_TEST_ARCH}.a" ] && [ -f "$REF_DIR/libclang_rt.xray-basic-${XRAY_TEST_ARCH}.a" ]
}
build_ref() {
  local name=$1; shift
  "$XRAY_CLANG" -g -O1 "${XRAY_CFLAGS[@]}" "$PROGS/$name.c" "$@" -o "$name.ref" \
    -Wl,--whole-archive "$REF_DIR/libclang_rt.xray-${XRAY_TEST_ARCH}.a" \
    "$REF_DIR/libclang_rt.xray-basic-${XRAY_TEST_ARCH}.a" -Wl,--no-whole-archive \
    -lpthread -lrt -lm -ldl
}
