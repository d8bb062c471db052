/* tests/unit/test_netem_links.c: processes through /proc (netem/pids.h), named network
 * namespaces made and deleted in C (netem/netns.h), and links through libnl
 * (netem/link.h): a bridge and a veth pair between two test namespaces carry a TCP
 * connection. The namespace and link tests need root (else SKIP); they work only in
 * namespaces of their own and remove them. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "netem/link.h"
#include "netem/netns.h"
#include "netem/pids.h"

static char ns_a[32], ns_b[32];

static void test_pid_read(void)
{
	char buf[256], pid[32];
	pid_t child = fork();

	if (child == 0)
		_exit(0);
	CHECK(child > 0);
	waitpid(child, NULL, 0);
	snprintf(pid, sizeof(pid), "%d (", (int)getpid());
	CHECK(gc_pid_read(getpid(), "stat", buf, sizeof(buf)) > 0);
	CHECK(strncmp(buf, pid, strlen(pid)) == 0);
	CHECK(gc_pid_read(child, "stat", buf, sizeof(buf)) == -1);   /* reaped: gone */
	CHECK(gc_proc_start_time(getpid()) > 0);
	CHECK(gc_proc_start_time(child) == 0);
	CHECK(gc_pid_matches(getpid(), "test_netem_links"));
	CHECK(!gc_pid_matches(getpid(), "no-such-needle-in-cmdline"));
	CHECK(!gc_pid_matches(child, "test_netem_links"));
}

static void test_kill_matching(void)
{
	char arg[32], needle[48];
	int st = 0, n;
	pid_t child;

	/* a duration nobody else uses: the needle must match this child only */
	snprintf(arg, sizeof(arg), "7%d.5", (int)getpid());
	snprintf(needle, sizeof(needle), "sleep %s", arg);
	child = fork();
	if (child == 0) {
		execlp("sleep", "sleep", arg, (char *)NULL);
		_exit(127);
	}
	CHECK(child > 0);
	for (int i = 0; i < 200 && !gc_pid_matches(child, needle); i++)
		usleep(10000);   /* until it has exec'ed */
	CHECK(gc_pid_matches(child, needle));
	n = gc_kill_matching(needle);
	waitpid(child, &st, 0);
	CHECK_EQ_INT(n, 1);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
	CHECK_EQ_INT(gc_kill_matching(needle), 0);
}

static int ns_inode(ino_t *ino)
{
	struct stat s;

	if (stat("/proc/thread-self/ns/net", &s))
		return -1;
	*ino = s.st_ino;
	return 0;
}

/* A process that entered ns_a (of inode ino) is found and ended. */
static void kill_inside_body(ino_t ino)
{
	int saved, st = 0, n;
	pid_t child = fork();

	if (child == 0) {
		if (gc_netns_enter(ns_a, &saved, NULL))
			_exit(1);
		pause();
		_exit(0);
	}
	CHECK(child > 0);
	for (int i = 0; i < 200; i++) {
		char path[64];
		struct stat s;
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)child);
		if (!stat(path, &s) && s.st_ino == ino)
			break;
		usleep(10000);
	}
	n = gc_netns_kill_all(ns_a);
	kill(child, SIGKILL);   /* never left behind, whatever the check says */
	waitpid(child, &st, 0);
	CHECK_EQ_INT(n, 1);
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);
}

static void netns_body(void)
{
	gc_err e = { { 0 } };
	ino_t before = 0, after = 0;
	int saved;

	CHECK(ns_inode(&before) == 0);
	CHECKF(gc_netns_add(ns_a, &e) == GC_OK, "%s", e.msg);
	CHECK(ns_inode(&after) == 0 && after == before);   /* the caller's stays */
	CHECK(gc_netns_exists(ns_a));
	CHECK(gc_netns_add(ns_a, &e) == GC_E_BUSY);
	CHECK_CONTAINS(e.msg, ns_a);
	CHECK(gc_netns_add("../etc", &e) == GC_E_INVAL);
	CHECK(gc_netns_del("../etc", &e) == GC_E_INVAL);
	/* it is a network namespace of its own: entering it changes ours */
	CHECKF(gc_netns_enter(ns_a, &saved, &e) == GC_OK, "%s", e.msg);
	CHECK(ns_inode(&after) == 0);
	gc_netns_leave(saved);
	CHECK(after != before);
	kill_inside_body(after);
	if (gct_state)
		return;
	CHECKF(gc_netns_del(ns_a, &e) == GC_OK, "%s", e.msg);
	CHECK(!gc_netns_exists(ns_a));
	CHECKF(gc_netns_del(ns_a, &e) == GC_OK, "%s", e.msg);   /* nothing to delete */
	CHECK(gc_netns_enter(ns_a, &saved, &e) == GC_E_NOTFOUND);
}

static void test_netns_add_del(void)
{
	if (geteuid() != 0)
		SKIP("needs root (CAP_SYS_ADMIN) to make namespaces");
	netns_body();
	gc_netns_del(ns_a, NULL);
}

