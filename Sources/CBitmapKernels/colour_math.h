// 3x3 matrix helpers the colour conversions share (colour.c, tone_map.c).
#ifndef WI_COLOUR_MATH_H
#define WI_COLOUR_MATH_H

/// `m` (row-major) inverted into `out`; -1 when it has no inverse.
int wi_invert3(const double m[9], double out[9]);

#endif
