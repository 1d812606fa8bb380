// SPDX-License-Identifier: GPL-2.0
/*
 * ketwfs's trace readers: trace (a copy of the buffers), trace_pipe (a
 * consuming reader, as text) and trace_pipe_raw (one CPU's records, as
 * /dev/ketw reads them), and the text of a record.
 *
 * Lock order: a pipe file's lock, then the session's read_mutex, then
 * ketw_mutex. Nothing here copies to or from user space under ketw_mutex
 * or read_mutex, except trace_pipe_raw, which reads as /dev/ketw does.
 */
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "fs.h"

#define KETWFS_RECORD_MAX	KETW_RECORD_SPAN(U16_MAX)
/* Memory as large as a session's buffers, which the user sizes. */
#define KETWFS_GFP_BIG		(GFP_KERNEL_ACCOUNT | __GFP_NOWARN | \
				 __GFP_RETRY_MAYFAIL)

/* ---- the text of a record ---- */

/*
 * Can @name go in a line of text as it is? User providers and
 * KETW_IOC_ENABLE take any bytes for a name, a newline or a blank too,
 * which would let a name forge lines or fields.
 */
static bool ketwfs_name_plain(const char *name)
{
	for (; *name; name++)
		if (!isgraph((unsigned char)*name) || *name == '\\')
			return false;
	return true;
}

/* A small cache of provider names by GUID, for the record lines. */
#define KETWFS_NAMES	8

struct ketwfs_names {
	unsigned int nr, next;
	struct {
		u8 guid[KETW_GUID_SIZE];
		bool user;			/* KETW_RECORD_USER */
		char name[KETW_NAME_MAX];	/* "": show the GUID */
	} e[KETWFS_NAMES];
};

/* The name of the provider of a record with @guid, of a user one if @user. */
static const char *ketwfs_provider_name(struct ketwfs_names *c, const u8 *guid,
					bool user)
{
	static const u8 zero[KETW_GUID_SIZE];
	struct ketw_provider *prov;
	unsigned int i;

	if (!memcmp(guid, zero, KETW_GUID_SIZE))
		return KETW_SYSTEM_PROVIDER_NAME;
	for (i = 0; i < c->nr; i++)
		if (!memcmp(c->e[i].guid, guid, KETW_GUID_SIZE) &&
		    c->e[i].user == user)
			return c->e[i].name;
	i = c->nr < KETWFS_NAMES ? c->nr++ : c->next++ % KETWFS_NAMES;
	memcpy(c->e[i].guid, guid, KETW_GUID_SIZE);
	c->e[i].user = user;
	mutex_lock(&ketw_mutex);
	prov = ketw_provider_find(NULL, guid, user);
	strscpy(c->e[i].name, prov && ketwfs_name_plain(prov->name) ?
		prov->name : "", KETW_NAME_MAX);
	mutex_unlock(&ketw_mutex);
	return c->e[i].name;
}

/*
 * The execution context as ftrace's latency columns ("dNs1"): interrupts
 * off 'd', need-resched 'N', context '.' task, 's' softirq, 'h' hardirq,
 * 'z' NMI, the preemption depth in hex ('.' for 0). @buf has 5 bytes.
 */
static char *ketwfs_context(char *buf, u16 flags)
{
	unsigned int depth = KETW_RECORD_PREEMPT_DEPTH(flags);

	buf[0] = flags & KETW_RECORD_IRQS_OFF ? 'd' : '.';
	buf[1] = flags & KETW_RECORD_NEED_RESCHED ? 'N' : '.';
	buf[2] = ".shz"[KETW_RECORD_CTX(flags)];
	buf[3] = depth ? hex_asc[depth] : '.';
	buf[4] = '\0';
	return buf;
}

/* Room ketwfs_format() needs for a record of @size bytes. */
#define KETWFS_LINE_HEAD	384

static size_t ketwfs_line_max(u32 size)
{
	size_t len = size > KETW_EVENT_HEADER_SIZE ?
		     size - KETW_EVENT_HEADER_SIZE : 0;

	return KETWFS_LINE_HEAD + 2 * len + len / 4 + 2 +
	       2 * KETW_EXT_MAX_SIZE;
}

