/* SPDX-License-Identifier: GPL-2.0 */
/* Native shim: poll tables, for the types and poll_wait() ring.c calls. */
#ifndef _NATIVE_LINUX_POLL_H
#define _NATIVE_LINUX_POLL_H

#include <native/mm.h>
#include <native/sched.h>

static inline void poll_wait(struct file *filp, wait_queue_head_t *wq,
			     poll_table *p)
{
	if (p && p->_qproc && wq)
		p->_qproc(filp, wq, p);
}

#endif
