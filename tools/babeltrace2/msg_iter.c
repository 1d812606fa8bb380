// SPDX-License-Identifier: GPL-2.0
/*
 * One CPU's records as babeltrace2 messages (a message iterator per
 * output port):
 *
 *   stream beginning, packet beginning, an event per record, ...
 *   where the sequence numbers jump (ketw lost events between two records
 *   of the CPU: the gap is the count, and the OVERFLOW/RESUME pair, when
 *   there is one, comes first after it):
 *     packet end at the last record before the loss,
 *     discarded events from that time to the first record after it,
 *     a packet of the records at that time, which ends there;
 *   packet end and stream end after the last record.
 *
 * That is the shape CTF 1.8 can store (sink.ctf.fs: a discarded events
 * range runs from one packet's end to the next one's), so that a
 * conversion to CTF keeps every loss where it happened.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ketw_bt.h"

#define QUEUE_MAX	8	/* messages one record can produce: 4 */

struct ktbt_iter {
	bt_self_message_iterator *self;
	const struct ktbt_port *port;
	struct ketw_input_cpu_iter it;
	bt_stream *stream;
	bt_packet *packet;		/* the open packet, or NULL */
	bool begun, done;
	bool have_prev;
	uint64_t prev_seq, prev_ts;	/* of the last record */
	bool after_loss;		/* the open packet ends after ... */
	uint64_t loss_ts;		/* ... the records of this time */
	const bt_message *queue[QUEUE_MAX];
	unsigned int head, len;
};

static int push(struct ktbt_iter *x, const bt_message *m)
{
	if (!m)
		return -ENOMEM;
	x->queue[(x->head + x->len++) % QUEUE_MAX] = m;
	return 0;
}

static int packet_end(struct ktbt_iter *x)
{
	bt_message *m;

	m = bt_message_packet_end_create_with_default_clock_snapshot(x->self,
			x->packet, x->prev_ts);
	bt_packet_put_ref(x->packet);
	x->packet = NULL;
	x->after_loss = false;
	return push(x, m);
}

static int packet_begin(struct ktbt_iter *x, uint64_t ts)
{
	bt_field *ctx;

	x->packet = bt_packet_create(x->stream);
	if (!x->packet)
		return -ENOMEM;
	ctx = bt_packet_borrow_context_field(x->packet);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(ctx, 0),
		x->port->cpu);
	return push(x, bt_message_packet_beginning_create_with_default_clock_snapshot(
			x->self, x->packet, ts));
}

/* The messages of the next record, or of the end. */
static int produce(struct ktbt_iter *x)
{
	const struct ktbt_class *c;
	struct ketw_record rec;
	bt_message *m, *d;
	uint64_t ts, lost = 0;
	int err;

	/*
	 * Every message has a time (the stream's first and last record's
	 * for its beginning and end), so that babeltrace2 can seek a time
	 * by seeking the beginning and skipping (--begin, its trimmer).
	 */
	if (!x->begun) {
		struct ketw_input_cpu_iter peek = x->it;

		x->begun = true;
		m = bt_message_stream_beginning_create(x->self, x->stream);
		if (m && ketw_input_cpu_iter_next(&peek, &rec) > 0)
			bt_message_stream_beginning_set_default_clock_snapshot(m,
				rec.hdr->timestamp);
		return push(x, m);
	}
	if (ketw_input_cpu_iter_next(&x->it, &rec) <= 0) {
		x->done = true;
		err = x->packet ? packet_end(x) : 0;
		m = err ? NULL : bt_message_stream_end_create(x->self,
							      x->stream);
		if (m)
			bt_message_stream_end_set_default_clock_snapshot(m,
								x->prev_ts);
		return err ? err : push(x, m);
	}
	/* Times never go back within a CPU (a message sequence's rule). */
	ts = rec.hdr->timestamp;
	if (x->have_prev && ts < x->prev_ts)
		ts = x->prev_ts;
	if (x->have_prev && rec.hdr->sequence > x->prev_seq + 1)
		lost = rec.hdr->sequence - x->prev_seq - 1;

	if (lost) {
		err = x->packet ? packet_end(x) : 0;
		if (err)
			return err;
		d = bt_message_discarded_events_create_with_default_clock_snapshots(
				x->self, x->stream, x->prev_ts, ts);
		if (!d)
			return -ENOMEM;
		bt_message_discarded_events_set_count(d, lost);
		err = push(x, d);
		if (err)
			return err;
		x->after_loss = true;
		x->loss_ts = ts;
	} else if (x->packet && x->after_loss && ts > x->loss_ts) {
		err = packet_end(x);
		if (err)
			return err;
	}
	if (!x->packet) {
		err = packet_begin(x, ts);
		if (err)
			return err;
		x->after_loss = lost != 0;
	}

	c = ktbt_class_of(x->port->t, &rec);
	if (!c)
		return -EINVAL;
	m = bt_message_event_create_with_packet_and_default_clock_snapshot(
			x->self, c->ec, x->packet, ts);
	if (!m)
		return -ENOMEM;
	if (ktbt_event_fill(x->port->t, c, bt_message_event_borrow_event(m),
			    &rec)) {
		bt_message_put_ref(m);
		return -ENOMEM;
	}
	x->have_prev = true;
	x->prev_seq = rec.hdr->sequence;
	x->prev_ts = ts;
	return push(x, m);
}