static size_t ketwfs_format_addrs(char *buf, size_t cap, const char *name,
				  const u64 *a, u32 n)
{
	size_t k = scnprintf(buf, cap, " %s=", name);
	u32 i;

	for (i = 0; i < n; i++)
		k += scnprintf(buf + k, cap - k, "%s0x%llx", i ? "," : "",
			       a[i]);
	return k;
}

static size_t ketwfs_format_item(char *buf, size_t cap,
				 const struct ketw_ext_item *it)
{
	const void *d = it + 1;
	const struct ketw_ext_cpu_time *t = d;
	const struct ketw_ext_pid_ns *ns = d;
	const struct ketw_ext_activity *a = d;

	switch (it->type) {
	case KETW_EXT_KSTACK:
		return ketwfs_format_addrs(buf, cap, "stack", d, it->size / 8);
	case KETW_EXT_USTACK:
		return ketwfs_format_addrs(buf, cap, "ustack", d,
					   it->size / 8);
	case KETW_EXT_CPU_TIME:
		if (it->size < sizeof(*t))
			break;
		return scnprintf(buf, cap, " cputime=%llu,%llu,%llu",
				 t->kernel_ns, t->user_ns, t->runtime_ns);
	case KETW_EXT_PROG_ADDR:
		if (it->size < 8)
			break;
		return scnprintf(buf, cap, " progaddr=0x%llx", *(u64 *)d);
	case KETW_EXT_PID_NS:
		if (it->size < sizeof(*ns))
			break;
		return scnprintf(buf, cap, " pidns=%u/%u@%llu", ns->vpid,
				 ns->vtid, ns->pid_ns_inum);
	case KETW_EXT_ACTIVITY:
		if (it->size < sizeof(*a))
			break;
		return scnprintf(buf, cap, " activity=%pUb/%pUb", a->activity,
				 a->related);
	}
	return scnprintf(buf, cap, " item%u=%u", it->type, it->size);
}

/*
 * The extended data items of a record flagged KETW_RECORD_EXT, compactly
 * (addresses in hex); *@data and *@len move past them to the payload.
 */
static size_t ketwfs_format_items(char *buf, size_t cap,
				  const struct ketw_event_header *h,
				  const u8 **data, u32 *len)
{
	const struct ketw_ext_header *eh = (const void *)*data;
	const struct ketw_ext_item *it;
	u32 off, i, span;
	size_t n = 0;

	if (!(h->flags & KETW_RECORD_EXT) || *len < sizeof(*eh) ||
	    eh->size < sizeof(*eh) || eh->size > *len || eh->size % 8)
		return 0;
	for (i = 0, off = sizeof(*eh); i < eh->count; i++, off += span) {
		if (off + sizeof(*it) > eh->size)
			break;
		it = (const void *)*data + off;
		span = KETW_EXT_ITEM_SPAN(it->size);
		if (off + span > eh->size)
			break;
		n += ketwfs_format_item(buf + n, cap - n, it);
	}
	*data += eh->size;
	*len -= eh->size;
	return n;
}

/*
 * One line per record (Documentation/ketw-fs.rst): the header's fields,
 * then the payload in hex, four bytes to a group. @h is a whole record
 * (size at least the header: ketwfs_record_ok()) and @buf has
 * ketwfs_line_max(h->size) bytes.
 */
static size_t ketwfs_format(char *buf, size_t cap,
			    const struct ketw_event_header *h,
			    struct ketwfs_names *names)
{
	const u8 *data = (const u8 *)(h + 1);
	u32 len = h->size - KETW_EVENT_HEADER_SIZE, i, rem;
	bool user = h->flags & KETW_RECORD_USER;
	const char *prov = ketwfs_provider_name(names, h->provider_guid, user);
	u64 sec = div_u64_rem(h->timestamp, NSEC_PER_SEC, &rem);
	char ctx[5];
	size_t n, room;
	char *p;

