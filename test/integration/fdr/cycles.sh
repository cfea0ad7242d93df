# Init/finalize/flush cycles while 3 threads trace without pause: fresh
# buffers each cycle, old ones unmapped under running threads, every
# cycle's trace readable.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog cycles -Wno-unused-function
./cycles 3 40
for c in $(seq 0 39); do
  f=cycle-$c.trace
  [ -s "$f" ] || fail "$f empty"
  size=$((1024 << (c % 4)))
  expect_eq "$f buffer size" "$size" "$(fdr_header_field "$f" 16 8)"
  fdr_yaml "$f" >"$f.yaml" || fail "$f unreadable"
  grep -q "kind: function-enter" "$f.yaml" || fail "$f has no function records"
done
echo "cycles: ok"