bt_message_iterator_class_next_method_status
ktbt_iter_next(bt_self_message_iterator *self, bt_message_array_const msgs,
	       uint64_t capacity, uint64_t *count)
{
	struct ktbt_iter *x = bt_self_message_iterator_get_data(self);
	int err;

	*count = 0;
	while (*count < capacity) {
		if (x->len) {
			msgs[(*count)++] = x->queue[x->head];
			x->head = (x->head + 1) % QUEUE_MAX;
			x->len--;
			continue;
		}
		if (x->done)
			break;
		err = produce(x);
		if (err) {
			if (*count)	/* those go; the error comes next time */
				break;
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(
				self, "%s: cpu %u: cannot make a message: %s",
				x->port->t->path, x->port->cpu,
				strerror(-err));
			return err == -ENOMEM ?
			       BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR :
			       BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
	}
	return *count ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK :
			BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}

bt_message_iterator_class_initialize_method_status
ktbt_iter_init(bt_self_message_iterator *self,
	       bt_self_message_iterator_configuration *config,
	       bt_self_component_port_output *port)
{
	struct ktbt_iter *x = calloc(1, sizeof(*x));

	if (!x)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	x->self = self;
	x->port = bt_self_component_port_get_data(
		bt_self_component_port_output_as_self_component_port(port));
	x->stream = x->port->t->streams[x->port->cpu];
	ketw_input_cpu_iter_init(&x->it, x->port->t->in, x->port->cpu);
	bt_self_message_iterator_set_data(self, x);
	/* Times never go back: a time is found by reading forward. */
	bt_self_message_iterator_configuration_set_can_seek_forward(config,
								    BT_TRUE);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

/* Drop what is queued and the open packet. */
static void iter_drop(struct ktbt_iter *x)
{
	while (x->len) {
		bt_message_put_ref(x->queue[x->head]);
		x->head = (x->head + 1) % QUEUE_MAX;
		x->len--;
	}
	bt_packet_put_ref(x->packet);
	x->packet = NULL;
}

void ktbt_iter_finalize(bt_self_message_iterator *self)
{
	struct ktbt_iter *x = bt_self_message_iterator_get_data(self);

	if (!x)
		return;
	iter_drop(x);
	free(x);
}

/*
 * Back to the stream's beginning: babeltrace2 seeks to a time (its
 * trimmer, --begin) by seeking the beginning and skipping.
 */
bt_message_iterator_class_can_seek_beginning_method_status
ktbt_iter_can_seek_beginning(bt_self_message_iterator *self, bt_bool *can)
{
	(void)self;
	*can = BT_TRUE;
	return BT_MESSAGE_ITERATOR_CLASS_CAN_SEEK_BEGINNING_METHOD_STATUS_OK;
}

bt_message_iterator_class_seek_beginning_method_status
ktbt_iter_seek_beginning(bt_self_message_iterator *self)
{
	struct ktbt_iter *x = bt_self_message_iterator_get_data(self);
	const struct ktbt_port *port = x->port;
	bt_stream *stream = x->stream;

	iter_drop(x);
	memset(x, 0, sizeof(*x));
	x->self = self;
	x->port = port;
	x->stream = stream;
	ketw_input_cpu_iter_init(&x->it, port->t->in, port->cpu);
	return BT_MESSAGE_ITERATOR_CLASS_SEEK_BEGINNING_METHOD_STATUS_OK;
}