	n = scnprintf(buf, cap, "cpu=%u ctx=%s ts=%llu.%09u pid=%u tid=%u seq=%llu provider=",
		      h->cpu, ketwfs_context(ctx, h->flags), sec, rem,
		      h->process_id, h->thread_id, h->sequence);
	if (*prov)
		n += scnprintf(buf + n, cap - n, "%s", prov);
	else
		n += scnprintf(buf + n, cap - n, "%s%pUb",
			       user ? KETW_USER_PREFIX : "", h->provider_guid);
	n += scnprintf(buf + n, cap - n, " id=%u", h->event_id);
	if (h->flags & KETW_RECORD_SYSTEM)
		n += scnprintf(buf + n, cap - n, " sys=%s",
			       ketw_sys_event_name(h->event_id));
	n += scnprintf(buf + n, cap - n,
		       " type=%u level=%u ver=%u kw=0x%llx flags=0x%x",
		       h->type, h->level, h->version, h->keyword, h->flags);
	n += ketwfs_format_items(buf + n, cap - n, h, &data, &len);
	n += scnprintf(buf + n, cap - n, " len=%u data=", len);
	/* Never past @cap, should the head take more than counted. */
	room = cap - n;
	if (2 * (size_t)len + len / 4 + 2 > room)
		len = room > 2 ? (room - 2) * 4 / 9 : 0;
	p = buf + n;
	for (i = 0; i < len; i += 4) {
		if (i)
			*p++ = ' ';
		p = bin2hex(p, data + i, min_t(u32, 4, len - i));
	}
	*p++ = '\n';
	return p - buf;
}

/*
 * Is the record of @span bytes at @h one to show? The ring checks spans
 * only; a reader scribbling on a meta page's consumed position can make
 * a payload read as a header, with a size below the header's.
 */
static bool ketwfs_record_ok(const struct ketw_event_header *h, u32 span)
{
	return h->size >= KETW_EVENT_HEADER_SIZE &&
	       KETW_RECORD_SPAN(h->size) == span;
}

/* ---- trace: a copy of the buffers, as text, oldest record first ---- */

struct ketwfs_snap {
	void *buf;		/* whole records, padding included */
	u32 len;
	u32 off;		/* the next record */
};

struct ketwfs_trace {
	struct ketwfs_names names;
	char session[KETW_NAME_MAX];
	u32 clock, policy;
	loff_t next;		/* the number of the record at the heads */
	int head;		/* the CPU whose record is next */
	struct ketwfs_snap *cpus;
	char *text;
	size_t text_cap;
};

/* The CPU whose next record is the oldest (padding skipped), or -1. */
static int ketwfs_trace_head(struct ketwfs_trace *t)
{
	const struct ketw_event_header *h, *best = NULL;
	struct ketwfs_snap *c;
	u32 span;
	int cpu;

	t->head = -1;
	for_each_possible_cpu(cpu) {
		c = &t->cpus[cpu];
		while (c->off < c->len) {
			h = c->buf + c->off;
			span = KETW_RECORD_SPAN(h->size);
			if (span < KETW_RECORD_ALIGN || span > c->len - c->off) {
				c->off = c->len;
				break;
			}
			if (h->flags & KETW_RECORD_PADDING) {
				c->off += span;
				continue;
			}
			if (!ketwfs_record_ok(h, span)) {
				c->off = c->len;
				break;
			}
			if (!best || h->timestamp < best->timestamp) {
				best = h;
				t->head = cpu;
			}
			break;
		}
	}
	return t->head;
}

static void ketwfs_trace_advance(struct ketwfs_trace *t)
{
	struct ketwfs_snap *c = &t->cpus[t->head];
	const struct ketw_event_header *h = c->buf + c->off;

	c->off += KETW_RECORD_SPAN(h->size);
	t->next++;
	ketwfs_trace_head(t);
}

static void ketwfs_trace_rewind(struct ketwfs_trace *t)
{
	int cpu;

	for_each_possible_cpu(cpu)
		t->cpus[cpu].off = 0;
	t->next = 1;
	ketwfs_trace_head(t);
}

static void *ketwfs_trace_current(struct ketwfs_trace *t)
{
	return t->head < 0 ? NULL : t->cpus[t->head].buf + t->cpus[t->head].off;
}

/* Position 0 is the header line, n the n-th record. */
static void *ketwfs_trace_start(struct seq_file *m, loff_t *pos)
{
	struct ketwfs_trace *t = m->private;

	if (!*pos || *pos < t->next)
		ketwfs_trace_rewind(t);
	if (!*pos)
		return SEQ_START_TOKEN;
	while (t->next < *pos && t->head >= 0)
		ketwfs_trace_advance(t);
	return ketwfs_trace_current(t);
}

