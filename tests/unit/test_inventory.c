/* tests/unit/test_inventory.c: the inventory parser, its security checks and errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "test_spec_corpus.h"
#include "orchestrator/spec/inventory.h"

static gc_rc parse_inv(const char *buf, size_t len, const char *file, struct gc_diags *d)
{
	struct gc_inventory inv;
	gc_rc rc = gc_inventory_parse(buf, len, file, &inv, d);

	gc_inventory_release(&inv);
	return rc;
}

static void test_local(void)
{
	struct gc_inventory inv;
	struct gc_diags d;
	const char *t = "local: 4\n";

	gc_diags_init(&d, "i.yaml");
	CHECK(gc_inventory_parse(t, strlen(t), "i.yaml", &inv, &d) == GC_OK);
	CHECK_EQ_INT(inv.local, 4);
	CHECK_EQ_INT(inv.n_hosts, 0);
	gc_inventory_release(&inv);
	gc_diags_release(&d);
}

/* exactly the format `gcbench cluster up` writes */
static void test_cluster_format(void)
{
	struct gc_inventory inv;
	struct gc_diags d;
	const char *t =
		"name: demo\n"
		"ssh_config: /run/gcbench/demo/ssh_config\n"
		"hosts:\n"
		"  - name: n1\n"
		"    address: 10.213.0.11\n"
		"    user: root\n"
		"    port: 22\n"
		"    identity: /run/gcbench/demo/id_ed25519\n"
		"    iface: eth0\n"
		"    netns: gcb-demo-n1\n"
		"    gpus: 0\n"
		"  - name: n2\n"
		"    address: 10.213.0.12\n"
		"    iface: eth0\n";

	gc_diags_init(&d, "i.yaml");
	CHECK(gc_inventory_parse(t, strlen(t), "i.yaml", &inv, &d) == GC_OK);
	CHECK_EQ_INT(inv.local, 0);
	CHECK_STR(inv.name, "demo");
	CHECK_STR(inv.ssh_config, "/run/gcbench/demo/ssh_config");
	CHECK_EQ_INT(inv.n_hosts, 2);
	CHECK_STR(inv.hosts[0].netns, "gcb-demo-n1");
	CHECK_STR(inv.hosts[0].identity, "/run/gcbench/demo/id_ed25519");
	CHECK_EQ_INT(inv.hosts[1].port, 22);       /* default */
	CHECK_EQ_INT(inv.hosts[1].port_set, 0);    /* the ssh_config's Port holds */
	CHECK_EQ_INT(inv.hosts[0].port_set, 1);
	CHECK_STR(inv.hosts[1].user, "");          /* ssh's default */
	CHECK_STR(inv.hosts[1].address, "10.213.0.12");
	gc_inventory_release(&inv);
	gc_diags_release(&d);
}

/* each injection attempt, in each field that reaches a command line, is refused */
static void test_injection_matrix(void)
{
	static const char *const fields[] = { "name", "address", "user", "identity", "iface",
					      "netns" };
	static const char *const evil[] = { "eth0; touch /tmp/x", "$(touch /tmp/x)",
					    "`touch /tmp/x`", "a\\nb", "-oProxyCommand=touch",
					    "a b", "a'b", "a\\\"b", "a|b", "a&b", "a>b", "" };

	for (size_t f = 0; f < 6; f++)
		for (size_t v = 0; v < sizeof(evil) / sizeof(evil[0]); v++) {
			char t[512];
			struct gc_inventory inv;
			struct gc_diags d;
			gc_rc rc;

			/* host 2 gets the evil value in field f, good values elsewhere */
			snprintf(t, sizeof(t), "hosts:\n  - {name: n1, address: 10.0.0.1, iface: eth0}\n"
				 "  - {%s: \"%s\"%s%s%s}\n", fields[f], evil[v],
				 f == 0 ? "" : ", name: n2", f == 1 ? "" : ", address: 10.0.0.2",
				 f == 4 ? "" : ", iface: eth0");
			gc_diags_init(&d, "i.yaml");
			rc = gc_inventory_parse(t, strlen(t), "i.yaml", &inv, &d);
			CHECKF(rc == GC_E_INVAL, "%s: \"%s\" was accepted", fields[f], evil[v]);
			CHECKF(d.n >= 1 && strstr(d.msg[0], "i.yaml:3:"), "%s", d.n ? d.msg[0] : "-");
			CHECKF(strstr(d.msg[0], "is refused"), "%s", d.msg[0]);
			gc_diags_release(&d);
		}
}

