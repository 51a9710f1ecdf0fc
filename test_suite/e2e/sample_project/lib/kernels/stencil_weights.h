/* SPDX-License-Identifier: MIT */
/* Private to stencil.c: the stencil weights (powers of two, so every result is exact). */
#ifndef SAMPLE_STENCIL_WEIGHTS_H
#define SAMPLE_STENCIL_WEIGHTS_H

#define STENCIL_CENTER 0.5
#define STENCIL_NEIGHBOUR 0.125

#endif
