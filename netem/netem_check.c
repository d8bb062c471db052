/* netem/netem_check.c: does this kernel have the netem qdisc? (gc_netem_available) */
#include "shape.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/qdisc.h>

#include "shape_int.h"
#include "strutil.h"

struct trial {
	int unshare_errno;   /* 0: the namespace was made */
	int nl_err;          /* libnl's answer to adding the netem qdisc (0: added) */
	char step[64];
};

/* In a thread of its own (the caller's namespace stays as it is): a new network
 * namespace, and a netem qdisc on its lo. The namespace, lo and the qdisc end with
 * the thread. */
static void *try_netem(void *arg)
{
	struct trial *t = arg;
	struct gc_shape_req r = { .dev = "lo", .delay_us = 1000 };
	struct gc_shape_objs o;
	struct rtnl_link *lo = NULL;
	struct nl_sock *sk;
	int err;

	if (unshare(CLONE_NEWNET)) {
		t->unshare_errno = errno;
		return NULL;
	}
	sk = nl_socket_alloc();
	if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0) {
		gc_strlcpy(t->step, "open a netlink socket", sizeof(t->step));
		t->nl_err = -NLE_FAILURE;
	} else if ((err = rtnl_link_get_kernel(sk, 0, "lo", &lo)) < 0) {
		gc_strlcpy(t->step, "find lo", sizeof(t->step));
		t->nl_err = err;
	} else if ((err = gc_shape_objs_build(rtnl_link_get_ifindex(lo), &r, NULL, &o)) < 0) {
		gc_strlcpy(t->step, "build a netem qdisc", sizeof(t->step));
		t->nl_err = err;
	} else {
		gc_strlcpy(t->step, "add a netem qdisc", sizeof(t->step));
		t->nl_err = rtnl_qdisc_add(sk, o.root, NLM_F_CREATE | NLM_F_EXCL);
		gc_shape_objs_release(&o);
	}
	if (lo)
		rtnl_link_put(lo);
	if (sk)
		nl_socket_free(sk);
	return NULL;
}

/* Without CAP_SYS_ADMIN: the module is loaded, built in, or installed (the kernel
 * loads it on first use). */
static int module_present(char *how, size_t n)
{
	static const char *const lists[] = { "modules.builtin", "modules.dep" };
	struct utsname u;
	char path[512], line[1024];
	size_t i;

	if (!access("/sys/module/sch_netem", F_OK)) {
		snprintf(how, n, "/sys/module/sch_netem (loaded)");
		return 1;
	}
	if (uname(&u))
		return 0;
	for (i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		FILE *f;
		snprintf(path, sizeof(path), "/lib/modules/%s/%s", u.release, lists[i]);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, ":\n")] = 0;   /* the module's own path */
			if (!strstr(line, "/sch_netem.ko"))
				continue;
			fclose(f);
			snprintf(how, n, "%s", path);
			return 1;
		}
		if (f)
			fclose(f);
	}
	snprintf(how, n, "/sys/module and /lib/modules/%s", u.release);
	return 0;
}

gc_rc gc_netem_available(char *how, size_t n, gc_err *e)
{
	struct trial t = { 0, 0, "" };
	pthread_t th;
	int err = pthread_create(&th, NULL, try_netem, &t);

	if (err)
		return gc_fail(e, GC_E_IO, "cannot start a thread to test netem: %s", strerror(err));
	pthread_join(th, NULL);
	if (t.unshare_errno == EPERM) {
		if (module_present(how, n))
			return GC_OK;
		return gc_fail(e, GC_E_UNSUPPORTED, "the kernel has no netem qdisc: module sch_netem "
			       "is neither loaded, built in nor installed (looked in %s); install "
			       "the kernel's extra modules or use a kernel with CONFIG_NET_SCH_NETEM", how);
	}
	if (t.unshare_errno)
		return gc_fail(e, GC_E_IO, "cannot make a network namespace to test netem: %s",
			       strerror(t.unshare_errno));
	snprintf(how, n, "a netem qdisc added in a private network namespace");
	if (t.nl_err >= 0)
		return GC_OK;
	if (t.nl_err == -NLE_OBJ_NOTFOUND || t.nl_err == -NLE_OPNOTSUPP || t.nl_err == -NLE_NOATTR)
		return gc_fail(e, GC_E_UNSUPPORTED, "the kernel has no netem qdisc (module sch_netem): "
			       "adding one in a private network namespace failed (%s); load it with "
			       "'modprobe sch_netem' or install the kernel's extra modules",
			       nl_geterror(t.nl_err));
	return gc_fail(e, t.nl_err == -NLE_PERM ? GC_E_PERM : GC_E_NETLINK, "cannot test netem: "
		       "%s in a private network namespace failed: %s", t.step, nl_geterror(t.nl_err));
}
