// The one C header Spotter includes. Only the Linalg module imports COpenBLAS.
#include <cblas.h>
