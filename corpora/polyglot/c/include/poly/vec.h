#pragma once

#define VEC_EPSILON 1e-9

struct Vec {
    double x;
    double y;
};

typedef struct Vec vec_t;

double vec_len(vec_t v);
