/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The babeltrace2 plugin "ketw" (source.ketw.file): what its files share.
 *
 *   plugin.c     the plugin, its component class, the support-info query,
 *                the component (one trace per input file, a port per CPU)
 *   trace_ir.c   a .ketw file as babeltrace2 trace IR: clock, stream and
 *                event classes, and the fields of one record's event
 *   msg_iter.c   one CPU's records as messages: packets, events and
 *                discarded events where ketw lost some
 *
 * Documentation/ketw-viewers.rst says what maps to what.
 */
#ifndef _KETW_BT_H
#define _KETW_BT_H

#include <stdbool.h>
#include <stdint.h>

#include <babeltrace2/babeltrace.h>

#include "libketw.h"

/* How a payload member is read and what field class it gets. */
enum ktbt_kind {
	KTBT_UINT,	/* 1, 2, 4 or 8 bytes */
	KTBT_SINT,
	KTBT_STRING,	/* up to a NUL, @size (0: no bound) or the end */
	KTBT_BYTES,	/* @size bytes (0: the rest), a byte array */
	KTBT_GUID,	/* 16 bytes, as 8-4-4-4-12 text */
};

struct ktbt_member {
	char name[48];
	enum ktbt_kind kind;
	unsigned int off;	/* in the payload */
	unsigned int width;	/* integers: bytes */
	unsigned int size;	/* strings and bytes: 0 or the bound */
	bool hex;		/* integers shown in hex */
};

/* One event class: a system event, or one of a provider's events. */
struct ktbt_class {
	/* The key: what a record must have to be of this class. */
	bool sys;
	bool user;			/* KETW_RECORD_USER */
	uint8_t guid[KETW_GUID_SIZE];
	uint32_t id;
	uint16_t version;

	bt_event_class *ec;		/* borrowed from the stream class */
	struct ktbt_member *members;	/* the payload, in order */
	unsigned int nr_members;
	bool swap;			/* provider payload of the other order */
	uint32_t items;			/* KETW_EXT_BIT()s seen: specific context */
};

/* One input file: its reader and its trace IR objects. */
struct ktbt_trace {
	char *path;
	struct ketw_input *in;
	struct ketw_registry *reg;
	bt_trace_class *tc;
	bt_trace *trace;
	bt_stream_class *sc;		/* borrowed */
	bt_clock_class *cc;
	bt_stream **streams;		/* per CPU; NULL: no records */
	struct ktbt_class *classes;
	unsigned int nr_classes, cap_classes;
	unsigned int *index;		/* open hash: class number + 1 */
	unsigned int index_size;	/* a power of two */
	char err[256];
};

/*
 * Open @path, read its rundown and its records once to build the trace
 * class, the trace and a stream per CPU that has records (@self: the
 * component). 0, or -errno with a message in t->err.
 */
int ktbt_trace_open(struct ktbt_trace *t, const char *path,
		    bt_self_component *self);
void ktbt_trace_close(struct ktbt_trace *t);

/* The event class of @rec (always found: every record was seen). */
const struct ktbt_class *ktbt_class_of(const struct ktbt_trace *t,
				       const struct ketw_record *rec);

/*
 * Fill @ev's common context, specific context and payload from @rec:
 * 0, or -ENOMEM.
 */
int ktbt_event_fill(const struct ktbt_trace *t, const struct ktbt_class *c,
		    bt_event *ev, const struct ketw_record *rec);

/* The message iterator class methods (msg_iter.c). */
bt_message_iterator_class_initialize_method_status
ktbt_iter_init(bt_self_message_iterator *self,
	       bt_self_message_iterator_configuration *config,
	       bt_self_component_port_output *port);
void ktbt_iter_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_can_seek_beginning_method_status
ktbt_iter_can_seek_beginning(bt_self_message_iterator *self, bt_bool *can);
bt_message_iterator_class_seek_beginning_method_status
ktbt_iter_seek_beginning(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status
ktbt_iter_next(bt_self_message_iterator *self, bt_message_array_const msgs,
	       uint64_t capacity, uint64_t *count);

/* What each output port carries (its user data). */
struct ktbt_port {
	struct ktbt_trace *t;
	unsigned int cpu;
};

#endif /* _KETW_BT_H */
