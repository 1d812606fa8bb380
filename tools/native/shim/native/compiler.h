/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native shim: the kernel's types, compiler macros, errors and printk, for
 * building module/ring.c unchanged in user space. Only what ring.c and the
 * headers it includes use; each definition follows the kernel's meaning.
 */
#ifndef _NATIVE_COMPILER_H
#define _NATIVE_COMPILER_H

#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <asm/types.h>		/* the system's __u8 ... __u64 */

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef unsigned int gfp_t;

/* Sparse annotations: nothing for the compiler. */
#define __user
#define __percpu
#define __rcu
#define __iomem
#define __force

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#define noinline	__attribute__((__noinline__))
/* The kernel's opt-out of CONFIG_INIT_STACK_ALL_ZERO's zeroing (no-op here). */
#define __uninitialized
#define __packed	__attribute__((__packed__))
#define __aligned(x)	__attribute__((__aligned__(x)))
#define __section(s)	__attribute__((__section__(s)))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define barrier()	__asm__ __volatile__("" ::: "memory")
/* An access racy by design (the kernel's tells KCSAN); plain here. */
#define data_race(expr)	({ expr; })

/* The kernel's static_assert(): the message is optional. */
#undef static_assert
#define static_assert(expr, ...) __native_static_assert(expr, ##__VA_ARGS__, #expr)
#define __native_static_assert(expr, msg, ...) _Static_assert(expr, msg)

#define BIT(nr)			(1UL << (nr))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define sizeof_field(t, m)	sizeof(((t *)0)->m)
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
/* As the kernel's: both sides of one type (a warning otherwise). */
#define min(a, b) ({					\
	__typeof__(a) __min_a = (a);			\
	__typeof__(b) __min_b = (b);			\
	(void)(&__min_a == &__min_b);			\
	__min_a < __min_b ? __min_a : __min_b; })
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define max_t(t, a, b)		max((t)(a), (t)(b))
#define max(a, b) ({					\
	__typeof__(a) __max_a = (a);			\
	__typeof__(b) __max_b = (b);			\
	(void)(&__max_a == &__max_b);			\
	__max_a > __max_b ? __max_a : __max_b; })

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* Kernel-only errno values. */
#define ERESTARTSYS	512

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }

/*
 * printk and WARN: printed to stderr and counted, so that a test can fail
 * on any (native_warnings()). Rate limiting is the shim's: the first few
 * messages are printed, all are counted.
 */
void native_printk(const char *level, const char *fmt, ...)
	__attribute__((__format__(__printf__, 2, 3)));
void native_warn(const char *file, int line, const char *cond);

#define pr_err(fmt, ...)		native_printk("err", fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)		native_printk("warn", fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)		native_printk("info", fmt, ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...)	native_printk("warn", fmt, ##__VA_ARGS__)
#define WARN_ON(cond) ({						\
	bool __warn_c = !!(cond);					\
	if (unlikely(__warn_c))						\
		native_warn(__FILE__, __LINE__, #cond);			\
	__warn_c; })
#define WARN_ON_ONCE(cond)	WARN_ON(cond)

#endif /* _NATIVE_COMPILER_H */
