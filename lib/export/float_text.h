/* Floating-point numbers as decimal text, exactly as printf's %.17g (a
 * double) and %.9g (a float) write them, from their bits: enough digits
 * that a reader gets the same bits back. No libc, no allocation, no
 * floating-point arithmetic (the digits come from the exact integer value
 * of the bits): async-signal-safe, so the crash-time trace writers use it.
 * Cost: a few microseconds for the smallest numbers (an 800-digit exact
 * expansion), far less for the usual ones. */
#ifndef XR_EXPORT_FLOAT_TEXT_H
#define XR_EXPORT_FLOAT_TEXT_H

#include "core/base/common.h"

/* The longest text xr_float_text writes, its NUL included. */
#define XR_FLOAT_TEXT_MAX 32

/* The finite number of `bits` (a double's 64, or with f32 a float's 32 in
 * the low half) as %.17g / %.9g writes it ("1.1000000000000001",
 * "-0", "1e+100"), NUL-terminated in out; returns its length. Infinities
 * and NaNs: "inf", "-inf", "nan", "-nan", as printf. */
XR_HIDDEN size_t xr_float_text(uint64_t bits, bool f32, char out[XR_FLOAT_TEXT_MAX]);

#endif