static void *ketwfs_trace_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct ketwfs_trace *t = m->private;

	if (v != SEQ_START_TOKEN)
		ketwfs_trace_advance(t);
	++*pos;
	return ketwfs_trace_current(t);
}

static void ketwfs_trace_stop(struct seq_file *m, void *v)
{
}

static int ketwfs_trace_show(struct seq_file *m, void *v)
{
	struct ketwfs_trace *t = m->private;
	const struct ketw_event_header *h = v;
	size_t need;

	if (v == SEQ_START_TOKEN) {
		seq_printf(m, "# session %s clock=%s policy=%s: one line per record, oldest first\n",
			   t->session,
			   ketw_clock_name(t->clock),
			   ketw_policy_name(t->policy));
		return 0;
	}
	need = ketwfs_line_max(h->size);
	if (need > t->text_cap) {
		kvfree(t->text);
		t->text_cap = 0;
		t->text = kvmalloc(need, GFP_KERNEL);
		if (!t->text)
			return -ENOMEM;
		t->text_cap = need;
	}
	seq_write(m, t->text, ketwfs_format(t->text, t->text_cap, h,
					    &t->names));
	return 0;
}

static const struct seq_operations ketwfs_trace_ops = {
	.start	= ketwfs_trace_start,
	.next	= ketwfs_trace_next,
	.stop	= ketwfs_trace_stop,
	.show	= ketwfs_trace_show,
};

static void ketwfs_trace_free(struct ketwfs_trace *t)
{
	int cpu;

	if (t->cpus)
		for_each_possible_cpu(cpu)
			kvfree(t->cpus[cpu].buf);
	kfree(t->cpus);
	kvfree(t->text);
}

/* Copy each CPU's buffer now; the file reads that copy. */
static int ketwfs_trace_snapshot(struct ketwfs_trace *t, struct ketw_session *s)
{
	struct ketw_session_attr a;
	u64 copied, dropped;
	size_t size;
	void *bounce;
	int cpu, err = 0;

	mutex_lock(&ketw_mutex);
	ketw_session_fill_attr(s, &a);
	mutex_unlock(&ketw_mutex);
	strscpy(t->session, a.name, KETW_NAME_MAX);
	t->clock = a.clock;
	t->policy = a.policy;
	t->cpus = kcalloc(nr_cpu_ids, sizeof(*t->cpus), GFP_KERNEL);
	size = (size_t)a.buffer_kb * 1024;
	/* Up to 256 MiB, as the user chose: fail quietly, not the OOM way. */
	bounce = kvmalloc(size, KETWFS_GFP_BIG);
	if (!t->cpus || !bounce) {
		kvfree(bounce);
		return -ENOMEM;
	}
	/* No read() or trace_pipe consumes while we copy. */
	err = ketw_session_read_lock(s);
	if (err) {
		kvfree(bounce);
		return err;
	}
	for_each_possible_cpu(cpu) {
		err = ketw_session_snapshot_cpu(s, cpu, bounce, size, &copied,
						&dropped);
		if (err || !copied)
			continue;
		/* Keep what is there, not a whole buffer per CPU. */
		t->cpus[cpu].buf = kvmalloc(copied, KETWFS_GFP_BIG);
		if (!t->cpus[cpu].buf) {
			err = -ENOMEM;
			break;
		}
		memcpy(t->cpus[cpu].buf, bounce, copied);
		t->cpus[cpu].len = copied;
	}
	ketw_session_read_unlock(s);
	kvfree(bounce);
	return err;
}

static int ketwfs_trace_open(struct inode *inode, struct file *file)
{
	struct ketw_session *s;
	struct ketwfs_trace *t;
	int err;

	err = ketwfs_open_check();
	if (err)
		return err;
	s = ketwfs_session(ketwfs_i(inode));
	if (IS_ERR(s))
		return PTR_ERR(s);
	t = __seq_open_private(file, &ketwfs_trace_ops, sizeof(*t));
	if (!t) {
		ketw_session_put(s);
		return -ENOMEM;
	}
	err = ketwfs_trace_snapshot(t, s);
	ketw_session_put(s);
	if (err) {
		ketwfs_trace_free(t);
		seq_release_private(inode, file);
		return err;
	}
	ketwfs_trace_rewind(t);
	return 0;
}

