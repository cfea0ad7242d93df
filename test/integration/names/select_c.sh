# The C program (see select.sh).
set -- c
source "$TEST_SRC_DIR/select.sh"
