/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Native shim: the kernel's memory model (READ_ONCE, barriers, cmpxchg,
 * atomic_t, local_t), in one of two flavours:
 *
 * C11 (NATIVE_C11=1; forced under ThreadSanitizer, default off x86-64)
 *   Every marked access is a GCC/C11 __atomic builtin with the ordering
 *   the kernel documents: READ_ONCE/WRITE_ONCE and local_t relaxed,
 *   smp_load_acquire/smp_store_release acquire/release, cmpxchg() fully
 *   ordered on success and relaxed on failure, cmpxchg_local() relaxed.
 *   Barriers are __atomic_thread_fence(); under TSan, which does not
 *   model fences, the kernel's x86-64 instructions, and a write barrier
 *   (smp_wmb, smp_mb) also makes the marked
 *   stores that immediately follow it release stores, until the next
 *   other marked operation: that is what "smp_wmb(); WRITE_ONCE(x)" means
 *   to a reader that loads x with acquire, and exact where ring.c uses it
 *   (rb_end: the barrier, then the two commit stores). smp_rmb() is a
 *   fence only: ring.c uses it to order its own position loads, never to
 *   acquire data a writer published.
 *
 * kernel x86 (NATIVE_C11=0, the default on x86-64 without TSan)
 *   The code the kernel compiles on x86-64: local_t operations are single
 *   instructions without LOCK (atomic against a signal handler on the
 *   same thread, as against an interrupt on the same CPU), cmpxchg()
 *   is LOCK CMPXCHG, cmpxchg_local() CMPXCHG, smp_wmb()/smp_rmb() and the
 *   acquire/release accessors compiler barriers, smp_mb() a locked add.
 *   The benchmark uses this one, so that ns/event is the kernel's.
 *
 * Every marked access first calls native_hook(): in a stress build
 * (NATIVE_INJECT=1) it may run a nested writer right there, as an
 * interrupt arriving before that instruction would (see native.h).
 */
#ifndef _NATIVE_ATOMIC_H
#define _NATIVE_ATOMIC_H

#include "compiler.h"

#if defined(__SANITIZE_THREAD__)
#define NATIVE_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NATIVE_TSAN 1
#endif
#endif
#ifndef NATIVE_TSAN
#define NATIVE_TSAN 0
#endif

#ifndef NATIVE_C11
#if NATIVE_TSAN || !defined(__x86_64__)
#define NATIVE_C11 1
#else
#define NATIVE_C11 0
#endif
#endif
#if NATIVE_TSAN && !NATIVE_C11
#error "ThreadSanitizer understands only the C11 flavour: NATIVE_C11=1"
#endif
#if !NATIVE_C11 && !defined(__x86_64__)
#error "the kernel flavour is x86-64's"
#endif

#ifndef NATIVE_INJECT
#define NATIVE_INJECT 0
#endif

#if NATIVE_INJECT
extern __thread int native_hook_countdown;
void native_hook_slow(void);
#define native_hook() do {					\
	if (unlikely(--native_hook_countdown <= 0))		\
		native_hook_slow();				\
} while (0)
#else
#define native_hook() do { } while (0)
#endif

#if NATIVE_TSAN
/* A write barrier's release, for the marked stores right after it. */
extern __thread int native_release_pending;
#define native_fence_w()	(native_release_pending = 1)
#define native_op()		(native_release_pending = 0)
#define native_store(p, v) do {						\
	if (native_release_pending)					\
		__atomic_store_n((p), (v), __ATOMIC_RELEASE);		\
	else								\
		__atomic_store_n((p), (v), __ATOMIC_RELAXED);		\
} while (0)
#elif NATIVE_C11
#define native_fence_w()	do { } while (0)
#define native_op()		do { } while (0)
#define native_store(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELAXED)
#endif

#if NATIVE_C11

/*
 * The fences themselves. ThreadSanitizer does not model them (and gcc
 * refuses them under -fsanitize=thread): on x86-64 give the hardware what
 * the kernel gives it, a compiler barrier for acquire and release, a
 * locked add for a full fence.
 */