static int ketwfs_trace_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	ketwfs_trace_free(m->private);
	return seq_release_private(inode, file);
}

const struct file_operations ketwfs_trace_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_trace_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= ketwfs_trace_release,
};

/* ---- trace_pipe and trace_pipe_raw: consuming readers ---- */

/* A record peeked on one CPU, not consumed yet. */
struct ketwfs_head {
	void *rec;
	size_t cap;
	u32 pos, span;
	bool have;
};

/**
 * struct ketwfs_pipe - an open trace_pipe or trace_pipe_raw
 * @s:        the session, attached (as a /dev/ketw file after ATTACH).
 * @cpu:      trace_pipe_raw: its CPU.
 * @returned: records were returned since the open or the last end of
 *            file: the next stop ends the file.
 * @lock:     trace_pipe: serialises reads of this file.
 * @names:    trace_pipe: provider names.
 * @heads:    trace_pipe: per possible CPU, its next record.
 * @text:     trace_pipe: the line being returned ...
 * @text_cap: ... its buffer's size,
 * @text_len: ... its length,
 * @text_off: ... and what was returned of it.
 */
struct ketwfs_pipe {
	struct ketw_session *s;
	int cpu;
	bool returned;
	struct mutex lock;		/* trace_pipe: one read at a time */
	struct ketwfs_names names;
	struct ketwfs_head *heads;
	char *text;
	size_t text_cap, text_len, text_off;
};

/* A reader holds its session: rmdir and KETW_IOC_DESTROY fail (EBUSY). */
static int ketwfs_attach(struct ketwfs_inode *ki, struct ketw_session **out)
{
	struct ketw_session *s = ketwfs_session_get(ki);

	if (!s)
		return -ENODEV;
	if (ketw_session_attach(s, NULL)) {
		ketw_session_put(s);
		return -ENODEV;		/* destroyed since the lookup */
	}
	*out = s;
	return 0;
}

static void ketwfs_detach(struct ketw_session *s)
{
	ketw_session_attach(NULL, s);
	ketw_session_put(s);
}

static int ketwfs_pipe_open(struct inode *inode, struct file *file)
{
	struct ketwfs_inode *ki = ketwfs_i(inode);
	struct ketwfs_pipe *p;
	int err;

	err = ketwfs_open_check();
	if (err)
		return err;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	mutex_init(&p->lock);
	p->cpu = ki->cpu;
	if (ki->kind == KFS_TRACE_PIPE) {
		p->heads = kcalloc(nr_cpu_ids, sizeof(*p->heads), GFP_KERNEL);
		if (!p->heads) {
			kfree(p);
			return -ENOMEM;
		}
	}
	err = ketwfs_attach(ki, &p->s);
	if (err) {
		kfree(p->heads);
		kfree(p);
		return err;
	}
	file->private_data = p;
	return stream_open(inode, file);
}

static int ketwfs_pipe_release(struct inode *inode, struct file *file)
{
	struct ketwfs_pipe *p = file->private_data;
	int cpu;

	ketwfs_detach(p->s);
	if (p->heads)
		for_each_possible_cpu(cpu)
			kvfree(p->heads[cpu].rec);
	kfree(p->heads);
	kvfree(p->text);
	kfree(p);
	return 0;
}

/* Peek at @cpu's next record into its head; 0 or -errno. */
static int ketwfs_pipe_peek(struct ketwfs_pipe *p, int cpu)
{
	struct ketwfs_head *hd = &p->heads[cpu];
	ssize_t n;

	for (;;) {
		if (!hd->rec) {
			hd->cap = max_t(size_t, p->s->max_span, 2048);
			hd->rec = kvmalloc(hd->cap, GFP_KERNEL);
			if (!hd->rec)
				return -ENOMEM;
		}
		n = ketw_session_peek_cpu(p->s, cpu, hd->rec, hd->cap,
					  &hd->pos);
		if (n == -EMSGSIZE && hd->cap < KETWFS_RECORD_MAX) {
			/* A system record larger than max_data_size. */
			kvfree(hd->rec);
			hd->rec = NULL;
			hd->cap = KETWFS_RECORD_MAX;
			hd->rec = kvmalloc(hd->cap, GFP_KERNEL);
			if (!hd->rec)
				return -ENOMEM;
			continue;
		}
		if (n < 0)
			return n;
		hd->span = n;
		hd->have = n > 0;
		return 0;
	}
}

