#ifndef AUTHDECK_CCJOSE_SHIM_H
#define AUTHDECK_CCJOSE_SHIM_H
#include <cjose/cjose.h>
#endif
