/* kernels/cuda/dispatch.cu: the CUDA method table for each method (internal.h). */
#include "cu_common.cuh"

extern "C" const struct gc_method_ops *gc_cuda_ops(gc_method m)
{
	switch (m) {
	case GC_M_SYNCSGD:  return &gc_cu_syncsgd_ops;
	case GC_M_FP16:     return &gc_cu_fp16_ops;
	case GC_M_SIGNSGD:  return &gc_cu_signsgd_ops;
	case GC_M_TOPK:     return &gc_cu_topk_ops;
	case GC_M_MSTOPK:   return &gc_cu_mstopk_ops;
	case GC_M_POWERSGD: return &gc_cu_powersgd_ops;
	case GC_M_BF16:     return &gc_cu_bf16_ops;
	case GC_M_RANDOMK:  return &gc_cu_randomk_ops;
	case GC_M_TERNGRAD: return &gc_cu_terngrad_ops;
	case GC_M_QSGD:     return &gc_cu_qsgd_ops;
	case GC_M_EFSIGN_AR: return &gc_cu_efsign_ar_ops;
	case GC_M_DGC:      return &gc_cu_dgc_ops;
	case GC_M_CGX:      return &gc_cu_cgx_ops;
	default:            return NULL;
	}
}
