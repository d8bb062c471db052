/* worker/wk_digits.S: the digits data set (GCBDAT1, converted at build time by
 * tools/digits_convert.py from python3-sklearn's copy) inside gcbench-worker, so that
 * provisioning a node copies it with the program. Empty when the build had none
 * (GC_DIGITS_FILE undefined); see gc_data_builtin in worker/wk_data.h. */
	.section .rodata
	.balign 16
	.globl gc_wk_digits_start
	.globl gc_wk_digits_end
gc_wk_digits_start:
#ifdef GC_DIGITS_FILE
	.incbin GC_DIGITS_FILE
#endif
gc_wk_digits_end:
	.section .note.GNU-stack,"",@progbits
