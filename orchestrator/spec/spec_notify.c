/* orchestrator/spec/spec_notify.c: the spec's notify section (webhooks, Slack). */
#include "spec.h"
#include "spec_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strutil.h"

gc_rc gc_notify_type_parse(const char *s, gc_notify_type *t, gc_err *e)
{
	if (s && !strcmp(s, "webhook")) {
		*t = GC_NOTIFY_WEBHOOK;
		return GC_OK;
	}
	if (s && !strcmp(s, "slack")) {
		*t = GC_NOTIFY_SLACK;
		return GC_OK;
	}
	return gc_fail(e, GC_E_INVAL, "unknown notification type '%s': use 'webhook' "
		       "(generic JSON) or 'slack' (incoming webhook)", s ? s : "");
}

const char *gc_notify_type_name(gc_notify_type t)
{
	return t == GC_NOTIFY_SLACK ? "slack" : "webhook";
}

static int env_name_ok(const char *s)
{
	if (!s || !(isupper((unsigned char)*s) || *s == '_'))
		return 0;
	for (; *s; s++)
		if (!(isupper((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '_'))
			return 0;
	return 1;
}

static void notify_item(struct spec_ctx *c, yaml_node_t *it)
{
	static const char *const keys[] = { "type", "url_env" };
	yaml_node_t *tn = gc_yaml_get(c->doc, it, "type"), *un = gc_yaml_get(c->doc, it, "url_env");
	gc_notify_target *t = &c->s->notify[c->s->n_notify];
	gc_err e;

	if (it->type != YAML_MAPPING_NODE) {
		gc_diag(c->d, it, "a notify entry is %s; write {type: webhook, url_env: NAME}",
			gc_yaml_kind(it));
		return;
	}
	if (gc_yaml_get(c->doc, it, "url")) {
		gc_diag(c->d, gc_yaml_get(c->doc, it, "url"), "notify: a URL is a secret and is "
			"never written in a spec; write url_env: GCBENCH_WEBHOOK_URL and export "
			"the URL in that variable");
		return;
	}
	gc_yaml_check_keys(c->doc, it, keys, 2, "a notify entry", c->d);
	if (!gc_yaml_text(tn) || gc_notify_type_parse(gc_yaml_text(tn), &t->type, &e)) {
		gc_diag(c->d, tn ? tn : it, "notify: type is %s; use webhook or slack",
			tn ? "unknown" : "missing");
		return;
	}
	if (!env_name_ok(gc_yaml_text(un))) {
		gc_diag(c->d, un ? un : it, "notify: url_env must name an environment variable "
			"(A-Z, 0-9, _), e.g. url_env: GCBENCH_WEBHOOK_URL");
		return;
	}
	if ((t->url_env = strdup(gc_yaml_text(un))))
		c->s->n_notify++;
}

void spec_parse_notify(struct spec_ctx *c, yaml_node_t *v)
{
	size_t n = gc_yaml_seq_len(v);

	if (v->type != YAML_SEQUENCE_NODE) {
		gc_diag(c->d, v, "'notify' is %s; write a list, e.g. notify: [{type: webhook, "
			"url_env: GCBENCH_WEBHOOK_URL}]", gc_yaml_kind(v));
		return;
	}
	c->s->notify = calloc(n ? n : 1, sizeof(*c->s->notify));
	if (!c->s->notify) {
		c->d->oom = 1;
		return;
	}
	for (size_t i = 0; i < n; i++)
		notify_item(c, gc_yaml_seq_at(c->doc, v, i));
}