/* sudo: for all hosts at the top, a host's own value wins; default off */
static void test_sudo(void)
{
	struct gc_inventory inv;
	struct gc_diags d;
	const char *t =
		"sudo: true\n"
		"hosts:\n"
		"  - {name: n1, address: 10.0.0.1, iface: eth0, user: alice}\n"
		"  - {name: n2, address: 10.0.0.2, iface: eth0, user: alice, sudo: false}\n"
		"  - {name: n3, address: 10.0.0.3, iface: eth0, user: root, sudo: no}\n";
	const char *u = "hosts:\n  - {name: n1, address: 10.0.0.1, iface: eth0}\n"
			"  - {name: n2, address: 10.0.0.2, iface: eth0, sudo: yes}\n";

	gc_diags_init(&d, "i.yaml");
	CHECKF(gc_inventory_parse(t, strlen(t), "i.yaml", &inv, &d) == GC_OK, "%s",
	       d.n ? d.msg[0] : "");
	CHECK_EQ_INT(inv.sudo, 1);
	CHECK_EQ_INT(inv.hosts[0].sudo, 1);
	CHECK_EQ_INT(inv.hosts[1].sudo, 0);
	CHECK_EQ_INT(inv.hosts[2].sudo, 0);
	gc_inventory_release(&inv);
	CHECK(gc_inventory_parse(u, strlen(u), "i.yaml", &inv, &d) == GC_OK);
	CHECK_EQ_INT(inv.hosts[0].sudo, 0);
	CHECK_EQ_INT(inv.hosts[1].sudo, 1);
	gc_inventory_release(&inv);
	gc_diags_release(&d);
}

/* connect_timeout: a duration as the CLI writes one, whole seconds, 1..600 */
static void test_connect_timeout(void)
{
	static const struct { const char *v; int want; } ok[] = {
		{ "30", 30 }, { "30s", 30 }, { "2min", 120 }, { "1500ms", -1 }, { "0", -1 },
		{ "11min", -1 }, { "abc", -1 }, { "[10]", -1 }, { "-5", -1 },
	};
	char t[256];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct gc_inventory inv;
		struct gc_diags d;
		gc_rc rc;

		snprintf(t, sizeof(t), "connect_timeout: %s\nhosts:\n  - {name: n1, address: "
			 "10.0.0.1, iface: eth0}\n", ok[i].v);
		gc_diags_init(&d, "i.yaml");
		rc = gc_inventory_parse(t, strlen(t), "i.yaml", &inv, &d);
		if (ok[i].want > 0) {
			CHECKF(rc == GC_OK && inv.connect_timeout_s == ok[i].want,
			       "connect_timeout: %s: rc %d, %d", ok[i].v, rc, inv.connect_timeout_s);
		} else {
			CHECKF(rc == GC_E_INVAL && d.n && strstr(d.msg[0], "connect_timeout"),
			       "connect_timeout: %s accepted", ok[i].v);
		}
		gc_inventory_release(&inv);
		gc_diags_release(&d);
	}
}

