/* The ssh command line: options, quoting, and refusal of unsafe values. */
#include "harness.h"
#include "orchestrator/remote/ssh.h"

static char *joined(char **v)
{
	static char buf[4096];
	size_t i;
	buf[0] = 0;
	for (i = 0; v[i]; i++) {
		strcat(buf, v[i]);
		strcat(buf, "|");
	}
	return buf;
}

static void test_options(void)
{
	gc_ssh_target t = { .address = "10.213.0.11", .user = "root", .port = 2222,
			    .identity = "/k/id", .ssh_config = "/c/ssh_config", .control_dir = "/c" };
	char *rem[] = { "hostname", NULL };
	char **v;
	gc_err e;
	CHECK(gc_ssh_argv(&t, rem, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "ssh|-F|/c/ssh_config|");
	CHECK_CONTAINS(joined(v), "BatchMode=yes");
	CHECK_CONTAINS(joined(v), "StrictHostKeyChecking=yes");
	CHECK_CONTAINS(joined(v), "ControlPath=/c/cm-%C");
	CHECK_CONTAINS(joined(v), "-l|root|-p|2222|10.213.0.11|--|'hostname'|");
	gc_argv_free(v);
}

/* with an ssh_config, ssh is given the alias (its Host block applies) and the
 * inventory's address as HostName, which the command line makes win */
static void test_hostname_override(void)
{
	gc_ssh_target t = { .address = "gpu1", .hostname = "10.0.0.11", .port = 2222,
			    .ssh_config = "/c/ssh_config" };
	char **v;
	gc_err e;
	CHECK(gc_ssh_argv(&t, NULL, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "ssh|-F|/c/ssh_config|-o|HostName=10.0.0.11|");
	CHECK_CONTAINS(joined(v), "|-p|2222|gpu1|");
	gc_argv_free(v);
	t.hostname = "-oProxyCommand=id";
	CHECK(gc_ssh_argv(&t, NULL, &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "HostName");
}

static void test_remote_quoting(void)
{
	gc_ssh_target t = { .address = "n1" };
	char *rem[] = { "echo", "a b", "$(touch /tmp/x)", "it's", NULL };
	char **v;
	gc_err e;
	CHECK(gc_ssh_argv(&t, rem, &v, &e) == GC_OK);
	CHECK_CONTAINS(joined(v), "|--|'echo' 'a b' '$(touch /tmp/x)' 'it'\\''s'|");
	gc_argv_free(v);
}

static void test_rejects_injection(void)
{
	const char *bad[] = { "-oProxyCommand=sh -c id", "n1; touch /tmp/x", "$(id)", "`id`", "a\nb", "" };
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gc_ssh_target t = { .address = "n1" };
		char **v = NULL;
		gc_err e = { "" };
		t.address = bad[i];
		CHECKF(gc_ssh_argv(&t, NULL, &v, &e) == GC_E_INVAL, "address '%s' accepted", bad[i]);
		CHECK(v == NULL);
		t.address = "n1";
		t.user = bad[i];
		CHECKF(gc_ssh_argv(&t, NULL, &v, &e) == GC_E_INVAL, "user '%s' accepted", bad[i]);
		t.user = NULL;
		t.identity = bad[i];
		CHECKF(gc_ssh_argv(&t, NULL, &v, &e) == GC_E_INVAL, "identity '%s' accepted", bad[i]);
	}
}

static void test_port_range(void)
{
	gc_ssh_target t = { .address = "n1", .port = 70000 };
	char **v;
	gc_err e;
	CHECK(gc_ssh_argv(&t, NULL, &v, &e) == GC_E_INVAL);
	CHECK_CONTAINS(e.msg, "70000");
}

int main(void)
{
	GCT_SUITE("ssh");
	GCT_RUN(test_options);
	GCT_RUN(test_hostname_override);
	GCT_RUN(test_remote_quoting);
	GCT_RUN(test_rejects_injection);
	GCT_RUN(test_port_range);
	return gct_finish();
}
