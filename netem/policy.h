/* netem/policy.h: what the installed helper lets the `gcbench` group do.
 *
 * The package installs a build of gcbench-netem with this policy compiled in
 * (GC_NETEM_POLICY; `make install-netem`, `make deb`). A caller that is not root:
 *   - shapes (set, clear) only interfaces that /etc/gcbench/netem.conf allows
 *     ("allow PATTERN" lines, fnmatch patterns; the admin's list: a missing or
 *     malformed file allows nothing);
 *   - shapes only the network namespace it runs in (no --netns: entering another
 *     namespace needs CAP_SYS_ADMIN, which the helper does not have);
 *   - shapes only while no other login holds this host's lock (the host lock of
 *     orchestrator/run/hostlock.h, in GC_POLICY_LOCK_DIR): the lock's holder process
 *     must run as the caller's uid, or the lock must be free;
 *   - may not `restore-all --all` (links of other logins: the package's purge does it).
 * These checks apply to every command but the read-only ones (show, check, version):
 * a command added later is checked by default, and must name its link (--dev).
 * The helper only ever installs rate (tbf/htb), delay and loss (netem) objects
 * (netem/shape.h), for `classes` an htb class with u32 filters by destination
 * address (netem/classes.h), and for `shares` htb leaves under the cap with u32 filters
 * by source or destination address or TCP port (netem/shares.h). Every change and every refusal goes to syslog (facility daemon,
 * ident gcbench-netem) with the caller's uid and login. State files go to
 * GC_POLICY_STATE_DIR whoever the caller is, so that the purge finds every link.
 */
#ifndef GC_NETEM_POLICY_H
#define GC_NETEM_POLICY_H

#include <stddef.h>

#include "result.h"

#define GC_POLICY_CONF "/etc/gcbench/netem.conf"
#define GC_POLICY_LOCK_DIR "/run/lock/gcbench"
#define GC_POLICY_STATE_DIR "/run/lock/gcbench/netem"
#define GC_POLICY_GROUP "gcbench"

#define GC_NETEM_CONF_MAX 64

struct gc_netem_conf {
	size_t n;
	char allow[GC_NETEM_CONF_MAX][32];   /* fnmatch patterns of interface names */
};

/* Parse the text of netem.conf: lines "allow PATTERN" (PATTERN: 1-15 of
 * [A-Za-z0-9._*?-], not starting with '-'), blank lines and # comments (also after a
 * pattern). GC_E_FORMAT names the line and what is wrong, never quoting the text. */
gc_rc gc_netem_conf_parse(const char *text, struct gc_netem_conf *c, gc_err *e);

/* 1 when dev matches a pattern of c. */
int gc_netem_conf_allows(const struct gc_netem_conf *c, const char *dev);

/* Before running cmd (set, show, clear, restore-all, check, version) with these
 * options: 0 to go on, else the exit status after an error was printed (and logged). */
int gc_netem_policy_before(const char *cmd, const char *dev, const char *netns, int all);

/* After cmd ran with exit status status: logs it unless it is read-only. */
void gc_netem_policy_after(const char *cmd, int argc, char **argv, int status);

#endif