/* a host's python: and env: (its ranks' interpreter and variables); mistakes named */
static void test_host_env(void)
{
	struct gc_inventory inv;
	struct gc_diags d;
	const char *t =
		"hosts:\n"
		"  - {name: n1, address: 10.0.0.1, iface: eth0, python: ~/venv/bin/python3}\n"
		"  - {name: n2, address: 10.0.0.2, iface: eth0, env: {PATH: \"~/conda/bin:/usr/bin\"}}\n";
	const char *bad =
		"hosts:\n"
		"  - {name: n1, address: 10.0.0.1, iface: eth0, python: \"py thon\"}\n"
		"  - {name: n2, address: 10.0.0.2, iface: eth0, env: {MASTER_PORT: 1, X: \"`id`\"}}\n"
		"  - {name: n3, address: 10.0.0.3, iface: eth0, env: [A]}\n";

	gc_diags_init(&d, "i.yaml");
	CHECKF(gc_inventory_parse(t, strlen(t), "i.yaml", &inv, &d) == GC_OK, "%s",
	       d.n ? d.msg[0] : "");
	CHECK_STR(inv.hosts[0].python, "~/venv/bin/python3");
	CHECK_EQ_INT(inv.hosts[0].n_env, 0);
	CHECK_STR(inv.hosts[1].python, "");
	CHECK_EQ_INT(inv.hosts[1].n_env, 1);
	CHECK_STR(inv.hosts[1].env[0], "PATH=~/conda/bin:/usr/bin");
	gc_inventory_release(&inv);
	gc_diags_release(&d);
	gc_diags_init(&d, "i.yaml");
	CHECK(gc_inventory_parse(bad, strlen(bad), "i.yaml", &inv, &d) == GC_E_INVAL);
	CHECK_EQ_INT(d.n, 4);
	CHECK(d.n == 4 && strstr(d.msg[0], "i.yaml:2:") && strstr(d.msg[0], "host 'n1': python"));
	CHECK(d.n == 4 && strstr(d.msg[1], "host 'n2' env: 'MASTER_PORT' is set by gcbench"));
	CHECK(d.n == 4 && strstr(d.msg[2], "host 'n2' env: the value of X has a character"));
	CHECK(d.n == 4 && strstr(d.msg[3], "host 'n3' env is a list; write a mapping"));
	gc_diags_release(&d);
}

/* `slurm: true`: hosts from the allocation, iface and sudo for every node */
static void test_slurm(void)
{
	struct gc_inventory inv;
	struct gc_diags d;
	const char *t = "slurm: true\niface: ib0\nsudo: yes\n";
	const char *f = "slurm: false\nlocal: 2\n";

	gc_diags_init(&d, "i.yaml");
	CHECKF(gc_inventory_parse(t, strlen(t), "i.yaml", &inv, &d) == GC_OK, "%s",
	       d.n ? d.msg[0] : "");
	CHECK_EQ_INT(inv.slurm, 1);
	CHECK_STR(inv.iface, "ib0");
	CHECK_EQ_INT(inv.sudo, 1);
	CHECK_EQ_INT(inv.local, 0);
	CHECK_EQ_INT(inv.n_hosts, 0);
	gc_inventory_release(&inv);
	CHECK(gc_inventory_parse(f, strlen(f), "i.yaml", &inv, &d) == GC_OK);
	CHECK_EQ_INT(inv.slurm, 0);
	CHECK_EQ_INT(inv.local, 2);
	gc_inventory_release(&inv);
	gc_diags_release(&d);
}

/* racks: each host's rack; the emulated cluster's uplink ends; local: N's n1..nN */
static void test_racks(void)
{
	struct gc_inventory inv;
	struct gc_diags d;
	const char *t =
		"hosts:\n"
		"  - {name: a, address: 10.0.0.1, iface: eth0}\n"
		"  - {name: b, address: 10.0.0.2, iface: eth0}\n"
		"  - {name: c, address: 10.0.0.3, iface: eth0}\n"
		"racks: [[a, c], [b]]\n"
		"uplink_ifaces: [[gc7-u1, gc7-c1], [gc7-u2, gc7-c2]]\n";
	const char *l = "local: 4\nracks: [[n1, n2], [n3, n4]]\n";

	gc_diags_init(&d, "i.yaml");
	CHECKF(gc_inventory_parse(t, strlen(t), "i.yaml", &inv, &d) == GC_OK, "%s",
	       d.n ? d.msg[0] : "");
	CHECK_EQ_INT(inv.n_racks, 2);
	CHECK_EQ_INT(inv.hosts[0].rack, 1);
	CHECK_EQ_INT(inv.hosts[1].rack, 2);
	CHECK_EQ_INT(inv.hosts[2].rack, 1);
	CHECK_EQ_INT(gc_inventory_rack_of(&inv, "c"), 1);
	CHECK_EQ_INT(gc_inventory_rack_of(&inv, "zz"), 0);
	CHECK_EQ_INT(inv.uplink_ifaces, 1);
	CHECK_STR(inv.uplink_if[1][0], "gc7-u2");
	CHECK_STR(inv.uplink_if[1][1], "gc7-c2");
	gc_inventory_release(&inv);
	CHECK(gc_inventory_parse(l, strlen(l), "i.yaml", &inv, &d) == GC_OK);
	CHECK_EQ_INT(inv.n_racks, 2);
	CHECK_EQ_INT(inv.local_rack[2], 1);
	CHECK_EQ_INT(inv.local_rack[3], 2);
	CHECK_EQ_INT(gc_inventory_rack_of(&inv, "n4"), 2);
	CHECK_EQ_INT(inv.uplink_ifaces, 0);
	gc_inventory_release(&inv);
	gc_diags_release(&d);
}

