#ifndef CFIXMATH_SHIM_H
#define CFIXMATH_SHIM_H
/*
 * The sine and cosine of one angle in one call. glibc's sincos shares the argument reduction
 * and gives the same two values as sin and cos (FixKit's GeodesyTests check it on two million
 * angles), in about four fifths of the time: every fence centre and every fix is turned into
 * Earth-centred coordinates from the sine and cosine of its latitude and of its longitude.
 * Elsewhere the two calls, so that the values are sin's and cos's everywhere.
 */
#include <math.h>

#if defined(__linux__)
extern void sincos(double x, double *sine, double *cosine);
#endif

static inline void fixkit_sincos(double x, double *sine, double *cosine) {
#if defined(__linux__)
    sincos(x, sine, cosine);
#else
    *sine = sin(x);
    *cosine = cos(x);
#endif
}
#endif
