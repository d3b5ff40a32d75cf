// tu2.c as C++17.
#include "tu2.c"
