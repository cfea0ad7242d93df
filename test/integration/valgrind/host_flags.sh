# Under valgrind the port's CPU-id instructions need the host's flags too:
# valgrind 3.19's CPUID lists rdtscp on any host with SSE4.2, while its
# decoder translates rdtscp only where the host CPU has it (SIGILL
# otherwise). In a mount namespace whose /proc/cpuinfo lists neither rdpid
# nor rdtscp (a copy bind-mounted over it), traced.c under memcheck reads
# the CPU with sched_getcpu, in basic and FDR mode (FDR: the slow source),
# and both logs are whole. Needs the right to unshare a mount namespace
# (root); skipped without it.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/valgrind_lib.sh"
[ "$(uname -m)" = x86_64 ] || skip "x86-64 only: the AArch64 port has no CPU-id instruction"
command -v unshare >/dev/null || skip "unshare (util-linux) not found"
sed -E 's/ (rdtscp|rdpid)\b//g' /proc/cpuinfo >cpuinfo.without
# in_namespace CMD...: CMD where /proc/cpuinfo is cpuinfo.without
in_namespace() {
  # shellcheck disable=SC2016  # expanded by the inner sh, not here
  unshare --mount sh -c 'mount --bind "$0" /proc/cpuinfo && exec "$@"' "$PWD/cpuinfo.without" "$@"
}
in_namespace sh -c '! grep -q -w -e rdtscp -e rdpid /proc/cpuinfo' 2>/dev/null ||
  skip "cannot bind-mount over /proc/cpuinfo in a mount namespace of our own (not root?)"
# shellcheck disable=SC2034  # read by memcheck (valgrind_lib.sh)
VG_PREFIX=(in_namespace)

memcheck basic XRAY_OPTIONS="xray_logfile_base=basic- verbosity=2" \
  ./traced xray-basic "func_duration_threshold_us=0" "$CALLS"
reader=$(grep -o 'cpu id via .*' basic.err) || fail "no clock line: $(cat basic.err)"
[[ $reader == "cpu id via sched_getcpu"* ]] || fail "basic: $reader, where the host lists neither rdpid nor rdtscp"
expect_eq "basic: log" "$(want_yaml 0)" "$(yaml_calls "$(only_file "basic-traced.??????")" basic)"

memcheck fdr XRAY_OPTIONS="xray_logfile_base=fdr- verbosity=2" \
  ./traced xray-fdr "func_duration_threshold_us=0" "$CALLS"
reader=$(grep -o 'cpu id via .*' fdr.err) || fail "no clock line: $(cat fdr.err)"
[[ $reader == "cpu id via sched_getcpu"* ]] || fail "fdr: $reader, where the host lists neither rdpid nor rdtscp"
expect_eq "fdr: log" "$(want_yaml "$(events_of fdr)" 2)" "$(yaml_calls "$(only_file "fdr-traced.??????")" fdr)"
echo "host_flags: ok"