static u64 ketwfs_head_ts(const struct ketwfs_head *hd)
{
	return ((const struct ketw_event_header *)hd->rec)->timestamp;
}

/*
 * Consume the oldest record any CPU has and make it the text to return.
 * Each CPU's next record is peeked, and only the oldest one consumed, so
 * that records the reader did not return stay in the buffers.
 *
 * Return: 1 if there is a line; 0 if no CPU has a record; -errno.
 */
static int ketwfs_pipe_next(struct ketwfs_pipe *p)
{
	struct ketw_session *s = p->s;
	struct ketwfs_head *hd, *best;
	int cpu, best_cpu = -1, ret;
	size_t need;

	ret = ketw_session_read_lock(s);
	if (ret)
		return ret;
	for (;;) {
		/* Writers (or a scribbled meta page) may keep us looking. */
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			goto out;
		}
		cond_resched();
		best = NULL;
		for_each_possible_cpu(cpu) {
			hd = &p->heads[cpu];
			if (!hd->have) {
				ret = ketwfs_pipe_peek(p, cpu);
				if (ret)
					goto out;
			}
			if (hd->have &&
			    (!best || ketwfs_head_ts(hd) < ketwfs_head_ts(best))) {
				best = hd;
				best_cpu = cpu;
			}
		}
		ret = 0;
		if (!best)
			goto out;
		best->have = false;
		/*
		 * Fails if a LOOP writer took it meanwhile: look again. A
		 * record that is not one is consumed and dropped.
		 */
		if (ketw_session_consume_cpu(s, best_cpu, best->pos,
					     best->span) &&
		    ketwfs_record_ok(best->rec, best->span))
			break;
	}
	ketw_session_read_unlock(s);

	/* The copy is ours now; the head is refilled by the next call. */
	need = ketwfs_line_max(((struct ketw_event_header *)best->rec)->size);
	if (need > p->text_cap) {
		kvfree(p->text);
		p->text_cap = 0;
		p->text = kvmalloc(need, GFP_KERNEL);
		if (!p->text)
			return -ENOMEM;
		p->text_cap = need;
	}
	p->text_len = ketwfs_format(p->text, p->text_cap, best->rec,
				    &p->names);
	p->text_off = 0;
	return 1;
out:
	ketw_session_read_unlock(s);
	return ret;
}

/*
 * Both pipes block while there is nothing to read, and end the file (read
 * returns 0, once) when the session is stopped and drained after they
 * returned records: "cat trace_pipe" ends with the run it showed, and on
 * a session stopped and drained already it waits for the next run.
 * ketw_session_stopped() sees the state after the STOP record the stopper
 * logged: a reader that finds nothing, then sees the session stopped,
 * looks once more and then knows it has everything.
 */

static ssize_t ketwfs_pipe_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct ketwfs_pipe *p = file->private_data;
	struct ketw_session *s = p->s;
	bool stopped = false;
	size_t copied = 0, n;
	ssize_t ret = 0;
	int err;

	if (!count)
		return 0;
	if (mutex_lock_interruptible(&p->lock))
		return -ERESTARTSYS;
	/* An mmap consumer owns the positions while it maps a data area. */
	err = ketw_session_read_begin(s);
	if (err) {
		mutex_unlock(&p->lock);
		return err;
	}
	for (;;) {
		if (p->text_off < p->text_len) {
			n = min(count - copied, p->text_len - p->text_off);
			if (copy_to_user(ubuf + copied, p->text + p->text_off,
					 n)) {
				ret = -EFAULT;
				break;
			}
			copied += n;
			p->text_off += n;
			if (copied == count)
				break;
			continue;
		}
		err = ketwfs_pipe_next(p);
		if (err > 0) {
			p->returned = true;
			continue;
		}
		if (err < 0 || copied || stopped) {
			if (!err && !copied)
				p->returned = false;	/* the end, once */
			ret = err;
			break;
		}
		stopped = p->returned && ketw_session_stopped(s);
		if (stopped)
			continue;	/* once more, then the end */
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		err = ketw_session_wait_records(s, -1);
		if (err) {
			ret = err;
			break;
		}
	}
	ketw_session_read_end(s);
	mutex_unlock(&p->lock);
	return copied ? copied : ret;
}

