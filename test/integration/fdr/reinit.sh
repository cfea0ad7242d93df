# Re-initialisation: two cycles, two files, fresh buffers each time.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/fdr_lib.sh"
fdr_prog reinit
./reinit
files=( xray-log.reinit.* )
expect_eq "files" 2 "${#files[@]}"
got=""
for f in "${files[@]}"; do
  got+="$(fdr_header_field "$f" 16 8)=$(fdr_counts "$f" reinit);"
done
# order of the two names is random: sort the pairs
expect_eq "per-file buffer size and counts" "4096=first:3;8192=second:5;" \
  "$(echo "$got" | tr ';' '\n' | sort | grep . | tr '\n' ';')"
echo "reinit: ok"
