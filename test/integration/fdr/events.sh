# Custom and typed events: exact payloads in order; empty and oversized
# events are never written; typed events count their marker in the buffer
# length (compiler-rt's files end 16 bytes short per typed event).
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog custom
rm -f xray-log.custom.*
XRAY_OPTIONS=verbosity=1 ./custom "func_duration_threshold_us=0" 2>stderr.txt
f=$(only_file "xray-log.custom.*")
expect_eq "custom events" "hello-event ! hello-event ! hello-event !" \
  "$("$LLVM_XRAY" fdr-dump "$f" | grep '^<Custom Event' | sed -E "s/.*data = '(.*)'>$/\1/" | xargs)"
expect_eq "custom event sizes" "11 1 11 1 11 1" \
  "$("$LLVM_XRAY" fdr-dump "$f" | grep '^<Custom Event' | sed -E 's/.*size = ([0-9]+).*/\1/' | xargs)"
fdr_yaml "$f" custom >custom.yaml
expect_eq "yaml custom events" 6 "$(grep -c 'kind: custom-event' custom.yaml)"
expect_eq "functions around them" "framed_event:3/3 leaf_event:3/3" "$(fdr_calls "$f" custom)"
# the 20000-byte events fit no 16 KiB buffer; the empty ones are dropped too
grep -q "xray-fdr: 6 events dropped" stderr.txt || { cat stderr.txt >&2; fail "drop count"; }

fdr_prog typed
rm -f xray-log.typed.*
./typed "func_duration_threshold_us=0"
f=$(only_file "xray-log.typed.*")
expect_eq "typed events" \
  "7:typed-payload! 9:0123456789abcdef0123456789abcdef-33 7:typed-payload! 9:0123456789abcdef0123456789abcdef-33 7:typed-payload! 9:0123456789abcdef0123456789abcdef-33 7:typed-payload! 9:0123456789abcdef0123456789abcdef-33" \
  "$("$LLVM_XRAY" fdr-dump "$f" | grep '^<Typed Event' | sed -E "s/.*type = ([0-9]+), size = [0-9]+, data = '(.*)'$/\1:\2/" | xargs)"
# the whole file parses (a short buffer length would fail here) ...
fdr_yaml "$f" >typed.yaml
expect_eq "yaml typed events" 8 "$(grep -c 'kind: typed-event' typed.yaml)"
expect_eq "yaml function records" 16 "$(grep -c 'kind: function-' typed.yaml)"
# ... and its length is exact: header, extents, preamble (with one NewCPUId;
# one more per CPU migration), 16 function records, 4 + 4 typed events
cpus=$(fdr_dump_count "$f" '^<CPU:')
expect_eq "file size" $((32 + 16 + 64 + 16 * (cpus - 1) + 16 * 8 + 4 * (16 + 14) + 4 * (16 + 35))) "$(stat -c %s "$f")"
expect_eq "extents" $(( $(stat -c %s "$f") - 48 )) "$(fdr_header_field "$f" 33 8)"
echo "events: ok"
