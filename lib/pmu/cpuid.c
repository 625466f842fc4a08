#include <pmukit/cpuid.h>
