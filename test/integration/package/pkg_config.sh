# `clang $(pkg-config --cflags --libs xray) app.c -o app` against an
# installed runtime.
# shellcheck source=../lib.sh
source "$XRAY_TEST_LIB_SH"
source "$TEST_SRC_DIR/package_lib.sh"
command -v pkg-config >/dev/null || skip "pkg-config not installed"

install_runtime "$PWD/prefix"
export PKG_CONFIG_PATH="$PWD/prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs xray) || fail "pkg-config does not know xray"
expect_eq "version" "$(sed -n 's/^Version: //p' "$PWD/prefix/lib/pkgconfig/xray.pc")" \
  "$(pkg-config --modversion xray)"
# The very line the README shows.
# shellcheck disable=SC2086  # pkg-config's flags, split on purpose (and below)
"$XRAY_CLANG" $flags "$CONSUMER_SRC/app.c" -o app ${SAN_FLAGS[@]+"${SAN_FLAGS[@]}"} ||
  fail "clang with pkg-config flags"
check_app ./app
check_traced ./app
# An instrumented plugin built with xray-dso, dlopen'd by a program built
# with xray (whose flags export the runtime to it).
# shellcheck disable=SC2046  # pkg-config's flags, split on purpose
"$XRAY_CLANG" -fPIC -shared $(pkg-config --cflags --libs xray-dso) "$CONSUMER_SRC/plugin.c" \
  -o plugin.so ${SAN_FLAGS[@]+"${SAN_FLAGS[@]}"} || fail "clang with xray-dso flags"
# shellcheck disable=SC2086  # the same
"$XRAY_CLANG" $flags "$CONSUMER_SRC/app_plugin.c" -o app_plugin -ldl \
  ${SAN_FLAGS[@]+"${SAN_FLAGS[@]}"} || fail "app_plugin with pkg-config flags"
check_plugin ./app_plugin "$PWD/plugin.so"
# The same program as an uninstrumented host: compiled with the include
# path only, linked with xray's libs (which instrument nothing at link).
# shellcheck disable=SC2046  # the same
"$XRAY_CLANG" $(pkg-config --cflags-only-I xray) -c "$CONSUMER_SRC/app_plugin.c" -o host_plugin.o \
  ${SAN_FLAGS[@]+"${SAN_FLAGS[@]}"} || fail "host_plugin.o with xray's include path"
# shellcheck disable=SC2046  # the same
"$XRAY_CLANG" host_plugin.o -o host_plugin $(pkg-config --libs xray) -ldl \
  ${SAN_FLAGS[@]+"${SAN_FLAGS[@]}"} || fail "host_plugin with xray's libs"
check_host ./host_plugin "$PWD/plugin.so"

# Another clang than the one seen at configure time may need the other
# spelling of "no link deps": the variable is there to override.
for cc in $(other_clangs clang-13 clang-19); do
  flag=-fnoxray-link-deps
  [ "$cc" = clang-19 ] && flag=-fno-xray-link-deps
  # shellcheck disable=SC2046  # the same
  "$cc" $(pkg-config --define-variable=xray_no_link_deps=$flag --cflags --libs xray) \
    "$CONSUMER_SRC/app.c" -o "app-$cc" || fail "pkg-config flags with $cc"
  check_app "./app-$cc"
done

# The prefix is found from the .pc file's place: a moved install still works.
mv prefix moved
export PKG_CONFIG_PATH="$PWD/moved/lib/pkgconfig"
# shellcheck disable=SC2046  # the same
"$XRAY_CLANG" $(pkg-config --cflags --libs xray) "$CONSUMER_SRC/app.c" -o app-moved \
  ${SAN_FLAGS[@]+"${SAN_FLAGS[@]}"} ||
  fail "relocated install"
check_app ./app-moved
echo "PASS"
