// The C headers Spotter includes: OpenBLAS, and Spotter's own packed kernels
// (packed_kernels.h). Only the Linalg module imports COpenBLAS.
#include <cblas.h>