static bool ketwfs_pipe_pending(struct ketwfs_pipe *p)
{
	int cpu;

	if (READ_ONCE(p->text_off) < READ_ONCE(p->text_len))
		return true;
	for_each_possible_cpu(cpu)
		if (READ_ONCE(p->heads[cpu].have))
			return true;
	return !ketw_session_empty(p->s, -1);
}

static __poll_t ketwfs_pipe_poll(struct file *file,
				 struct poll_table_struct *pt)
{
	struct ketwfs_pipe *p = file->private_data;

	ketw_session_poll_wait(p->s, file, pt);
	if (ketwfs_pipe_pending(p))
		return EPOLLIN | EPOLLRDNORM;
	return READ_ONCE(p->returned) &&
	       READ_ONCE(p->s->state) == KETW_STATE_SUSPENDED ? EPOLLHUP : 0;
}

const struct file_operations ketwfs_pipe_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_pipe_open,
	.read		= ketwfs_pipe_read,
	.poll		= ketwfs_pipe_poll,
	.release	= ketwfs_pipe_release,
	.llseek		= no_llseek,
};

/* trace_pipe_raw: whole binary records of one CPU, as /dev/ketw reads. */
static ssize_t ketwfs_raw_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct ketwfs_pipe *p = file->private_data;
	struct ketw_session *s = p->s;
	bool stopped = false;
	ssize_t ret;
	int err;

	if (!count)
		return 0;
	err = ketw_session_read_begin(s);
	if (err)
		return err;
	err = ketw_session_read_lock(s);
	if (err) {
		ketw_session_read_end(s);
		return err;
	}
	for (;;) {
		ret = ketw_session_read_cpu(s, p->cpu, ubuf, count);
		if (ret == -EMSGSIZE)
			ret = -EINVAL;	/* the next record does not fit */
		if (ret > 0)
			p->returned = true;
		if (ret || stopped) {
			if (!ret)
				p->returned = false;	/* the end, once */
			break;
		}
		stopped = p->returned && ketw_session_stopped(s);
		if (stopped)
			continue;	/* once more, then the end */
		ret = -EAGAIN;
		if (file->f_flags & O_NONBLOCK)
			break;
		ketw_session_read_unlock(s);
		err = ketw_session_wait_records(s, p->cpu);
		if (!err)
			err = ketw_session_read_lock(s);
		if (err) {
			ketw_session_read_end(s);
			return err;
		}
	}
	ketw_session_read_unlock(s);
	ketw_session_read_end(s);
	return ret;
}

static __poll_t ketwfs_raw_poll(struct file *file, struct poll_table_struct *pt)
{
	struct ketwfs_pipe *p = file->private_data;

	ketw_session_poll_wait(p->s, file, pt);
	if (!ketw_session_empty(p->s, p->cpu))
		return EPOLLIN | EPOLLRDNORM;
	return READ_ONCE(p->returned) &&
	       READ_ONCE(p->s->state) == KETW_STATE_SUSPENDED ? EPOLLHUP : 0;
}

/*
 * Offset 0: the CPU's meta page; PAGE_SIZE: its data area. The offsets of
 * /dev/ketw for this CPU (KETW_MMAP_CPU(cpu), and the meta page's
 * data_offset) work too.
 */
static int ketwfs_raw_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct ketwfs_pipe *p = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;

	if (off == 0 || off == PAGE_SIZE)
		vma->vm_pgoff += KETW_MMAP_CPU(p->cpu) >> PAGE_SHIFT;
	else if (off >> KETW_MMAP_CPU_SHIFT != (u64)p->cpu)
		return -EINVAL;
	return ketw_session_mmap(p->s, vma);
}

const struct file_operations ketwfs_raw_fops = {
	.owner		= THIS_MODULE,
	.open		= ketwfs_pipe_open,
	.read		= ketwfs_raw_read,
	.poll		= ketwfs_raw_poll,
	.mmap		= ketwfs_raw_mmap,
	.release	= ketwfs_pipe_release,
	.llseek		= no_llseek,
};
