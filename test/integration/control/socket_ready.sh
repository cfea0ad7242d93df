# The socket's name <pid>.sock appears only once the socket listens
# (socket_ready.c): a client that waits for the file and then connects is
# accepted. The runtime binds <pid>.new and renames it after listen().
source "$TEST_SRC_DIR/control_lib.sh"
xr_cc socket_ready "$TEST_SRC_DIR/socket_ready.c"
XRAY_OPTIONS="xray_control=true xray_control_dir=$CTL_DIR" ./socket_ready "$CTL_DIR" \
  >out.txt 2>err.txt || { exit_status=$?; cat err.txt >&2; fail "socket_ready exited $exit_status"; }
expect_eq "the name at listen and after" \
  "listen calls 1, name present at listen 0, in main 1, connect accepted 1" "$(cat out.txt)"
[ ! -s err.txt ] || fail "unexpected stderr: $(cat err.txt)"
expect_eq "names left in $CTL_DIR after exit" "" "$(ls -A "$CTL_DIR")"
echo "socket_ready: ok"
