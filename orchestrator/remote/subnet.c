/* orchestrator/remote/subnet.c: data-interface addresses and their common subnet. */
#include "subnet.h"

#include <stdio.h>
#include <string.h>

#include "strutil.h"

static int parse_quad(const char *s, uint32_t *addr, int *prefix)
{
	unsigned a[4], p;
	char tail;
	int k = sscanf(s, "%3u.%3u.%3u.%3u/%2u%c", &a[0], &a[1], &a[2], &a[3], &p, &tail);

	if (k != 5 || a[0] > 255 || a[1] > 255 || a[2] > 255 || a[3] > 255 || p > 32)
		return 0;
	*addr = a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3];
	*prefix = (int)p;
	return 1;
}

gc_rc gc_subnet_parse_ip(const char *out, uint32_t *addr, int *prefix)
{
	const char *p = out;

	while (p && (p = strstr(p, " inet "))) {
		char word[40];
		p += 6;
		while (*p == ' ')
			p++;
		snprintf(word, sizeof(word), "%.*s", (int)strcspn(p, " \t\n"), p);
		if (parse_quad(word, addr, prefix))
			return GC_OK;
	}
	return GC_E_FORMAT;
}

static uint32_t mask_of(int prefix)
{
	return prefix <= 0 ? 0 : prefix >= 32 ? 0xffffffffu : ~((1u << (32 - prefix)) - 1);
}

void gc_subnet_addr_text(uint32_t a, int prefix, char *buf, size_t n)
{
	snprintf(buf, n, "%u.%u.%u.%u/%d", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255, prefix);
}

void gc_subnet_cidr(uint32_t addr, int prefix, char *buf, size_t n)
{
	gc_subnet_addr_text(addr & mask_of(prefix), prefix, buf, n);
}

int gc_subnet_common(const uint32_t *addr, const int *prefix, size_t n, char *cidr, size_t len)
{
	for (size_t i = 1; i < n; i++)
		if (prefix[i] != prefix[0] ||
		    (addr[i] & mask_of(prefix[0])) != (addr[0] & mask_of(prefix[0])))
			return 0;
	gc_subnet_cidr(addr[0], prefix[0], cidr, len);
	return 1;
}

gc_rc gc_node_data_addr(gc_node *nd, uint32_t *addr, int *prefix, gc_err *e)
{
	static const char script[] = "PATH=$PATH:/usr/sbin:/sbin; exec ip -o -4 addr show dev \"$1\" scope global";
	char *argv[] = { "sh", "-c", (char *)script, "sh", nd->iface, NULL };
	gc_proc_result r;
	gc_rc rc;

	if (!gc_is_safe_token(nd->iface))
		return gc_fail(e, GC_E_INVAL, "refusing iface '%s' of node '%s': not a safe token",
			       nd->iface, nd->name);
	rc = gc_node_exec(nd, argv, 15, &r, e);
	if (!rc && gc_subnet_parse_ip(r.out ? r.out : "", addr, prefix))
		rc = gc_fail(e, GC_E_NOTFOUND, "the data interface '%s' of node '%s' has no IPv4 "
			     "address ('ip -o -4 addr show dev %s' there); set the host's iface in "
			     "the inventory to the interface on the data network", nd->iface,
			     nd->name, nd->iface);
	gc_proc_result_release(&r);
	return rc;
}
