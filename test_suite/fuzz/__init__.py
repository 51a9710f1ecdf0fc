# SPDX-License-Identifier: MIT
"""Fuzz driver: mutated kernels through pencilcc --lint, pencilcc -O3 -c and gcc -c (see __main__)."""
