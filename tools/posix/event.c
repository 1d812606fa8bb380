// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: the traced process (posix_trace_event()).
 *
 * Every process logs its POSIX events through one user-space provider,
 * user.posix (libketw's ketw_provider_register(), registered once, on
 * the first posix_trace_eventid_open() or posix_trace_event(); a child
 * after fork() shares its parent's registration). While no running
 * stream takes the provider, posix_trace_event() costs a load and a
 * test. The kernel's filters decide the rest: a stream takes the events
 * of the processes it traces and whose ids its filter lets through.
 *
 * The record's payload is struct kp_head (the thread and the event's
 * name, so that any reader names the event, whatever it missed) and the
 * data; its event id is this process's id for the name.
 */
#include <stdlib.h>
#include <string.h>

#include "kp_internal.h"

static struct ketw_provider kp_prov = {
	.page = &ketw_provider_off,
	.fd = -1,
	.guid = KP_PROVIDER_GUID,
	.name = KP_PROVIDER_NAME,
};
static pthread_once_t kp_prov_once = PTHREAD_ONCE_INIT;

static void kp_provider_register_once(void)
{
	/* Refused (no module, not allowed): never enabled, events go nowhere. */
	ketw_provider_register(&kp_prov);
}

void kp_provider_register(void)
{
	pthread_once(&kp_prov_once, kp_provider_register_once);
}

#define KP_STACK_EVENT	1024	/* bytes of payload built on the stack */

void posix_trace_event(trace_event_id_t event_id,
		       const void *restrict data_ptr, size_t data_len)
{
	const struct ketw_event_descriptor desc = {
		.id = event_id,
		.type = KETW_TYPE_INFO,
	};
	unsigned char stack[KP_STACK_EVENT], *buf = stack;
	struct kp_head head;
	const char *name = "";

	kp_provider_register();
	if (!ketw_event_enabled(&kp_prov, 0, 0))
		return;
	if (event_id != POSIX_TRACE_UNNAMED_USER_EVENT) {
		name = kp_names_get(&kp_proc_names, event_id);
		if (!name)
			return;	/* not an id this process opened */
	}
	if (!data_ptr)
		data_len = 0;
	/* Longer data could not be logged: cut, and flagged by the kernel. */
	if (data_len > KETW_MAX_DATA_SIZE - KP_HEAD_SIZE)
		data_len = KETW_MAX_DATA_SIZE - KP_HEAD_SIZE;
	if (KP_HEAD_SIZE + data_len > sizeof(stack)) {
		buf = malloc(KP_HEAD_SIZE + data_len);
		if (!buf)
			return;
	}
	memset(&head, 0, sizeof(head));
	head.thread = (uint64_t)pthread_self();
	strncpy(head.name, name, sizeof(head.name) - 1);
	memcpy(buf, &head, sizeof(head));
	if (data_len)
		memcpy(buf + KP_HEAD_SIZE, data_ptr, data_len);
	__ketw_write_addr(&kp_prov, &desc, buf, KP_HEAD_SIZE + data_len,
			  __builtin_return_address(0));
	if (buf != stack)
		free(buf);
}
