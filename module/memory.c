// SPDX-License-Identifier: GPL-2.0
/*
 * ketw buffer memory: what a session's buffers take, a cap on all of them
 * together, and a look at the memory available before anything is
 * allocated. Documentation/ketw-ring-buffer.rst ("Memory") states the
 * formula, the defaults and the errors.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>

#include "ketw_internal.h"

static DEFINE_SPINLOCK(ketw_mem_lock);
static u64 ketw_mem_used;		/* bytes charged, under ketw_mem_lock */
static unsigned long ketw_max_buffer_kb;	/* 0: a quarter of RAM */

static u64 ketw_ram_bytes(void)
{
	return (u64)totalram_pages() << PAGE_SHIFT;
}

/**
 * ketw_mem_cap() - the most all sessions' buffers may take together
 *
 * Return: bytes: max_buffer_kb, or a quarter of RAM when it is 0.
 */
u64 ketw_mem_cap(void)
{
	unsigned long kb = READ_ONCE(ketw_max_buffer_kb);

	return kb ? (u64)kb * SZ_1K : ketw_ram_bytes() / 4;
}

/**
 * ketw_mem_set_cap() - set max_buffer_kb
 * @val: KiB as text; 0 for a quarter of RAM.
 *
 * Sessions already there keep their buffers.
 *
 * Return: 0; -EINVAL for a bad number or more than the machine has.
 */
int ketw_mem_set_cap(const char *val)
{
	unsigned long kb;
	int err = kstrtoul(val, 0, &kb);

	if (err)
		return -EINVAL;
	if (kb > ketw_ram_bytes() / SZ_1K)
		return -EINVAL;		/* more than the machine has */
	WRITE_ONCE(ketw_max_buffer_kb, kb);
	return 0;
}

/**
 * ketw_mem_need() - what a ring of per-CPU size @size takes
 * @size: the per-CPU data area in bytes.
 *
 * For every possible CPU (a CPU that comes online later finds its buffer
 * there): the data area, its meta page, and the page pointer array; plus
 * a page for the session, the ring and the per-CPU bookkeeping.
 *
 * Return: bytes.
 */
u64 ketw_mem_need(u32 size)
{
	u64 ptrs = PAGE_ALIGN((u64)(size >> PAGE_SHIFT) * sizeof(void *));

	return ((u64)size + PAGE_SIZE + ptrs) * num_possible_cpus() +
	       PAGE_SIZE;
}

/*
 * What must stay free for the rest of the machine: a sixteenth of RAM,
 * at least 32 MiB.
 */
static u64 ketw_mem_margin(void)
{
	return max_t(u64, ketw_ram_bytes() / 16, SZ_32M);
}

/**
 * ketw_mem_charge() - reserve @need bytes before allocating them
 * @need: from ketw_mem_need().
 *
 * Return: 0; -ENOMEM if @need is more than the memory available now less
 * the margin (si_mem_available(): free memory and what reclaim can give
 * back); -ENOBUFS if it would take all sessions beyond ketw_mem_cap().
 */
int ketw_mem_charge(u64 need)
{
	u64 avail = (u64)si_mem_available() << PAGE_SHIFT;
	int err = 0;

	if (need + ketw_mem_margin() > avail)
		return -ENOMEM;
	spin_lock(&ketw_mem_lock);
	if (ketw_mem_used + need > ketw_mem_cap())
		err = -ENOBUFS;
	else
		ketw_mem_used += need;
	spin_unlock(&ketw_mem_lock);
	return err;
}

/**
 * ketw_mem_uncharge() - give back what ketw_mem_charge() reserved
 * @need: the same bytes.
 */
void ketw_mem_uncharge(u64 need)
{
	spin_lock(&ketw_mem_lock);
	if (!WARN_ON_ONCE(need > ketw_mem_used))
		ketw_mem_used -= need;
	spin_unlock(&ketw_mem_lock);
}

/**
 * ketw_mem_used_bytes() - what all sessions' buffers take now
 *
 * Return: bytes charged.
 */
u64 ketw_mem_used_bytes(void)
{
	u64 used;

	spin_lock(&ketw_mem_lock);
	used = ketw_mem_used;
	spin_unlock(&ketw_mem_lock);
	return used;
}

/**
 * ketw_mem_explain() - why ketw_mem_charge() refused @need bytes, in words
 * @buf:  where the text goes.
 * @len:  its size.
 * @need: what was asked for.
 * @err:  what ketw_mem_charge() (or the allocation) returned.
 *
 * Return: the length of the text.
 */
int ketw_mem_explain(char *buf, size_t len, u64 need, int err)
{
	u64 avail = (u64)si_mem_available() << PAGE_SHIFT;
	u64 margin = ketw_mem_margin();

	if (err == -ENOBUFS)
		return scnprintf(buf, len,
				 "its buffers need %llu KiB, over max_buffer_kb: %llu of %llu KiB in use",
				 need / SZ_1K, ketw_mem_used_bytes() / SZ_1K,
				 ketw_mem_cap() / SZ_1K);
	return scnprintf(buf, len,
			 "its buffers need %llu KiB (%u cpus), %llu KiB available (MemAvailable less %llu KiB kept free)",
			 need / SZ_1K, num_possible_cpus(),
			 (avail > margin ? avail - margin : 0) / SZ_1K,
			 margin / SZ_1K);
}
