#include <math.h>

#include "poly/vec.h"

static double square(double a) {
    return a * a;
}

double vec_len(vec_t v) {
    return sqrt(square(v.x) + square(v.y));
}
