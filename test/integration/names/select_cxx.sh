# The C++ program: namespaces, overloads, templates (see select.sh).
set -- cxx
source "$TEST_SRC_DIR/select.sh"
