// The same consumer as C++: the package's flags and headers work there too.
#include "app.c"
