/* common/npy.h: reading and writing float32 .npy files (NumPy format 1.0-3.0).
 *
 * Only little-endian float32 ('<f4'), C order, is accepted: that is what numpy and
 * PyTorch (`np.save(p, t.numpy())`) write for gradients. Anything else (another dtype,
 * Fortran order, a truncated file, not .npy at all) is refused with a message that
 * says what was found and what to do.
 */
#ifndef GC_NPY_H
#define GC_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "result.h"

#define GC_NPY_MAXDIM 8

typedef struct gc_npy {
	float *data;                    /* owned; numel floats */
	size_t numel;
	int ndim;                       /* 0 for a scalar */
	size_t shape[GC_NPY_MAXDIM];
} gc_npy;

/* Parse an in-memory .npy image. On success *out owns a copy of the data; release it
 * with gc_npy_release(). On failure *out is left empty and e says why. */
gc_rc gc_npy_parse(const void *buf, size_t len, gc_npy *out, gc_err *e);

/* Read path into *out (see gc_npy_parse); messages name the file. */
gc_rc gc_npy_read(const char *path, gc_npy *out, gc_err *e);

/* Write numel floats with the given shape (ndim 0..GC_NPY_MAXDIM; the product of the
 * shape must equal numel) as a version 1.0 .npy file. Atomic: written to a temporary
 * file beside path, then renamed. */
gc_rc gc_npy_write(const char *path, const float *data, size_t numel, int ndim,
		   const size_t *shape, gc_err *e);

/* Free the data and reset *a; accepts NULL and already-released arrays. */
void gc_npy_release(gc_npy *a);

#endif