static void test_bad_corpus(void)
{
	char why[1024];
	int n = corpus_check("tests/data/inventory", parse_inv, why, sizeof(why));

	CHECKF(n >= 0, "%s", why);
	CHECKF(n >= 10, "only %d bad inventories", n);
}

static void test_example_files(void)
{
	const char *files[] = { "experiments/inventory-local.yaml",
				"experiments/inventory-cluster.example.yaml",
				"experiments/inventory-racks.yaml" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct gc_inventory inv;
		struct gc_diags d;
		gc_err e;

		gc_diags_init(&d, files[i]);
		if (gc_inventory_load(files[i], &inv, &d, &e) == GC_E_NOTFOUND)
			SKIP("run from the repository root: %s", e.msg);
		CHECKF(d.n == 0, "%s", d.n ? d.msg[0] : e.msg);
		CHECK(inv.local > 0 || inv.n_hosts > 0);
		gc_inventory_release(&inv);
		gc_diags_release(&d);
	}
}

/* No message quotes what the parser refused: S3CR3T stands for a secret (an
 * inventory given /etc/shadow, a key pasted where a path belongs). */
static void test_never_quotes(void)
{
	static const char *const cases[] = {
		"root:$y$j9T$S3CR3T:19000:0:99999:7:::\n",
		"hosts: [S3CR3T\n",
		"S3CR3T: 1\nlocal: 2\n",
		"local: S3CR3T\n",
		"sudo: S3CR3T\nlocal: 2\n",
		"ssh_config: S3CR3T\nhosts:\n  - {name: n1, address: 10.0.0.1, iface: eth0}\n",
		"hosts:\n  - {name: n1, address: 10.0.0.1, iface: eth0, port: S3CR3T}\n",
		"hosts:\n  - {name: n1, address: 10.0.0.1, iface: eth0, identity: \"S3CR3T key\"}\n",
		"hosts:\n  - {name: n1, address: \"$S3CR3T\", iface: eth0}\n",
		"hosts:\n  - {name: n1, address: 10.0.0.1, iface: eth0, S3CR3T: 1}\n",
		"hosts:\n  - {name: n1, address: 10.0.0.1, iface: eth0, gpus: S3CR3T, sudo: S3CR3T}\n",
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gc_diags d;
		gc_rc rc;

		gc_diags_init(&d, "i.yaml");
		rc = parse_inv(cases[i], strlen(cases[i]), "i.yaml", &d);
		CHECKF(rc != GC_OK && d.n > 0, "case %zu accepted", i);
		for (size_t k = 0; k < d.n; k++) {
			CHECKF(!strstr(d.msg[k], "S3CR3T"), "case %zu quotes the file: %s", i,
			       d.msg[k]);
			CHECKF(!strncmp(d.msg[k], "i.yaml:", 7), "case %zu: no position: %s", i,
			       d.msg[k]);
		}
		gc_diags_release(&d);
	}
}

int main(void)
{
	GCT_SUITE("inventory");
	GCT_RUN(test_local);
	GCT_RUN(test_cluster_format);
	GCT_RUN(test_injection_matrix);
	GCT_RUN(test_sudo);
	GCT_RUN(test_connect_timeout);
	GCT_RUN(test_slurm);
	GCT_RUN(test_racks);
	GCT_RUN(test_bad_corpus);
	GCT_RUN(test_host_env);
	GCT_RUN(test_never_quotes);
	GCT_RUN(test_example_files);
	return gct_finish();
}
