// SPDX-License-Identifier: GPL-2.0
/*
 * libketw-posix: the trace stream identifiers of this process.
 *
 * A trace_id_t is a slot of this table and the slot's generation, so a
 * stale identifier (after shutdown or close) or one made up is EINVAL,
 * never a dangling pointer. An identifier is valid only in the process
 * that created it: a child after fork() finds an empty table (its copies
 * of the streams' files are closed, so that the sessions go with their
 * creator), as the standard says for posix_trace_create().
 *
 * Every user of a stream holds a reference (kp_table_get()) while it
 * works on it; posix_trace_shutdown() and posix_trace_close() take the
 * stream out of the table, wake the threads that wait in it (getnext)
 * and free it once the last reference is gone.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "kp_internal.h"

#define KP_TABLE_SIZE	128	/* streams and logs a process holds */

struct kp_slot {
	struct kp_stream *s;
	unsigned int gen;
	unsigned int refs;
	bool removing;
};

static struct kp_slot kp_table[KP_TABLE_SIZE];
static pid_t kp_table_pid;
static pthread_mutex_t kp_table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kp_table_cond = PTHREAD_COND_INITIALIZER;
static pthread_once_t kp_table_once = PTHREAD_ONCE_INIT;

/* trace_id_t: slot + 1 in the low 8 bits, the generation above. */
static trace_id_t kp_trid(unsigned int slot, unsigned int gen)
{
	return (slot + 1) | ((gen & 0xffffffu) << 8);
}

static struct kp_slot *kp_slot_of(trace_id_t trid)
{
	unsigned int slot = (trid & 0xff) - 1;

	if ((trid & 0xff) == 0 || slot >= KP_TABLE_SIZE ||
	    kp_table_pid != getpid())
		return NULL;
	if (!kp_table[slot].s || (kp_table[slot].gen & 0xffffffu) != trid >> 8)
		return NULL;
	return &kp_table[slot];
}

/*
 * fork(): no operation of the library is under way in the child (every
 * stream's lock was taken before the fork), and the child owns nothing.
 */
static void kp_atfork_prepare(void)
{
	unsigned int i;

	pthread_mutex_lock(&kp_table_lock);
	for (i = 0; i < KP_TABLE_SIZE; i++)
		if (kp_table[i].s)
			pthread_mutex_lock(&kp_table[i].s->lock);
}

static void kp_atfork_parent(void)
{
	unsigned int i;

	for (i = 0; i < KP_TABLE_SIZE; i++)
		if (kp_table[i].s)
			pthread_mutex_unlock(&kp_table[i].s->lock);
	pthread_mutex_unlock(&kp_table_lock);
}

static void kp_atfork_child(void)
{
	struct kp_stream *s;
	unsigned int i;

	for (i = 0; i < KP_TABLE_SIZE; i++) {
		s = kp_table[i].s;
		if (!s)
			continue;
		pthread_mutex_unlock(&s->lock);
		/* The parent's: close our copies, keep the memory. */
		if (s->kind == KP_LIVE) {
			close(s->fd);
			close(s->wake);
		}
		kp_table[i].s = NULL;
	}
	kp_table_pid = getpid();
	pthread_mutex_unlock(&kp_table_lock);
}

static void kp_table_init(void)
{
	kp_table_pid = getpid();
	pthread_atfork(kp_atfork_prepare, kp_atfork_parent, kp_atfork_child);
}

int kp_table_add(struct kp_stream *s, trace_id_t *trid)
{
	unsigned int i;
	int err = EAGAIN;

	pthread_once(&kp_table_once, kp_table_init);
	pthread_mutex_lock(&kp_table_lock);
	for (i = 0; i < KP_TABLE_SIZE; i++) {
		if (kp_table[i].s)
			continue;
		kp_table[i].s = s;
		kp_table[i].gen++;
		kp_table[i].refs = 0;
		kp_table[i].removing = false;
		*trid = kp_trid(i, kp_table[i].gen);
		err = 0;
		break;
	}
	pthread_mutex_unlock(&kp_table_lock);
	return err;
}

struct kp_stream *kp_table_get(trace_id_t trid, unsigned int kinds)
{
	struct kp_stream *s = NULL;
	struct kp_slot *e;

	pthread_once(&kp_table_once, kp_table_init);
	pthread_mutex_lock(&kp_table_lock);
	e = kp_slot_of(trid);
	if (e && !e->removing && (e->s->kind & kinds)) {
		e->refs++;
		s = e->s;
	}
	pthread_mutex_unlock(&kp_table_lock);
	return s;
}

void kp_table_put(trace_id_t trid)
{
	struct kp_slot *e;

	pthread_mutex_lock(&kp_table_lock);
	e = kp_slot_of(trid);
	if (e && e->refs && !--e->refs && e->removing)
		pthread_cond_broadcast(&kp_table_cond);
	pthread_mutex_unlock(&kp_table_lock);
}

struct kp_stream *kp_table_remove(trace_id_t trid, unsigned int kinds)
{
	struct kp_stream *s = NULL;
	struct kp_slot *e;
	uint64_t one = 1;

	pthread_once(&kp_table_once, kp_table_init);
	pthread_mutex_lock(&kp_table_lock);
	e = kp_slot_of(trid);
	if (!e || e->removing || !(e->s->kind & kinds))
		goto out;
	e->removing = true;
	s = e->s;
	atomic_store(&s->dead, true);
	/*
	 * Wake the threads that wait for records: they return EINVAL. An
	 * eventfd the write would overflow is readable already.
	 */
	if (s->kind == KP_LIVE)
		(void)!write(s->wake, &one, sizeof(one));
	while (e->refs)
		pthread_cond_wait(&kp_table_cond, &kp_table_lock);
	e->s = NULL;
out:
	pthread_mutex_unlock(&kp_table_lock);
	return s;
}

void kp_table_foreach(void (*fn)(trace_id_t trid, struct kp_stream *s))
{
	unsigned int i;

	for (i = 0; i < KP_TABLE_SIZE; i++) {
		struct kp_stream *s;

		pthread_mutex_lock(&kp_table_lock);
		s = kp_table_pid == getpid() ? kp_table[i].s : NULL;
		pthread_mutex_unlock(&kp_table_lock);
		if (s)
			fn(kp_trid(i, kp_table[i].gen), s);
	}
}
