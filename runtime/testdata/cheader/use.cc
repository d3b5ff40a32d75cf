// use.c as C++17.
#include "use.c"
