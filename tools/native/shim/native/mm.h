/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native shim: pages, vmap, slab and user copies.
 *
 * Pages come from one memfd, the shim's "physical memory", mapped once
 * whole as its direct map (page_address()). vmap() maps the given pages
 * of that memfd again, contiguously, at a new address: a real alias, as
 * the kernel's vmalloc space is, so a data area is n scattered pages seen
 * in a row. Mapping a ring to user space is not covered: vm_insert_page()
 * fails.
 */
#ifndef _NATIVE_MM_H
#define _NATIVE_MM_H

#include "compiler.h"
#include <stdlib.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(1UL << PAGE_SHIFT)

#define GFP_KERNEL		0x1u
#define GFP_ATOMIC		0x2u
#define __GFP_ZERO		0x100u
#define __GFP_NOWARN		0x200u
#define __GFP_RETRY_MAYFAIL	0x400u

struct page {
	unsigned long pfn;	/* page number in the shim's memfd */
};

struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order);
void __free_page(struct page *page);
void *page_address(const struct page *page);

#define VM_MAP		0x4u
#define PAGE_KERNEL	0
void *vmap(struct page **pages, unsigned int count, unsigned long flags,
	   int prot);
void vunmap(const void *addr);

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size);
}

static inline void *kvmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size);
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(n, size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

/* User space is this process: a copy never faults. */
static inline unsigned long copy_to_user(void __user *to, const void *from,
					 unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

static inline unsigned long copy_from_user(void *to, const void __user *from,
					   unsigned long n)
{
	memcpy(to, from, n);
	return 0;
}

/* ---- mappings: types only; ketw_ring_mmap() is not covered ---- */

#define VM_READ		0x00000001UL
#define VM_WRITE	0x00000002UL
#define VM_SHARED	0x00000008UL
#define VM_MAYWRITE	0x00000020UL
#define VM_DONTCOPY	0x00020000UL
#define VM_DONTEXPAND	0x00040000UL
#define VM_DONTDUMP	0x04000000UL

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_pgoff;
	unsigned long vm_flags;
	void *vm_private_data;
};

int vm_insert_page(struct vm_area_struct *vma, unsigned long addr,
		   struct page *page);

struct file;
struct poll_table_struct;
struct wait_queue_head;
typedef void (*poll_queue_proc)(struct file *, struct wait_queue_head *,
				struct poll_table_struct *);
typedef struct poll_table_struct {
	poll_queue_proc _qproc;
	unsigned long _key;
} poll_table;

#endif /* _NATIVE_MM_H */
