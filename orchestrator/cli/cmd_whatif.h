/* orchestrator/cli/cmd_whatif.h: the options of gcbench whatif, shared by its sweep
 * (cmd_whatif.c) and its grid and constants printers (cmd_whatif_grid.c). */
#ifndef GC_CMD_WHATIF_H
#define GC_CMD_WHATIF_H

#include "model/predict_db.h"
#include "model/whatif.h"

struct opts {
	gc_whatif w;
	int json, grid, sens, free_codec, constants, steps;
	const char *grid_name;   /* --grid: "paper" or "study-code" */
	int seq_len;             /* 0: the catalogue's 128 tokens */
	int gpn;                 /* --gpus-per-node */
	gc_coll_algo algo;
	double intra_bw;         /* GB/s */
	double intra_lat;        /* us */
	const char *db;          /* --db: parameters fitted to this database */
	const char *svg;         /* --svg: chart directory */
	char bw_list[2048];      /* --bandwidth with each trace:FILE replaced by its mean */
	char trace_note[512];    /* "trace:a.trace at its mean 1250mbit, ...", or "" */
	gc_pdb_fit fit;
};

/* --constants: the paper preset's constants, values, ranges and sources. */
void gc_whatif_print_constants(void);

/* --grid paper|study-code [--sensitivity]: the grid's counts next to the study's
 * findings; 0 done, -1 failed (e says why). */
int gc_whatif_print_grid(const struct opts *o, gc_err *e);

/* --grid-steps: the win count as each assumption moves from the paper grid to the
 * study code's; 0 done, -1 failed (e says why). */
int gc_whatif_print_steps(const struct opts *o, gc_err *e);

#endif