/* A listening TCP socket on addr:port inside namespace ns (-1 on failure). */
static int listen_in(const char *ns, const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int saved, fd = -1;

	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (gc_netns_enter(ns, &saved, NULL))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 1))) {
		close(fd);
		fd = -1;
	}
	gc_netns_leave(saved);
	return fd;
}

/* 0 when a TCP connection from inside ns to addr:port succeeds (within 5 s). */
static int connect_from(const char *ns, const char *addr, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { .tv_sec = 5 };
	int saved, fd, rc = -1;

	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (gc_netns_enter(ns, &saved, NULL))
		return -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	gc_netns_leave(saved);
	if (fd < 0)
		return -1;
	if (!setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return rc;
}

static void links_body(struct gc_links *a, struct gc_links *b)
{
	gc_err e = { { 0 } };
	int lfd;

	CHECKF(gc_links_open(a, ns_a, &e) == GC_OK, "%s", e.msg);
	CHECKF(gc_links_open(b, ns_b, &e) == GC_OK, "%s", e.msg);
	CHECKF(gc_links_add_bridge(a, "gct-br", &e) == GC_OK, "%s", e.msg);
	CHECK(gc_links_add_bridge(a, "gct-br", &e) == GC_E_BUSY);   /* never taken over */
	CHECK_CONTAINS(e.msg, "cannot create bridge 'gct-br' in namespace");
	CHECKF(gc_links_add_addr(a, "gct-br", "10.213.251.1/24", &e) == GC_OK, "%s", e.msg);
	CHECK(gc_links_add_addr(a, "gct-br", "10.213.251.1/24", &e) == GC_E_BUSY);
	CHECK(gc_links_add_addr(a, "gct-br", "10.213.251.x/24", &e) == GC_E_INVAL);
	CHECKF(gc_links_set_up(a, "gct-br", NULL, &e) == GC_OK, "%s", e.msg);
	CHECKF(gc_links_add_veth(a, "gct-v1", "eth0", ns_b, &e) == GC_OK, "%s", e.msg);
	CHECK(gc_links_add_veth(a, "gct-v1", "eth0", ns_b, &e) == GC_E_BUSY);
	CHECK(gc_links_add_veth(a, "gct-v2", "eth0", "gct-no-such-ns", &e) == GC_E_NOTFOUND);
	CHECKF(gc_links_set_up(a, "gct-v1", "gct-br", &e) == GC_OK, "%s", e.msg);
	CHECK(gc_links_set_up(a, "eth0", NULL, &e) == GC_E_NOTFOUND);   /* it is in B */
	CHECK_CONTAINS(e.msg, "'eth0'");
	CHECKF(gc_links_add_addr(b, "eth0", "10.213.251.11/24", &e) == GC_OK, "%s", e.msg);
	CHECKF(gc_links_set_up(b, "eth0", NULL, &e) == GC_OK, "%s", e.msg);
	CHECKF(gc_links_set_up(b, "lo", NULL, &e) == GC_OK, "%s", e.msg);
	lfd = listen_in(ns_a, "10.213.251.1", 5399);
	CHECK(lfd >= 0);
	CHECK(connect_from(ns_b, "10.213.251.1", 5399) == 0);   /* bridge, veth, addresses */
	close(lfd);
	CHECKF(gc_links_delete(a, "gct-v1", &e) == GC_OK, "%s", e.msg);
	CHECK(gc_links_delete(b, "eth0", &e) == GC_E_NOTFOUND);      /* went with its peer */
	CHECK_CONTAINS(e.msg, "cannot delete link 'eth0' in namespace");
	CHECKF(gc_links_delete(a, "gct-br", &e) == GC_OK, "%s", e.msg);
}

static void test_links(void)
{
	struct gc_links a = { 0 }, b = { 0 };
	gc_err e = { { 0 } };

	if (geteuid() != 0)
		SKIP("needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) for namespaces and links");
	if (gc_netns_add(ns_a, &e) || gc_netns_add(ns_b, &e)) {
		gc_netns_del(ns_a, NULL);
		SKIP("cannot make test namespaces: %s", e.msg);
	}
	links_body(&a, &b);
	gc_links_release(&a);
	gc_links_release(&b);
	gc_links_release(&a);   /* twice: a no-op */
	gc_netns_del(ns_a, NULL);
	gc_netns_del(ns_b, NULL);
}

int main(void)
{
	snprintf(ns_a, sizeof(ns_a), "gct-a-%d", (int)getpid());
	snprintf(ns_b, sizeof(ns_b), "gct-b-%d", (int)getpid());
	GCT_SUITE("netem_links");
	GCT_RUN(test_pid_read);
	GCT_RUN(test_kill_matching);
	GCT_RUN(test_netns_add_del);
	GCT_RUN(test_links);
	return gct_finish();
}
