// header.c compiled as C++: <xray/xray_budget.h> in C++ programs.
#include "header.c"
