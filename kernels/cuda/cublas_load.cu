/* kernels/cuda/cublas_load.cu: cuBLAS through dlopen (cublas_load.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "cublas_load.h"

#define GC_STR2(x) #x
#define GC_STR(x) GC_STR2(x)
#define GC_CUBLAS_SONAME "libcublas.so." GC_STR(CUBLAS_VER_MAJOR)

static struct gc_cublas_api api;
static const struct gc_cublas_api *loaded;
static char why[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int sym(void *h, const char *name, void **out)
{
	*out = dlsym(h, name);
	if (!*out)
		snprintf(why, sizeof(why), "%s has no '%s': install the cuBLAS of CUDA %d",
			 GC_CUBLAS_SONAME, name, CUBLAS_VER_MAJOR);
	return *out ? 0 : -1;
}

static void load(void)
{
	void *h = dlopen(GC_CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
	void *p[7];
	/* the _v2 names are what cublas_v2.h's macros call */
	static const char *const names[7] = { "cublasCreate_v2", "cublasDestroy_v2",
		"cublasSetStream_v2", "cublasSetMathMode", "cublasSgemm_v2_64",
		"cublasSaxpy_v2_64", "cublasGetStatusString" };

	if (!h) {
		const char *d = dlerror();
		snprintf(why, sizeof(why), "cannot load %s (%s): install cuBLAS (the CUDA "
			 "toolkit's libcublas) where the dynamic loader finds it", GC_CUBLAS_SONAME,
			 d ? d : "not found");
		return;
	}
	for (int i = 0; i < 7; i++)
		if (sym(h, names[i], &p[i]))
			return;   /* the handle stays open: harmless, and a retry would fail alike */
	api.create = reinterpret_cast<cublasStatus_t (*)(cublasHandle_t *)>(p[0]);
	api.destroy = reinterpret_cast<cublasStatus_t (*)(cublasHandle_t)>(p[1]);
	api.set_stream = reinterpret_cast<cublasStatus_t (*)(cublasHandle_t, cudaStream_t)>(p[2]);
	api.set_math_mode = reinterpret_cast<cublasStatus_t (*)(cublasHandle_t, cublasMath_t)>(p[3]);
	api.sgemm_64 = reinterpret_cast<decltype(api.sgemm_64)>(p[4]);
	api.saxpy_64 = reinterpret_cast<decltype(api.saxpy_64)>(p[5]);
	api.status_string = reinterpret_cast<const char *(*)(cublasStatus_t)>(p[6]);
	loaded = &api;
}

extern "C" const struct gc_cublas_api *gc_cublas(gc_err *e)
{
	pthread_once(&once, load);
	if (!loaded)
		gc_fail(e, GC_E_CUDA, "%s", why);
	return loaded;
}