#if NATIVE_TSAN && defined(__x86_64__)
#define native_fence_full() \
	__asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")
#define native_fence_rel()	barrier()
#define native_fence_acq()	barrier()
#else
#define native_fence_full()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define native_fence_rel()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define native_fence_acq()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#endif

#define READ_ONCE(x) ({							\
	native_hook();							\
	native_op();							\
	__atomic_load_n(&(x), __ATOMIC_RELAXED); })
#define WRITE_ONCE(x, val) do {						\
	native_hook();							\
	native_store(&(x), (val));					\
} while (0)
#define smp_load_acquire(p) ({						\
	native_hook();							\
	native_op();							\
	__atomic_load_n((p), __ATOMIC_ACQUIRE); })
#define smp_store_release(p, v) do {					\
	native_hook();							\
	native_op();							\
	__atomic_store_n((p), (v), __ATOMIC_RELEASE);			\
} while (0)
#define smp_wmb() do {							\
	native_fence_rel();						\
	native_fence_w();						\
} while (0)
#define smp_rmb()	native_fence_acq()
#define smp_mb() do {							\
	native_fence_full();						\
	native_fence_w();						\
} while (0)

/* Fully ordered on success; no ordering on failure (as the kernel says). */
#define cmpxchg(p, o, n) ({						\
	__typeof__(*(p)) __cx_old = (o);				\
	native_hook();							\
	native_op();							\
	__atomic_compare_exchange_n((p), &__cx_old, (n), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); \
	__cx_old; })
/* Atomic against this CPU only: no ordering. */
#define cmpxchg_local(p, o, n) ({					\
	__typeof__(*(p)) __cx_old = (o);				\
	native_hook();							\
	native_op();							\
	__atomic_compare_exchange_n((p), &__cx_old, (n), false,	\
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
	__cx_old; })

typedef struct { int counter; } atomic_t;
typedef struct { long a; } local_t;

#define native_rmw(p, op, v, mo) ({					\
	native_hook();							\
	native_op();							\
	__atomic_##op((p), (v), (mo)); })

static __always_inline int atomic_read(const atomic_t *v)
{
	native_hook();
	native_op();
	return __atomic_load_n(&v->counter, __ATOMIC_RELAXED);
}

static __always_inline void atomic_set(atomic_t *v, int i)
{
	native_hook();
	native_store(&v->counter, i);
}

static __always_inline void atomic_inc(atomic_t *v)
{
	native_rmw(&v->counter, fetch_add, 1, __ATOMIC_RELAXED);
}

static __always_inline void atomic_dec(atomic_t *v)
{
	native_rmw(&v->counter, fetch_sub, 1, __ATOMIC_RELAXED);
}

static __always_inline int atomic_inc_return(atomic_t *v)
{
	return native_rmw(&v->counter, add_fetch, 1, __ATOMIC_SEQ_CST);
}

static __always_inline int atomic_xchg(atomic_t *v, int n)
{
	return native_rmw(&v->counter, exchange_n, n, __ATOMIC_SEQ_CST);
}

static __always_inline int atomic_cmpxchg(atomic_t *v, int o, int n)
{
	return cmpxchg(&v->counter, o, n);
}

#define smp_mb__after_atomic()	smp_mb()

static __always_inline long local_read(local_t *l)
{
	native_hook();
	native_op();
	return __atomic_load_n(&l->a, __ATOMIC_RELAXED);
}

static __always_inline void local_set(local_t *l, long i)
{
	native_hook();
	native_store(&l->a, i);
}

static __always_inline void local_inc(local_t *l)
{
	native_rmw(&l->a, fetch_add, 1, __ATOMIC_RELAXED);
}

static __always_inline void local_dec(local_t *l)
{
	native_rmw(&l->a, fetch_sub, 1, __ATOMIC_RELAXED);
}

static __always_inline void local_add(long i, local_t *l)
{
	native_rmw(&l->a, fetch_add, i, __ATOMIC_RELAXED);
}

