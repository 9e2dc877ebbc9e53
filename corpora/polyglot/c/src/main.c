#include <stdio.h>

#include "config.h"
#include "poly/vec.h"

int main(void) {
    vec_t v = {3.0, 4.0};
    printf("poly %s %f\n", POLY_VERSION, vec_len(v));
    return 0;
}
