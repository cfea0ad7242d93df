source "$XRAY_TEST_LIB_SH"; skip todo
