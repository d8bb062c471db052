/* gcbench init hook NAME: the files a hook author starts from (docs/hooks.md): a DDP
 * communication hook with error feedback, and a spec sweeping it against DDP's
 * all-reduce and the fp16 hook at two caps. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "log.h"

static const char *dir = ".";
static int force_opt;
static const struct gc_option init_opts[] = {
	GC_OPTION_STRING("--dir", NULL, &dir, "DIR", "write them in DIR (default: the current folder)"),
	GC_OPTION_FLAG("--force", NULL, &force_opt, "replace files that exist"),
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gcbench init hook NAME [--dir DIR] [--force]\n\n"
		"Write the two files of your own DDP communication hook (docs/hooks.md):\n"
		"  NAME_hook.py  make_hook(**params) -> (state, hook): the comm-hook signature,\n"
		"                an error-feedback residual per bucket, an fp16 payload to\n"
		"                replace with your compressor\n"
		"  NAME.yaml     workload: ddp sweeping NAME against syncsgd (DDP's all-reduce)\n"
		"                and fp16 at two caps\n"
		"then run: gcbench cluster up 2, and gcbench run NAME.yaml --inventory INV.\n"
		"NAME is 1-24 lowercase letters, digits and _, starting with a letter, and not\n"
		"one of PyTorch's hooks by gcbench's name (syncsgd, fp16, bf16, powersgd,\n"
		"batched_powersgd). Existing files are kept unless --force.\n\n"
		"options:\n");
	gc_opts_usage(f, init_opts, sizeof init_opts / sizeof init_opts[0], 15);
	fputs("\n" GC_EXIT_HELP, f);
}

static const char hook_text[] =
	"\"\"\"@N@: a DDP communication hook, measured by gcbench (docs/hooks.md).\n"
	"\n"
	"make_hook(**params) returns (state, hook) as DistributedDataParallel.register_comm_hook\n"
	"takes them; the spec's parameters other than hook: arrive as keyword arguments.\n"
	"The payload here is fp16: replace encode and decode with your compressor.\n"
	"\"\"\"\n"
	"import torch\n"
	"import torch.distributed as dist\n"
	"\n"
	"\n"
	"class State:\n"
	"    \"\"\"Kept between iterations: what each bucket did not send (error feedback).\"\"\"\n"
	"\n"
	"    def __init__(self):\n"
	"        self.residual = {}\n"
	"\n"
	"\n"
	"def hook(state, bucket):\n"
	"    g, i = bucket.buffer(), bucket.index()\n"
	"    r = state.residual.get(i)\n"
	"    if r is not None and r.numel() == g.numel():   # DDP rebuilds its buckets once\n"
	"        g.add_(r)                                  # error feedback\n"
	"    payload = g.to(torch.float16)                  # encode\n"
	"    state.residual[i] = g - payload.float()\n"
	"    fut = dist.all_reduce(payload, async_op=True).get_future()   # comm\n"
	"\n"
	"    def decode(f):                                 # the same average on every rank\n"
	"        return f.value()[0].float().div_(dist.get_world_size())\n"
	"    return fut.then(decode)\n"
	"\n"
	"\n"
	"def make_hook():\n"
	"    return State(), hook\n";

static const char spec_text[] =
	"# @N@: your hook (@N@_hook.py) against DDP's all-reduce and the fp16 hook at two\n"
	"# caps (docs/hooks.md). Run: gcbench cluster up 2, then\n"
	"#   gcbench run @N@.yaml --inventory INVENTORY\n"
	"name: @N@\n"
	"workload: ddp\n"
	"models: [resnet50]\n"
	"methods:\n"
	"  - syncsgd\n"
	"  - fp16\n"
	"  - @N@: {hook: @N@_hook.py:make_hook}\n"
	"baseline: syncsgd\n"
	"bandwidth: [1gbit, 5gbit]\n"
	"world_size: 2\n"
	"batch: 32\n"
	"iterations: 20\n"
	"warmup: 5\n";

static int name_ok(const char *s)
{
	static const char *const taken[] = { "syncsgd", "fp16", "bf16", "powersgd",
					     "batched_powersgd" };
	size_t n = strlen(s);

	if (n < 1 || n > 24 || s[0] < 'a' || s[0] > 'z' ||
	    strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
		return 0;
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
		if (!strcmp(s, taken[i]))
			return 0;
	return 1;
}

/* text with every @N@ replaced by name */
static int put_text(FILE *f, const char *text, const char *name)
{
	for (const char *p = text, *at; *p; p = at + 3) {
		at = strstr(p, "@N@");
		if (!at)
			return fputs(p, f) < 0;
		if (fwrite(p, 1, (size_t)(at - p), f) != (size_t)(at - p) || fputs(name, f) < 0)
			return 1;
	}
	return 0;
}

