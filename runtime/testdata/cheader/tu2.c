/* The second translation unit of a two-unit program (use.c with KG_TWO_UNITS). */
#define KG_SECOND_UNIT 1
#include "use.c"
