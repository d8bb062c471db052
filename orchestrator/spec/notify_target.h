/* orchestrator/spec/notify_target.h: a notification target as a spec's notify: names it
 * (`{type: webhook, url_env: NAME}`). Sending is orchestrator/ops/notify.h's.
 */
#ifndef GC_NOTIFY_TARGET_H
#define GC_NOTIFY_TARGET_H

#include "result.h"

typedef enum gc_notify_type { GC_NOTIFY_WEBHOOK, GC_NOTIFY_SLACK } gc_notify_type;

/* One target. url_env is borrowed: the name of the variable holding the URL. */
typedef struct gc_notify_target {
	gc_notify_type type;
	const char *url_env;
} gc_notify_target;

/* "webhook" or "slack" -> type. GC_E_INVAL (message in e) otherwise. */
gc_rc gc_notify_type_parse(const char *s, gc_notify_type *t, gc_err *e);
/* The type's name in a spec: "webhook" or "slack". */
const char *gc_notify_type_name(gc_notify_type t);

#endif