/* Write path from text (@N@: name); 0, or a message and -1. */
static int write_one(const char *path, int force, const char *text, const char *name)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL), 0644);
	FILE *f;
	int bad;

	if (fd < 0) {
		gc_error("cannot write '%s': %s%s", path, strerror(errno),
			 errno == EEXIST ? " (keep it, or give --force to replace it)" : "");
		return -1;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		gc_error("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	bad = put_text(f, text, name);
	if (fclose(f) || bad) {
		gc_error("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	printf("wrote %s\n", path);
	return 0;
}

int cmd_init(int argc, char **argv)
{
	const char *name = NULL;
	char hook[1200], spec[1200];
	int r;
	gc_opts o;

	if (argc >= 2 && argv[1][0] != '-' && strcmp(argv[1], "hook")) {
		static const char *const subs[] = { "hook" };
		return gc_cli_unknown_sub("gcbench init", argv[1], subs, 1);
	}
	gc_opts_decl_init(&o, "gcbench init", init_opts, sizeof init_opts / sizeof init_opts[0],
			  argc > 1 && !strcmp(argv[1], "hook") ?
			  argc - 1 : argc, argc > 1 && !strcmp(argv[1], "hook") ? argv + 1 : argv,
			  NULL);
	o.positional = 1;
	while ((r = gc_opts_next(&o)) == GC_OPTS_POS) {
		if (!name)
			name = o.val;
		else {
			gc_error("gcbench init hook takes one NAME; got '%s' too", o.val);
			return GC_EXIT_USAGE;
		}
	}
	if (r != GC_OPTS_END)
		return gc_cli_opts_stop(&o, r, usage);
	if (argc < 2 || strcmp(argv[1], "hook") || !name) {
		gc_error("name the hook: gcbench init hook NAME (e.g. gcbench init hook int8)");
		return GC_EXIT_USAGE;
	}
	if (!name_ok(name)) {
		gc_error("hook name '%.40s' is not 1-24 lowercase letters, digits and _ starting "
			 "with a letter, or is one of PyTorch's hooks by gcbench's name; write e.g. "
			 "gcbench init hook int8", name);
		return GC_EXIT_USAGE;
	}
	if ((size_t)snprintf(hook, sizeof(hook), "%s/%s_hook.py", dir, name) >= sizeof(hook) ||
	    (size_t)snprintf(spec, sizeof(spec), "%s/%s.yaml", dir, name) >= sizeof(spec)) {
		gc_error("--dir '%.60s...' is too long", dir);
		return GC_EXIT_USAGE;
	}
	if (!force_opt && (!access(hook, F_OK) || !access(spec, F_OK))) {
		gc_error("'%s' exists; keep it, or give --force to replace it",
			 !access(hook, F_OK) ? hook : spec);
		return GC_EXIT_USAGE;
	}
	if (write_one(hook, force_opt, hook_text, name) ||
	    write_one(spec, force_opt, spec_text, name))
		return GC_EXIT_ENV;
	return GC_EXIT_OK;
}