static __always_inline long local_cmpxchg(local_t *l, long o, long n)
{
	return cmpxchg_local(&l->a, o, n);
}

#else /* kernel x86-64 */

#define READ_ONCE(x) ({							\
	native_hook();							\
	*(const volatile __typeof__(x) *)&(x); })
#define WRITE_ONCE(x, val) do {						\
	native_hook();							\
	*(volatile __typeof__(x) *)&(x) = (val);			\
} while (0)
/* x86 is TSO: acquire and release need the compiler's order only. */
#define smp_load_acquire(p) ({						\
	__typeof__(*(p)) __la = READ_ONCE(*(p));			\
	barrier();							\
	__la; })
#define smp_store_release(p, v) do {					\
	barrier();							\
	WRITE_ONCE(*(p), (v));						\
} while (0)
#define smp_wmb()	barrier()
#define smp_rmb()	barrier()
#define smp_mb() \
	__asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")

#define cmpxchg(p, o, n) ({						\
	__typeof__(*(p)) __cx_old = (o);				\
	native_hook();							\
	__atomic_compare_exchange_n((p), &__cx_old, (n), false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	__cx_old; })
/* CMPXCHG without LOCK: atomic against this CPU's interrupts only. */
#define cmpxchg_local(p, o, n) ({					\
	__typeof__(*(p)) __cx_ret;					\
	__typeof__(*(p)) __cx_new = (n);				\
	native_hook();							\
	__asm__ __volatile__("cmpxchg %2,%1"				\
			     : "=a"(__cx_ret), "+m"(*(p))		\
			     : "r"(__cx_new), "0"((__typeof__(*(p)))(o)) \
			     : "memory", "cc");				\
	__cx_ret; })

typedef struct { int counter; } atomic_t;
typedef struct { long a; } local_t;

static __always_inline int atomic_read(const atomic_t *v)
{
	return READ_ONCE(v->counter);
}

static __always_inline void atomic_set(atomic_t *v, int i)
{
	WRITE_ONCE(v->counter, i);
}

static __always_inline void atomic_inc(atomic_t *v)
{
	native_hook();
	__asm__ __volatile__("lock; incl %0" : "+m"(v->counter) :: "memory", "cc");
}

static __always_inline void atomic_dec(atomic_t *v)
{
	native_hook();
	__asm__ __volatile__("lock; decl %0" : "+m"(v->counter) :: "memory", "cc");
}

static __always_inline int atomic_inc_return(atomic_t *v)
{
	native_hook();
	return __atomic_add_fetch(&v->counter, 1, __ATOMIC_SEQ_CST);
}

static __always_inline int atomic_xchg(atomic_t *v, int n)
{
	native_hook();
	return __atomic_exchange_n(&v->counter, n, __ATOMIC_SEQ_CST);
}

static __always_inline int atomic_cmpxchg(atomic_t *v, int o, int n)
{
	return cmpxchg(&v->counter, o, n);
}

/* x86's locked instructions are full barriers. */
#define smp_mb__after_atomic()	barrier()

static __always_inline long local_read(local_t *l)
{
	return READ_ONCE(l->a);
}

static __always_inline void local_set(local_t *l, long i)
{
	WRITE_ONCE(l->a, i);
}

static __always_inline void local_inc(local_t *l)
{
	native_hook();
	__asm__ __volatile__("incq %0" : "+m"(l->a));
}

static __always_inline void local_dec(local_t *l)
{
	native_hook();
	__asm__ __volatile__("decq %0" : "+m"(l->a));
}

static __always_inline void local_add(long i, local_t *l)
{
	native_hook();
	__asm__ __volatile__("addq %1,%0" : "+m"(l->a) : "ir"(i));
}

static __always_inline long local_cmpxchg(local_t *l, long o, long n)
{
	return cmpxchg_local(&l->a, o, n);
}

#endif /* NATIVE_C11 */

#endif /* _NATIVE_ATOMIC_H */
