# AVX-512 state through the full paths (avx512.c): __m512/__m512i arguments
# and results bit for bit against the unpatched run while the handler uses
# libm and every zmm/k register; event sleds with zmm0-31 and k0-7 live.
# Skips (77) where the CPU or OS lacks AVX-512.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
grep -qw avx512bw /proc/cpuinfo || skip "no avx512bw in /proc/cpuinfo"
xr_cc avx512 "$TEST_SRC_DIR/avx512.c" -O2 -mavx512f -mavx512bw -lm
status=0
./avx512 >out.txt 2>err.txt || status=$?
[ $status -ne 77 ] || skip "$(cat err.txt)"
[ $status -eq 0 ] || { cat out.txt err.txt >&2; fail "exited $status"; }
expect_file_eq "AVX-512 state" "$TEST_SRC_DIR/avx512.expected" out.txt
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"
