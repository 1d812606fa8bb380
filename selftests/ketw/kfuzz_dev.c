// SPDX-License-Identifier: GPL-2.0
/*
 * kfuzz_dev: fuzz the character devices /dev/ketw and /dev/ketw_user.
 *
 * The ioctls, their argument structs (field by field) and the header's
 * limits come from tables generated from uapi/linux/ketw.h
 * (ioctl_table.awk), so a new ioctl or field is fuzzed without an edit
 * here. Four tests, in order:
 *
 *   contracts           every ioctl of the table: extensible-struct
 *                       size games, truncated and bad pointers, and the
 *                       commands next to it (other size, direction,
 *                       number, type), each with the errno the ABI
 *                       promises
 *   limits              session attributes at and around their bounds,
 *                       KETW_MAX_SESSIONS, payload and read() lengths
 *   fuzz_random         KETW_FUZZ_THREADS threads share files, mappings
 *                       and sessions for KETW_FUZZ_SECONDS: ioctls with
 *                       mostly-valid and hostile arguments, read() and
 *                       poll() of odd shapes, mmap/munmap/mprotect/
 *                       mremap/madvise, random values written into
 *                       mapped meta pages, close/dup/fork, epoll, the
 *                       sample and stress providers, unprivileged
 *                       /dev/ketw_user users, and races set up on
 *                       purpose (a read() or poll() against a DESTROY or
 *                       ATTACH on the same file, two ATTACHes on one
 *                       file, a hostile oldest/consumed under read(),
 *                       epoll on a file that changes session, SIGKILL of
 *                       a process asleep in read/poll/epoll/FLUSH)
 *   cleanup_and_record  every session can be destroyed, no provider is
 *                       left behind, and a new session still records
 *                       and reads back the sample provider's events
 *
 * The kernel's own reports (Oops, WARNING, soft lockup, ...) fail the run
 * in scripts/run-vm.sh; fuzz_random also watches /dev/kmsg itself and
 * then prints the last calls of every thread, the reproduction, as it
 * does when a call never comes back (watchdog). See kfuzz.h for the
 * environment (seed, duration, threads, KETW_FUZZ_AVOID); this file's
 * avoidable patterns are:
 *   fdrace  read()/poll()/mmap() against CREATE/ATTACH/DESTROY on the
 *           same open file, and ATTACHes racing on one file
 *   meta    hostile oldest/consumed values in mapped meta pages
 *   epoll   epoll on files whose session changes or goes away
 *   stress  runs of ketw_stress (writers in every context, NMI included)
 * and its own knobs: KETW_FUZZ_ITERS (calls per thread at most, 0: no
 * limit) and KETW_FUZZ_KEEPER=0 (no keeper session, see start_keeper()).
 */
#include "ketw_test.h"
#include <dirent.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/sysinfo.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "kfuzz.h"
#include "ketw_ioctl_table.h"
#include "ketw_stress.h"
#include "kselftest_harness.h"

#define SECONDS_DEFAULT	15	/* random phase under make check */
#define NR_SLOTS	10	/* /dev/ketw files the threads share */
#define NR_USLOTS	3	/* /dev/ketw_user files opened by root */
#define NR_EPOLL	2
#define NR_MAPS		40
#define SCRATCH_LEN	(1u << 20)
#define USER_GID	4242	/* user_gid while unprivileged children run */
#define NOBODY		65534
#define MAX_SESSIONS	64	/* KETW_MAX_SESSIONS (module/ketw_internal.h) */
#define MAX_NAME	"kfzmax"	/* limits: kfzmax0 .. kfzmax63 */
#define FINAL_NAME	"kfz_final"
#define KEEPER_NAME	"kfz_keep"	/* see start_keeper() */
#define PARAM(mod, p)	"/sys/module/" mod "/parameters/" p
#define PARAMS_DIR	"/sys/module/ketw/parameters"
#define PARAMS_SAVED	"/tmp/kfuzz_dev.params"	/* for cleanup, if fuzz_random dies */
#define MAX_PARAMS	16

/* Exactly KETW_NAME_MAX - 1 characters: the longest valid name. */
#define LONG_NAME	"kfz.31-characters-long-name_-_x"
_Static_assert(sizeof(LONG_NAME) == KETW_NAME_MAX, "LONG_NAME");

/*
 * Every valid session name the fuzzer uses is one of these (hostile
 * names are made invalid on purpose), so cleanup knows them all.
 */
static const char *const session_names[] = {
	"kfz0", "kfz1", "kfz2", "kfz3", LONG_NAME,
};
#define NR_SESSION_NAMES (sizeof(session_names) / sizeof(session_names[0]))

/* User providers are registered as kfz-userN and known as user.kfz-userN. */
static const char *const provider_names[] = {
	KETW_SAMPLE_NAME, KETW_STRESS_NAME, "kfz-user0", "kfz-user1",
	"user.kfz-user0", "user.kfz-user1", "",
};
#define NR_PROVIDER_NAMES (sizeof(provider_names) / sizeof(provider_names[0]))

static const uint8_t stress_guid[KETW_GUID_SIZE] = KETW_STRESS_GUID_BYTES;
static const uint8_t zero_guid[KETW_GUID_SIZE];

/* ---- shared state ------------------------------------------------------- */

enum { MK_META, MK_DATA };

/* A mapping some thread made; entries are split as parts go away. */
struct fzmap {
	unsigned char *addr;
	size_t len;
	size_t full_len;	/* the data area's size when mapped whole */
	int prot;
	int kind;
	int zapped;		/* MADV_DONTNEED: touching it may SIGBUS */
	int pair;		/* meta and data mapped together share it */
	int policy;		/* the meta page's policy when mapped */
	int used;
};

/* A writable module parameter of ketw, and its value before the fuzzing. */
struct fzparam {
	char name[48];
	char orig[48];
	int fd;
};

/* Per thread: the argument and scratch areas, with guard pages. */
struct fzt {
	struct kfuzz_area arg;		/* two pages */
	struct kfuzz_area scratch;	/* SCRATCH_LEN */
};

static struct fz {
	struct kfuzz k;
	_Atomic int slot[NR_SLOTS];
	_Atomic int uslot[NR_USLOTS];
	_Atomic int epfd[NR_EPOLL];
	pthread_mutex_t maps_lock;
	struct fzmap maps[NR_MAPS];
	int next_pair;
	unsigned int nr_cpus;
	size_t page;
	int emit_fd, warn_fd, stress_fd;
	struct fzparam params[MAX_PARAMS];	/* ketw's writable ones */
	unsigned int nr_params;
	_Atomic int stress_busy;
	int avoid_fdrace, avoid_meta, avoid_epoll, avoid_stress;
	pthread_rwlock_t fdlock[NR_SLOTS];	/* avoid_fdrace only */
	const struct kfuzz_struct *meta_st;
	int in_child;
	_Atomic unsigned long calls[KFUZZ_NR_IOCTLS], oks[KFUZZ_NR_IOCTLS];
} F;

#define K (&F.k)

static void *mapped_addr(struct kfuzz_thread *t);

/* Run a system call with its trail entry; keeps errno. */
#define CALL(t, expr, ...) ({						\
	long __r;							\
	int __e;							\
	kfuzz_begin(K, t, __VA_ARGS__);					\
	errno = 0;							\
	__r = (long)(expr);						\
	__e = errno;							\
	kfuzz_end(K, t, __r, __e);					\
	errno = __e;							\
	__r;								\
})

static struct kfuzz_rng *R(struct kfuzz_thread *t)
{
	return &t->rng;
}

static struct fzt *Z(struct kfuzz_thread *t)
{
	return t->priv;
}

static const struct kfuzz_struct *find_struct(const char *name)
{
	unsigned int i;

	for (i = 0; i < KFUZZ_NR_STRUCTS; i++)
		if (!strcmp(kfuzz_structs[i].name, name))
			return &kfuzz_structs[i];
	return NULL;
}

static const struct kfuzz_ioctl *find_ioctl(unsigned long cmd)
{
	unsigned int i;

	for (i = 0; i < KFUZZ_NR_IOCTLS; i++)
		if (kfuzz_ioctls[i].cmd == cmd)
			return &kfuzz_ioctls[i];
	return NULL;
}

static int is_user_cmd(unsigned long cmd)
{
	return cmd == KETW_IOC_USER_REGISTER || cmd == KETW_IOC_USER_WRITE ||
	       cmd == KETW_IOC_USER_WRITEV || cmd == KETW_IOC_USER_CONFLICT;
}

/* Commands that change which session a file is attached to. */
static int is_attach_cmd(unsigned long cmd)
{
	return cmd == KETW_IOC_CREATE || cmd == KETW_IOC_ATTACH ||
	       cmd == KETW_IOC_DESTROY;
}

static void put_uint(unsigned char *p, size_t len, uint64_t v)
{
	switch (len) {
	case 1: *p = v; break;
	case 2: { uint16_t x = v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = v; memcpy(p, &x, 4); break; }
	case 8: memcpy(p, &v, 8); break;
	default: memset(p, (int)v, len);
	}
}

/* ---- names, GUIDs and field values -------------------------------------- */

static const char *pick_session(struct kfuzz_thread *t)
{
	/* The first four most: requests meet on the same sessions. */
	if (kfuzz_pct(R(t), 85))
		return session_names[kfuzz_below(R(t), 4)];
	return KFUZZ_PICK(R(t), session_names);
}

static void pick_guid(struct kfuzz_thread *t, uint8_t *g)
{
	switch (kfuzz_below(R(t), 6)) {
	case 0: memcpy(g, sample_guid, KETW_GUID_SIZE); break;
	case 1: memcpy(g, stress_guid, KETW_GUID_SIZE); break;
	case 2: memcpy(g, zero_guid, KETW_GUID_SIZE); break;
	case 3: {
		uint64_t x = kfuzz_rand(R(t));

		memcpy(g, &x, 8);
		x = kfuzz_rand(R(t));
		memcpy(g + 8, &x, 8);
		break;
	}
	default:	/* the user providers' */
		memcpy(g, "kfzuser-guid-00", KETW_GUID_SIZE);
		g[15] = '0' + kfuzz_below(R(t), 3);
	}
}

/* An invalid name of every kind: never one the ABI takes. */
static void hostile_name(struct kfuzz_thread *t, char *n)
{
	static const char bad[] = "/ \n\t\xff:*?\\";
	size_t len;

	memset(n, 0, KETW_NAME_MAX);
	switch (kfuzz_below(R(t), 6)) {
	case 0:		/* no NUL within KETW_NAME_MAX */
		memset(n, 'a' + kfuzz_below(R(t), 26), KETW_NAME_MAX);
		break;
	case 1:		/* empty, with bytes after the NUL */
		memcpy(n + 1, "kfz0", 4);
		break;
	case 2:		/* the longest name with a bad character in it */
		memcpy(n, LONG_NAME, KETW_NAME_MAX);
		n[kfuzz_below(R(t), KETW_NAME_MAX - 1)] =
			bad[kfuzz_below(R(t), sizeof(bad) - 1)];
		break;
	case 3:		/* names a file system would take for something else */
		memcpy(n, kfuzz_pct(R(t), 50) ? "." : "..", 2);
		break;
	default:	/* random bytes, at least one bad character */
		len = 1 + kfuzz_below(R(t), KETW_NAME_MAX);
		for (size_t i = 0; i < len; i++)
			n[i] = kfuzz_rand(R(t));
		n[kfuzz_below(R(t), len < KETW_NAME_MAX ? len : 1)] =
			bad[kfuzz_below(R(t), sizeof(bad) - 1)];
		if (len < KETW_NAME_MAX && !n[0])
			n[0] = '/';
	}
}

/* A provider's name field (names and user providers) or a session's? */
static int is_provider_field(const struct kfuzz_struct *st,
			     const struct kfuzz_field *f)
{
	return strstr(f->name, "provider") || strstr(st->name, "provider");
}

static void fill_name(struct kfuzz_thread *t, const struct kfuzz_struct *st,
		      const struct kfuzz_field *f, unsigned char *p)
{
	const char *name;

	memset(p, 0, f->len);
	if (is_provider_field(st, f))
		name = KFUZZ_PICK(R(t), provider_names);
	else
		name = pick_session(t);
	memcpy(p, name, strnlen(name, f->len));
}

/*
 * A plausible value for a field, by its name; anything unknown (a new
 * field) is 0, the default. Values that would take much memory are
 * avoided: a guest has 1 GiB.
 */
static uint64_t field_hint(struct kfuzz_thread *t, const struct kfuzz_field *f)
{
	static const uint32_t kbs[] = { 0, 4, 5, 8, 16, 64, 256, 1024 };
	static const uint32_t datas[] = { 0, 0, 1, 16, 256, 1000, 4096 };
	static const uint32_t lens[] = { 0, 1, 8, 64, 255, 256, 257, 4096,
					 KETW_MAX_DATA_SIZE };
	const char *n = strrchr(f->name, '.') ? strrchr(f->name, '.') + 1 : f->name;
	struct kfuzz_rng *r = R(t);

	if (!strcmp(n, "buffer_kb"))
		return KFUZZ_PICK(r, kbs);
	if (!strcmp(n, "policy") || !strcmp(n, "clock"))
		return kfuzz_below(r, 4);
	if (!strcmp(n, "level"))
		return kfuzz_below(r, 6);
	if (!strcmp(n, "watermark"))
		return kfuzz_below(r, 101);
	if (!strcmp(n, "max_data_size"))
		return KFUZZ_PICK(r, datas);
	if (!strcmp(n, "cpu"))
		return kfuzz_below(r, F.nr_cpus + 1);
	if (!strcmp(n, "capacity"))
		return kfuzz_below(r, 64);
	if (!strcmp(n, "buf_len"))
		return kfuzz_pct(r, 80) ? SCRATCH_LEN : kfuzz_below(r, SCRATCH_LEN);
	if (!strcmp(n, "len"))
		return KFUZZ_PICK(r, lens);
	if (!strcmp(n, "flags"))
		return kfuzz_pct(r, 70) ? 0 : 1;
	if (!strcmp(n, "id") || !strcmp(n, "type") || !strcmp(n, "version"))
		return kfuzz_below(r, 16);
	if (!strcmp(n, "keyword") || !strcmp(n, "match_any") ||
	    !strcmp(n, "match_all"))
		return kfuzz_pct(r, 60) ? 0 : kfuzz_below(r, 8);
	return 0;
}

/* ---- building an ioctl argument ----------------------------------------- */

enum { PLACE_OK, PLACE_UNALIGNED, PLACE_STRADDLE, PLACE_RO, PLACE_BAD,
       PLACE_MAPPED };

struct built {
	void *arg;
	int place;
	uint32_t usize;		/* what the size field says */
	int tail_nonzero;	/* bytes past sizeof are not all zero */
	int size_game;		/* the size field was played with */
	int mutated;		/* some other field was */
};

static uint32_t size_game(struct kfuzz_thread *t, const struct kfuzz_struct *st)
{
	const uint32_t pg = F.page;
	const uint32_t v0 = st->ver0, sz = st->size;
	const uint32_t sizes[] = {
		0, 1, 4, v0 - 8, v0 - 1, v0, v0 + 4, sz - 8, sz - 1, sz,
		sz + 1, sz + 8, sz + 64, pg - 1, pg, pg + 1, 1u << 16,
		0xffffffffu,
	};

	return KFUZZ_PICK(R(t), sizes);
}

static void mutate_field(struct kfuzz_thread *t, const struct kfuzz_struct *st,
			 const struct kfuzz_field *f, unsigned char *img,
			 struct built *b)
{
	struct fzt *z = Z(t);
	unsigned char *p = img + f->off;
	uint64_t v;

	switch (f->kind) {
	case KFUZZ_F_SIZE:
		b->usize = size_game(t, st);
		b->size_game = 1;
		put_uint(p, f->len, b->usize);
		return;
	case KFUZZ_F_NAME:
		hostile_name(t, (char *)p);
		break;
	case KFUZZ_F_UPTR:
		switch (kfuzz_below(R(t), 5)) {
		case 0:
			v = (uintptr_t)kfuzz_bad_addr(R(t));
			break;
		case 4:		/* ketw's own pages, as this process maps them */
			v = (uintptr_t)mapped_addr(t);
			break;
		case 1:		/* runs into the guard page */
			v = (uintptr_t)(kfuzz_area_end(&z->scratch) -
					1 - kfuzz_below(R(t), 256));
			break;
		case 2:
			v = (uintptr_t)z->scratch.ro;
			break;
		default:
			v = (uintptr_t)z->scratch.base + kfuzz_below(R(t), 8);
		}
		put_uint(p, 8, v);
		break;
	case KFUZZ_F_INT:
		put_uint(p, f->len, kfuzz_interesting(R(t), kfuzz_consts,
						      KFUZZ_NR_CONSTS));
		break;
	default:
		for (size_t i = 0; i < f->len; i++)
			p[i] = kfuzz_pct(R(t), 50) ? 0 : kfuzz_rand(R(t));
	}
	b->mutated = 1;
}

/*
 * Build @st in @t's argument area: every field valid-looking, then
 * @nmut mutations, then placed normally or where a copy must fail.
 */
static void build_arg(struct kfuzz_thread *t, const struct kfuzz_struct *st,
		      unsigned int nmut, int place, struct built *b)
{
	struct fzt *z = Z(t);
	unsigned char *img, *end = kfuzz_area_end(&z->arg);
	size_t room, k, i;
	const struct kfuzz_field *f;

	memset(b, 0, sizeof(*b));
	memset(z->arg.base, 0, z->arg.len);
	b->place = place;
	img = z->arg.base + (place == PLACE_UNALIGNED ? 1 + kfuzz_below(R(t), 7) : 0);
	b->arg = img;
	if (!st)
		goto place;
	b->usize = st->size;
	for (i = 0; i < st->nr_fields; i++) {
		f = &st->fields[i];
		switch (f->kind) {
		case KFUZZ_F_SIZE:
			put_uint(img + f->off, f->len, st->size);
			break;
		case KFUZZ_F_NAME:
			fill_name(t, st, f, img + f->off);
			break;
		case KFUZZ_F_UPTR:
			put_uint(img + f->off, 8, (uintptr_t)z->scratch.base);
			break;
		case KFUZZ_F_INT:
			put_uint(img + f->off, f->len, field_hint(t, f));
			break;
		default:
			if (strstr(f->name, "guid") && f->len == KETW_GUID_SIZE)
				pick_guid(t, img + f->off);
		}
	}
	while (nmut--)
		mutate_field(t, st, &st->fields[kfuzz_below(R(t), st->nr_fields)],
			     img, b);
	/* Memory: no valid buffer over 4 MiB per CPU (see field_hint()). */
	for (i = 0; i < st->nr_fields; i++) {
		uint32_t kb;

		f = &st->fields[i];
		if (strcmp(f->name, "buffer_kb") || f->len != 4)
			continue;
		memcpy(&kb, img + f->off, 4);
		if (kb > 4096 && kb <= KETW_BUFFER_KB_MAX)
			put_uint(img + f->off, 4, kfuzz_pct(R(t), 50) ?
				 KETW_BUFFER_KB_MAX + 1 : 4096);
	}
	/* A longer struct's tail: zero, or a byte set somewhere in it. */
	room = z->arg.len - (img - z->arg.base);
	if (st->sized && b->usize > st->size && kfuzz_pct(R(t), 50)) {
		k = (b->usize < room ? b->usize : room) - st->size;
		if (k) {
			img[st->size + kfuzz_below(R(t), k)] = 1 + kfuzz_below(R(t), 255);
			b->tail_nonzero = 1;
		}
	}
place:
	switch (place) {
	case PLACE_STRADDLE:
		/* Keep 1 .. size-1 bytes before the guard page. */
		k = st && st->size > 1 ? 1 + kfuzz_below(R(t), st->size - 1) : 1;
		memmove(end - k, img, k);
		b->arg = end - k;
		break;
	case PLACE_RO:
		mprotect(z->arg.ro, z->arg.page, PROT_READ | PROT_WRITE);
		memcpy(z->arg.ro, img, z->arg.page);
		mprotect(z->arg.ro, z->arg.page, PROT_READ);
		b->arg = z->arg.ro;
		break;
	case PLACE_BAD:
		b->arg = kfuzz_bad_addr(R(t));
		break;
	case PLACE_MAPPED:	/* whatever a meta page or data area holds */
		b->arg = mapped_addr(t);
		break;
	}
}

/* The name a struct's first name field holds, for the trail. */
static const char *arg_name(const struct kfuzz_struct *st, const struct built *b,
			    char *buf)
{
	size_t i;

	buf[0] = 0;
	if (!st || (b->place != PLACE_OK && b->place != PLACE_UNALIGNED))
		return buf;
	for (i = 0; i < st->nr_fields; i++) {
		if (st->fields[i].kind != KFUZZ_F_NAME)
			continue;
		snprintf(buf, 40, " %s='%.*s'", st->fields[i].name, KETW_NAME_MAX,
			 (char *)b->arg + st->fields[i].off);
		for (char *c = buf; *c; c++)
			if (*c < 32 || *c > 126)
				*c = '?';
		break;
	}
	return buf;
}

/*
 * The extensible-struct contract (uapi header): a size below the oldest
 * version is EINVAL, above a page E2BIG, and a longer struct's nonzero
 * tail E2BIG, before anything else is looked at. Only for an argument
 * that is readable as far as it claims. ENOTTY and EBADF are allowed:
 * another thread may have put another file under the number.
 */
static void check_size_contract(struct kfuzz_thread *t,
				const struct kfuzz_ioctl *io,
				const struct built *b, long ret, int err)
{
	const struct kfuzz_struct *st = io->st;
	int want = 0;

	if (!st || !st->sized ||
	    (b->place != PLACE_OK && b->place != PLACE_UNALIGNED))
		return;
	if (b->usize < st->ver0)
		want = EINVAL;
	else if (b->usize > F.page)
		want = E2BIG;
	else if (b->usize > st->size && b->tail_nonzero)
		want = E2BIG;
	if (!want) {
		if (ret < 0 && err == E2BIG && !b->mutated)
			kfuzz_fail(K, t, "%s with size %u (a zero tail) failed E2BIG",
				   io->name, b->usize);
		return;
	}
	if (ret >= 0 || (err != want && err != ENOTTY && err != EBADF))
		kfuzz_fail(K, t, "%s with size %u%s: %ld %s, want %s", io->name,
			   b->usize, b->tail_nonzero ? " and a nonzero tail" : "",
			   ret, ret < 0 ? strerrorname_np(err) : "",
			   strerrorname_np(want));
}

/* ---- files -------------------------------------------------------------- */

static int slot_fd(struct kfuzz_thread *t, int *idx)
{
	unsigned int i, n = kfuzz_below(R(t), NR_SLOTS);
	int fd;

	for (i = 0; i < NR_SLOTS; i++) {
		fd = atomic_load(&F.slot[(n + i) % NR_SLOTS]);
		if (fd >= 0) {
			*idx = (n + i) % NR_SLOTS;
			return fd;
		}
	}
	*idx = -1;
	return -1;
}

static int uslot_fd(struct kfuzz_thread *t)
{
	return atomic_load(&F.uslot[kfuzz_below(R(t), NR_USLOTS)]);
}

/* avoid_fdrace: changing a file's session excludes using it. */
static void fd_lock(int idx, int write)
{
	if (!F.avoid_fdrace || idx < 0)
		return;
	if (write)
		pthread_rwlock_wrlock(&F.fdlock[idx]);
	else
		pthread_rwlock_rdlock(&F.fdlock[idx]);
}

static void fd_unlock(int idx)
{
	if (F.avoid_fdrace && idx >= 0)
		pthread_rwlock_unlock(&F.fdlock[idx]);
}

static void op_open(struct kfuzz_thread *t)
{
	static const int extra[] = { 0, 0, O_NONBLOCK, O_NONBLOCK, O_RDONLY,
				     O_PATH };
	int e = KFUZZ_PICK(R(t), extra);
	int fd, i = kfuzz_below(R(t), NR_SLOTS), none = -1;

	fd = CALL(t, open(KETW_DEVICE, (e == O_RDONLY || e == O_PATH ? e : O_RDWR | e) |
			  O_CLOEXEC), "open(%s, %#x)", KETW_DEVICE, e);
	if (fd < 0)
		return;
	if (!atomic_compare_exchange_strong(&F.slot[i], &none, fd))
		close(fd);
}

static void op_close(struct kfuzz_thread *t)
{
	int i = kfuzz_below(R(t), NR_SLOTS), fd;

	fd = atomic_exchange(&F.slot[i], -1);
	if (fd >= 0)
		CALL(t, close(fd), "close(%d)", fd);
}

static void op_dup(struct kfuzz_thread *t)
{
	int idx, fd = slot_fd(t, &idx), nfd, j = kfuzz_below(R(t), NR_SLOTS);
	int none = -1, other;

	if (fd < 0 || F.avoid_fdrace)
		return;
	other = atomic_load(&F.slot[j]);
	if (other >= 0 && other != fd && kfuzz_pct(R(t), 50)) {
		/* The number stays other's slot's; the file becomes fd's. */
		CALL(t, dup3(fd, other, O_CLOEXEC), "dup3(%d, %d)", fd, other);
		return;
	}
	nfd = CALL(t, fcntl(fd, F_DUPFD_CLOEXEC, 0), "dup(%d)", fd);
	if (nfd >= 0 && !atomic_compare_exchange_strong(&F.slot[j], &none, nfd))
		close(nfd);
}

static void op_fcntl(struct kfuzz_thread *t)
{
	int idx, fd = slot_fd(t, &idx), fl;

	if (fd < 0)
		return;
	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return;
	CALL(t, fcntl(fd, F_SETFL, fl ^ O_NONBLOCK), "fcntl(%d, SETFL, %#x)",
	     fd, fl ^ O_NONBLOCK);
}

static void op_uopen(struct kfuzz_thread *t)
{
	int i = kfuzz_below(R(t), NR_USLOTS), fd, none = -1;

	if (kfuzz_pct(R(t), 40)) {
		fd = atomic_exchange(&F.uslot[i], -1);
		if (fd >= 0)
			CALL(t, close(fd), "close(user %d)", fd);
		return;
	}
	fd = CALL(t, open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC), "open(%s)",
		  KETW_USER_DEVICE);
	if (fd >= 0 && !atomic_compare_exchange_strong(&F.uslot[i], &none, fd))
		close(fd);
}

/* ---- ioctls ------------------------------------------------------------- */

static long do_ioctl(struct kfuzz_thread *t, int fd, int idx,
		     const struct kfuzz_ioctl *io, struct built *b)
{
	static const char *const places[] = { "", " unaligned", " straddling",
					      " read-only", " bad", " in a ketw mapping" };
	unsigned int n = io - kfuzz_ioctls;
	char name[48];
	long ret;
	int err;

	fd_lock(idx, is_attach_cmd(io->cmd));
	ret = CALL(t, ioctl(fd, io->cmd, b->arg), "ioctl(%d, %s, %p%s size=%u%s%s)",
		   fd, io->name, b->arg, places[b->place], b->usize,
		   b->tail_nonzero ? "+tail" : "", arg_name(io->st, b, name));
	err = errno;
	fd_unlock(idx);
	if (!F.in_child) {
		atomic_fetch_add(&F.calls[n], 1);
		if (ret >= 0)
			atomic_fetch_add(&F.oks[n], 1);
	}
	check_size_contract(t, io, b, ret, err);
	errno = err;
	return ret;
}

/* Any ioctl of the table, on any file, with 0-3 hostile fields. */
static void op_ioctl(struct kfuzz_thread *t)
{
	const struct kfuzz_ioctl *io = &kfuzz_ioctls[kfuzz_below(R(t), KFUZZ_NR_IOCTLS)];
	static const int places[] = { PLACE_OK, PLACE_OK, PLACE_OK, PLACE_OK,
				      PLACE_OK, PLACE_UNALIGNED, PLACE_STRADDLE,
				      PLACE_RO, PLACE_BAD, PLACE_MAPPED };
	struct built b;
	int idx = -1, fd;

	if (kfuzz_pct(R(t), 15)) {
		fd = uslot_fd(t);
		/* Mostly what this node is for. */
		if (kfuzz_pct(R(t), 70))
			io = find_ioctl(kfuzz_pct(R(t), 40) ? KETW_IOC_USER_REGISTER :
					kfuzz_pct(R(t), 50) ? KETW_IOC_USER_WRITE :
					KETW_IOC_USER_WRITEV);
	} else {
		fd = slot_fd(t, &idx);
	}
	if (fd < 0)
		return;
	build_arg(t, io->st, kfuzz_below(R(t), 4), KFUZZ_PICK(R(t), places), &b);
	do_ioctl(t, fd, idx, io, &b);
}

/*
 * A command next to a real one: another direction, size, number or
 * type. Never one of the table's, so always ENOTTY.
 */
static unsigned long near_cmd(struct kfuzz_rng *r, unsigned long cmd)
{
	unsigned int dir = _IOC_DIR(cmd), type = _IOC_TYPE(cmd);
	unsigned int nr = _IOC_NR(cmd), size = _IOC_SIZE(cmd);
	static const int dsize[] = { -8, -4, -1, 1, 4, 8, 64 };

	switch (kfuzz_below(r, 5)) {
	case 0:
		dir = (dir + 1 + kfuzz_below(r, 3)) & 3;
		break;
	case 1:
		size = kfuzz_pct(r, 30) ? 0 : kfuzz_pct(r, 30) ? _IOC_SIZEMASK :
		       (size + KFUZZ_PICK(r, dsize)) & _IOC_SIZEMASK;
		break;
	case 2:
		nr = kfuzz_pct(r, 30) ? 0 : kfuzz_pct(r, 30) ? 255 :
		     KFUZZ_NR_IOCTLS + 1 + kfuzz_below(r, 4);
		break;
	case 3:
		type = kfuzz_pct(r, 50) ? 'x' : (type + 1) & 0xff;
		break;
	default:
		nr = (nr + 1 + kfuzz_below(r, 254)) & 0xff;
	}
	return _IOC(dir, type, nr, size);
}

/*
 * KETW_IOC_USER_WRITEV with iovecs: counts around the stack's window and
 * the limit, pieces of every size (the stack's 256 bytes, the per-CPU
 * buffer's, past KETW_MAX_DATA_SIZE, SIZE_MAX) anywhere (bad addresses,
 * the guard page, read-only memory, ketw's own mappings), and the
 * request itself misplaced. Only its documented errnos come back.
 */
static void op_uwritev(struct kfuzz_thread *t)
{
	static const uint32_t counts[] = { 0, 1, 2, 3, 7, 8, 9, 16, 40,
					   KETW_USER_IOV_MAX,
					   KETW_USER_IOV_MAX + 1, 0xffffffffu };
	static const size_t lens[] = { 0, 1, 7, 8, 255, 256, 257, 511, 512,
				       513, 4096, KETW_MAX_DATA_SIZE,
				       KETW_MAX_DATA_SIZE + 1 };
	struct kfuzz_rng *r = R(t);
	struct fzt *z = Z(t);
	struct ketw_user_writev *w = (void *)z->arg.base;
	struct iovec *iov = (void *)z->scratch.base;
	unsigned char *data = z->scratch.base + 64 * 1024;
	uint32_t cnt = KFUZZ_PICK(r, counts), i, n;
	size_t room = SCRATCH_LEN - 64 * 1024, len;
	int idx = -1, fd = kfuzz_pct(r, 80) ? uslot_fd(t) : slot_fd(t, &idx);
	void *arg = w;
	long ret;

	if (fd < 0)
		return;
	memset(w, 0, sizeof(*w));
	w->id = kfuzz_below(r, 16);
	w->level = kfuzz_pct(r, 90) ? kfuzz_below(r, KETW_LEVEL_VERBOSE + 1) :
				      kfuzz_rand(r);
	w->keyword = kfuzz_pct(r, 60) ? 0 : kfuzz_below(r, 8);
	w->flags = kfuzz_pct(r, 80) ? 0 : kfuzz_pct(r, 70) ?
		   KETW_USER_WRITEV_ACTIVITY : kfuzz_rand(r);
	if (w->flags & KETW_USER_WRITEV_ACTIVITY)
		memset(w->activity, kfuzz_pct(r, 50) ? 0 : 0x5a,
		       sizeof(w->activity));
	w->prog_addr = kfuzz_pct(r, 50) ? 0 : kfuzz_rand(r);
	w->iovcnt = cnt;
	w->iov = (uintptr_t)iov;
	/* At most 4096 iovecs fit before the payload area. */
	n = cnt < 4096 ? cnt : 4096;
	for (i = 0; i < n; i++) {
		len = KFUZZ_PICK(r, lens);
		iov[i].iov_len = len;
		iov[i].iov_base = data + kfuzz_below(r, 64);
		switch (kfuzz_below(r, 20)) {
		case 0:
			iov[i].iov_base = kfuzz_bad_addr(r);
			break;
		case 1:		/* runs into the guard page */
			iov[i].iov_base = kfuzz_area_end(&z->scratch) -
					  kfuzz_below(r, len + 1);
			break;
		case 2:
			iov[i].iov_base = z->scratch.ro;
			iov[i].iov_len = len < 4096 ? len : 4096;
			break;
		case 3:
			iov[i].iov_base = mapped_addr(t);
			iov[i].iov_len = len < 4096 ? len : 4096;
			break;
		case 4:
			iov[i].iov_len = kfuzz_pct(r, 50) ? SIZE_MAX :
					 (size_t)1 << 40;
			break;
		default:
			if (len > room - 64)
				iov[i].iov_len = room - 64;
		}
	}
	switch (kfuzz_below(r, 12)) {
	case 0:		/* the request cut short by the guard page */
		arg = kfuzz_area_end(&z->arg) - kfuzz_below(r, sizeof(*w));
		break;
	case 1:
		arg = kfuzz_bad_addr(r);
		break;
	case 2:		/* the iovecs cut short */
		w->iov = (uintptr_t)(kfuzz_area_end(&z->scratch) -
				     kfuzz_below(r, 64));
		break;
	case 3:
		w->iov = (uintptr_t)kfuzz_bad_addr(r);
		break;
	}
	fd_lock(idx, 0);
	ret = CALL(t, ioctl(fd, KETW_IOC_USER_WRITEV, arg),
		   "ioctl(%d, USER_WRITEV, %u iovecs, level %u, flags %#x)",
		   fd, cnt, w->level, w->flags);
	fd_unlock(idx);
	if (ret < 0 && errno != EFAULT && errno != EINVAL && errno != ENODEV &&
	    errno != EAGAIN && errno != ENOMEM && errno != EBADF &&
	    errno != ENOTTY)
		kfuzz_fail(K, t, "USER_WRITEV: %ld %s", ret,
			   strerrorname_np(errno));
	if (ret > MAX_SESSIONS)
		kfuzz_fail(K, t, "USER_WRITEV stored in %ld sessions", ret);
}

static void op_badcmd(struct kfuzz_thread *t)
{
	const struct kfuzz_ioctl *io = &kfuzz_ioctls[kfuzz_below(R(t), KFUZZ_NR_IOCTLS)];
	unsigned long cmd = near_cmd(R(t), io->cmd);
	struct built b;
	int idx = -1, fd = kfuzz_pct(R(t), 20) ? uslot_fd(t) : slot_fd(t, &idx);
	long ret;

	if (fd < 0 || find_ioctl(cmd))
		return;
	build_arg(t, io->st, 0, kfuzz_pct(R(t), 80) ? PLACE_OK : PLACE_BAD, &b);
	ret = CALL(t, ioctl(fd, cmd, b.arg), "ioctl(%d, %#lx near %s, %p)", fd,
		   cmd, io->name, b.arg);
	if (ret >= 0 || (errno != ENOTTY && errno != EBADF))
		kfuzz_fail(K, t, "ioctl %#lx (near %s): %ld %s, want ENOTTY", cmd,
			   io->name, ret, ret < 0 ? strerrorname_np(errno) : "");
}

static int ref_ioctl(struct kfuzz_thread *t, int fd, unsigned long cmd,
		     const char *name, const char *what)
{
	struct ketw_session_ref ref;

	memset(&ref, 0, sizeof(ref));
	snprintf(ref.name, sizeof(ref.name), "%s", name);
	return CALL(t, ioctl(fd, cmd, &ref), "ioctl(%d, %s, '%s')", fd, what, name);
}

static int create_session(struct kfuzz_thread *t, int fd, const char *name,
			  uint32_t policy, uint32_t kb, uint32_t flags)
{
	struct ketw_session_attr a;

	ketw_attr_init(&a, name);
	a.flags = flags;
	a.policy = policy;
	a.buffer_kb = kb;
	return CALL(t, ioctl(fd, KETW_IOC_CREATE, &a),
		    "ioctl(%d, CREATE, '%s' policy %u %u KiB)", fd, name, policy, kb);
}

/*
 * The requests a tool makes, well formed, on the shared sessions: they
 * move sessions through every state while the hostile calls run.
 */
static void op_session(struct kfuzz_thread *t)
{
	struct kfuzz_rng *r = R(t);
	struct fzt *z = Z(t);
	const char *name = pick_session(t);
	int idx, fd = slot_fd(t, &idx);

	if (fd < 0)
		return;
	switch (kfuzz_below(r, 17)) {
	case 0:
	case 1: {
		static const uint32_t kbs[] = { 0, 4, 8, 16, 64, 256 };

		fd_lock(idx, 1);
		/*
		 * OWNED: the session goes when this slot's file is closed
		 * (by op_fd's churn), whoever is attached or reading.
		 */
		create_session(t, fd, name, kfuzz_below(r, 4), KFUZZ_PICK(r, kbs),
			       (kfuzz_pct(r, 70) ? KETW_SESSION_NO_RUNDOWN : 0) |
			       (kfuzz_pct(r, 30) ? KETW_SESSION_OWNED : 0));
		fd_unlock(idx);
		break;
	}
	case 2:
	case 3:
		ref_ioctl(t, fd, KETW_IOC_START, name, "START");
		break;
	case 4:
		ref_ioctl(t, fd, KETW_IOC_STOP, name, "STOP");
		break;
	case 5:
		fd_lock(idx, 1);
		ref_ioctl(t, fd, KETW_IOC_DESTROY, name, "DESTROY");
		fd_unlock(idx);
		break;
	case 6:
	case 7:
		fd_lock(idx, 1);
		ref_ioctl(t, fd, KETW_IOC_ATTACH, name, "ATTACH");
		fd_unlock(idx);
		break;
	case 8:
		ref_ioctl(t, fd, kfuzz_pct(r, 50) ? KETW_IOC_FLUSH : KETW_IOC_RUNDOWN,
			  name, "FLUSH/RUNDOWN");
		break;
	case 9:
	case 10: {
		struct ketw_enable e;

		memset(&e, 0, sizeof(e));
		e.size = sizeof(e);
		e.flags = kfuzz_pct(r, 20) ? KETW_ENABLE_DISABLE : 0;
		if (kfuzz_pct(r, 20))
			e.flags |= 1u << kfuzz_below(r, 3);	/* a new flag too */
		snprintf(e.session, sizeof(e.session), "%s", name);
		if (kfuzz_pct(r, 60))
			snprintf(e.provider, sizeof(e.provider), "%s",
				 provider_names[kfuzz_below(r, NR_PROVIDER_NAMES - 1)]);
		else
			pick_guid(t, e.guid);
		e.filter.level = kfuzz_below(r, 6);
		e.filter.match_any = kfuzz_pct(r, 70) ? 0 : kfuzz_below(r, 4);
		if (kfuzz_pct(r, 20))
			e.filter.filtered.bits[0] = kfuzz_rand(r);
		CALL(t, ioctl(fd, kfuzz_pct(r, 80) ? KETW_IOC_ENABLE :
			      KETW_IOC_GET_FILTER, &e), "ioctl(%d, ENABLE/GET_FILTER, '%s', '%s')",
		     fd, name, e.provider);
		break;
	}
	case 11: {
		struct ketw_snapshot s;

		memset(&s, 0, sizeof(s));
		s.size = sizeof(s);
		s.cpu = kfuzz_below(r, F.nr_cpus);
		snprintf(s.name, sizeof(s.name), "%s", name);
		s.buf = (uintptr_t)z->scratch.base;
		s.buf_len = SCRATCH_LEN;
		CALL(t, ioctl(fd, KETW_IOC_SNAPSHOT, &s), "ioctl(%d, SNAPSHOT, '%s' cpu %u)",
		     fd, name, s.cpu);
		break;
	}
	case 12: {	/* every session, at a stride a newer tool might use */
		struct ketw_session_list l;
		const struct ketw_session_info *e;
		size_t stride = sizeof(*e) + 8 * kfuzz_below(r, 4);
		uint32_t i, cap = SCRATCH_LEN / stride;

		memset(&l, 0, sizeof(l));
		l.size = sizeof(l);
		l.capacity = kfuzz_below(r, cap + 1);
		l.entry_size = stride;
		l.entries = (uintptr_t)z->scratch.base;
		if (CALL(t, ioctl(fd, KETW_IOC_SESSIONS, &l), "ioctl(%d, SESSIONS, cap %u)",
			 fd, l.capacity))
			break;
		if (l.count > 64)
			kfuzz_fail(K, t, "SESSIONS counted %u sessions, more than 64", l.count);
		for (i = 0; i < l.count && i < l.capacity; i++) {
			e = (const void *)((char *)z->scratch.base + i * stride);
			if (memchr(e->name, 0, sizeof(e->name)) == NULL || !e->name[0])
				kfuzz_fail(K, t, "SESSIONS entry %u has no name", i);
		}
		break;
	}
	case 13: {	/* a trigger on a sample event, or away with one or all */
		struct ketw_trigger tr;

		memset(&tr, 0, sizeof(tr));
		tr.size = sizeof(tr);
		snprintf(tr.session, sizeof(tr.session), "%s", name);
		if (kfuzz_pct(r, 40)) {
			tr.id = kfuzz_below(r, 4);
			CALL(t, ioctl(fd, KETW_IOC_TRIGGER_DEL, &tr),
			     "ioctl(%d, TRIGGER_DEL, '%s' id %u)", fd, name, tr.id);
			break;
		}
		snprintf(tr.provider, sizeof(tr.provider), "%s",
			 provider_names[kfuzz_below(r, NR_PROVIDER_NAMES - 1)]);
		tr.event_id = 1 + kfuzz_below(r, 2);
		tr.level = kfuzz_below(r, 6);
		tr.action = 1 + kfuzz_below(r, 3);
		tr.post_ms = tr.action == KETW_TRIGGER_WAKE ? 0 : kfuzz_below(r, 50);
		tr.min_interval_ms = kfuzz_below(r, 3);
		if (kfuzz_pct(r, 30)) {
			tr.flags = KETW_TRIGGER_FIELD;
			snprintf(tr.field, sizeof(tr.field), "%s",
				 kfuzz_pct(r, 80) ? "index" : "text");
			tr.value = kfuzz_below(r, 4);
		}
		CALL(t, ioctl(fd, KETW_IOC_TRIGGER_ADD, &tr),
		     "ioctl(%d, TRIGGER_ADD, '%s', '%s':%u)", fd, name, tr.provider,
		     tr.event_id);
		break;
	}
	case 14: {	/* a process filter: ours (and our children), init, none */
		struct ketw_pid_filter pf;
		int32_t *pids = (int32_t *)z->scratch.base;
		uint32_t i;

		memset(&pf, 0, sizeof(pf));
		snprintf(pf.session, sizeof(pf.session), "%s", name);
		pf.size = sizeof(pf);
		pf.pids = (uintptr_t)pids;
		if (kfuzz_pct(r, 30)) {
			pf.capacity = kfuzz_below(r, 8);
			if (CALL(t, ioctl(fd, KETW_IOC_GET_PIDS, &pf),
				 "ioctl(%d, GET_PIDS, '%s' cap %u)", fd, name, pf.capacity))
				break;
			if (!(pf.flags & KETW_PIDS_ACTIVE) && pf.count)
				kfuzz_fail(K, t, "GET_PIDS: %u pids without a filter", pf.count);
			if (pf.count > KETW_PIDS_MAX)
				kfuzz_fail(K, t, "GET_PIDS: %u pids", pf.count);
			break;
		}
		pf.count = kfuzz_pct(r, 20) ? 0 : 1 + kfuzz_below(r, 4);
		for (i = 0; i < pf.count; i++)
			pids[i] = kfuzz_pct(r, 60) ? getpid() :
				  kfuzz_pct(r, 50) ? 1 : getppid();
		if (pf.count && kfuzz_pct(r, 50))
			pf.flags = KETW_PIDS_INHERIT;
		CALL(t, ioctl(fd, KETW_IOC_SET_PIDS, &pf),
		     "ioctl(%d, SET_PIDS, '%s' %u pids flags %#x)", fd, name, pf.count,
		     pf.flags);
		break;
	}
	default: {
		struct ketw_session_status st;

		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		snprintf(st.name, sizeof(st.name), "%s", name);
		CALL(t, ioctl(fd, KETW_IOC_STATUS, &st), "ioctl(%d, STATUS, '%s')", fd, name);
	}
	}
}

/* ---- read() and poll() -------------------------------------------------- */

/* read() returns whole records, never padding, within what was asked. */
static void check_records(struct kfuzz_thread *t, const unsigned char *buf,
			  size_t asked, long got)
{
	const struct ketw_event_header *h;
	size_t off = 0, span;

	if (got > (long)asked) {
		kfuzz_fail(K, t, "read() returned %ld for %zu bytes", got, asked);
		return;
	}
	while (off < (size_t)got) {
		h = (const void *)(buf + off);
		span = KETW_RECORD_SPAN(h->size);
		if ((size_t)got - off < KETW_EVENT_HEADER_SIZE ||
		    h->size < KETW_EVENT_HEADER_SIZE || span > (size_t)got - off ||
		    (h->flags & KETW_RECORD_PADDING)) {
			kfuzz_fail(K, t, "read() returned a bad record at %zu of %ld: size %u flags %#x",
				   off, got, h->size, h->flags);
			return;
		}
		off += span;
	}
}

static void op_read(struct kfuzz_thread *t)
{
	static const size_t lens[] = { 0, 1, 63, 64, 65, 79, 80, 4095, 4096,
				       65536, SCRATCH_LEN };
	struct kfuzz_rng *r = R(t);
	struct fzt *z = Z(t);
	int idx = -1, fd = kfuzz_pct(r, 10) ? uslot_fd(t) : slot_fd(t, &idx);
	size_t len = KFUZZ_PICK(r, lens);
	unsigned char *buf = z->scratch.base;
	int whole = 1;
	long ret;

	if (fd < 0)
		return;
	switch (kfuzz_below(r, 8)) {
	case 0:		/* unaligned */
		buf += 1 + kfuzz_below(r, 7);
		if (len > SCRATCH_LEN - 8)
			len = SCRATCH_LEN - 8;
		break;
	case 1:		/* runs into the guard page */
		buf = kfuzz_area_end(&z->scratch) - kfuzz_below(r, len + 1);
		whole = 0;
		break;
	case 2:
		buf = kfuzz_bad_addr(r);
		whole = 0;
		break;
	case 3:
		buf = z->scratch.ro;
		whole = 0;
		break;
	case 4:		/* huge */
		len = kfuzz_pct(r, 50) ? SIZE_MAX : (size_t)1 << 40;
		whole = 0;
		break;
	case 5:		/* into ketw's own pages, a meta page or a data area */
		buf = mapped_addr(t);
		whole = 0;
		break;
	}
	fd_lock(idx, 0);
	switch (kfuzz_below(r, 10)) {
	case 0: {	/* at an offset: the file has none */
		off_t off = kfuzz_interesting(r, NULL, 0) & INT64_MAX;

		ret = CALL(t, pread(fd, buf, len, off), "pread(%d, %p, %zu, %lld)", fd,
			   buf, len, (long long)off);
		break;
	}
	case 1:		/* in pieces, some of them bad */
	case 2: {
		static const int flagss[] = { 0, RWF_NOWAIT, RWF_HIPRI, RWF_APPEND,
					      0x40000000 };
		struct iovec iov[4];
		unsigned int i, n = 1 + kfuzz_below(r, 4);
		size_t left = len < SCRATCH_LEN ? len : SCRATCH_LEN, cut;
		int flags = KFUZZ_PICK(r, flagss);

		for (i = 0; i < n; i++) {
			cut = i + 1 == n ? left : kfuzz_below(r, left + 1);
			iov[i].iov_base = kfuzz_pct(r, 15) ? kfuzz_bad_addr(r) :
					  z->scratch.base + (len < SCRATCH_LEN ? len - left : 0);
			iov[i].iov_len = cut;
			left -= cut;
		}
		ret = CALL(t, preadv2(fd, iov, n, -1, flags), "readv(%d, %u pieces of %zu, %#x)",
			   fd, n, len, flags);
		whole = 0;
		break;
	}
	default:
		ret = CALL(t, read(fd, buf, len), "read(%d, %p, %zu)", fd, buf, len);
	}
	fd_unlock(idx);
	if (ret > 0 && whole)
		check_records(t, buf, len, ret);
}

static void op_poll(struct kfuzz_thread *t)
{
	struct pollfd p[3];
	unsigned int i, n = F.avoid_fdrace ? 1 : 1 + kfuzz_below(R(t), 3);
	int idx = -1, fd;

	for (i = 0; i < n; i++) {
		fd = kfuzz_pct(R(t), 10) ? uslot_fd(t) : slot_fd(t, &idx);
		p[i].fd = fd;
		p[i].events = POLLIN | (kfuzz_pct(R(t), 30) ? POLLOUT | POLLPRI : 0);
	}
	if (n == 1)
		fd_lock(idx, 0);
	CALL(t, poll(p, n, kfuzz_below(R(t), 50)), "poll(%d%s, %u fds)", p[0].fd,
	     n > 1 ? ", ..." : "", n);
	if (n == 1)
		fd_unlock(idx);
}

static void op_epoll(struct kfuzz_thread *t)
{
	struct kfuzz_rng *r = R(t);
	int i = kfuzz_below(r, NR_EPOLL), ep = atomic_load(&F.epfd[i]);
	int idx, fd, none = -1;
	struct epoll_event ev[4];

	if (F.avoid_epoll)
		return;
	if (ep < 0) {
		ep = CALL(t, epoll_create1(EPOLL_CLOEXEC), "epoll_create1()");
		if (ep >= 0 && !atomic_compare_exchange_strong(&F.epfd[i], &none, ep))
			close(ep);
		return;
	}
	switch (kfuzz_below(r, 6)) {
	case 0:
	case 1:
		fd = slot_fd(t, &idx);
		memset(ev, 0, sizeof(ev[0]));
		ev[0].events = EPOLLIN | (kfuzz_pct(r, 30) ? EPOLLET : 0);
		CALL(t, epoll_ctl(ep, EPOLL_CTL_ADD, fd, ev), "epoll_ctl(%d, ADD, %d)", ep, fd);
		break;
	case 2:
		fd = slot_fd(t, &idx);
		CALL(t, epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL), "epoll_ctl(%d, DEL, %d)", ep, fd);
		break;
	case 3:
		ep = atomic_exchange(&F.epfd[i], -1);
		if (ep >= 0)
			CALL(t, close(ep), "close(epoll %d)", ep);
		break;
	default:
		CALL(t, epoll_wait(ep, ev, 4, kfuzz_below(r, 30)), "epoll_wait(%d)", ep);
	}
}

/* ---- mappings ----------------------------------------------------------- */

/*
 * Record a mapping; F.maps_lock held. Unmaps it if the table is full
 * (and returns NULL).
 */
static struct fzmap *maps_add(void *addr, size_t len, int prot, int kind,
			      int pair, int policy, size_t full_len)
{
	unsigned int i;

	len = (len + F.page - 1) & ~(F.page - 1);
	for (i = 0; i < NR_MAPS; i++) {
		struct fzmap *m = &F.maps[i];

		if (m->used)
			continue;
		*m = (struct fzmap){ .addr = addr, .len = len, .prot = prot,
				     .kind = kind, .pair = pair, .policy = policy,
				     .full_len = full_len, .used = 1 };
		return m;
	}
	munmap(addr, len);
	return NULL;
}

/* A recorded mapping at random, or NULL; F.maps_lock held. */
static struct fzmap *maps_pick(struct kfuzz_thread *t, int kind, int prot)
{
	unsigned int i, n = kfuzz_below(R(t), NR_MAPS);

	for (i = 0; i < NR_MAPS; i++) {
		struct fzmap *m = &F.maps[(n + i) % NR_MAPS];

		if (m->used && (kind < 0 || m->kind == kind) &&
		    (m->prot & prot) == prot && !(prot && m->zapped))
			return m;
	}
	return NULL;
}

/* A part of @old, with @prot; F.maps_lock held. */
static void maps_add_part(const struct fzmap *old, size_t off, size_t len,
			  int prot)
{
	struct fzmap *m = maps_add(old->addr + off, len, prot, old->kind,
				   old->pair, old->policy, old->full_len);

	if (m)
		m->zapped = old->zapped;
}

/*
 * An address in one of the ketw mappings (a user pointer for the kernel
 * to use; another thread may unmap it meanwhile), else in the scratch area.
 */
static void *mapped_addr(struct kfuzz_thread *t)
{
	struct fzmap *m;
	void *p = Z(t)->scratch.base;

	if (F.in_child)		/* the lock may have been held at fork() */
		return p;
	pthread_mutex_lock(&F.maps_lock);
	m = maps_pick(t, -1, 0);
	if (m)
		p = m->addr + (kfuzz_below(R(t), m->len) & ~7ul);
	pthread_mutex_unlock(&F.maps_lock);
	return p;
}

/*
 * [off, off + len) of @m changed: gone (@prot < 0) or to @prot. Splits
 * the entry in up to three; F.maps_lock held.
 */
static void maps_update(struct fzmap *m, size_t off, size_t len, int prot)
{
	struct fzmap old = *m;

	if (off + len > old.len)
		len = old.len - off;
	m->used = 0;
	if (off)
		maps_add_part(&old, 0, off, old.prot);
	if (prot >= 0)
		maps_add_part(&old, off, len, prot);
	if (off + len < old.len)
		maps_add_part(&old, off + len, old.len - off - len, old.prot);
}

/* Map a CPU's meta page, then its data area at the offset it gives. */
static void map_good(struct kfuzz_thread *t, int fd, int idx)
{
	unsigned int cpu = kfuzz_below(R(t), F.nr_cpus);
	struct ketw_meta_page *meta;
	uint64_t off;
	uint32_t size;
	int policy, pair;
	void *data;

	meta = (void *)CALL(t, mmap(NULL, F.page, PROT_READ | PROT_WRITE, MAP_SHARED,
				    fd, KETW_MMAP_CPU(cpu)), "mmap(%d, meta cpu %u)", fd, cpu);
	if (meta == MAP_FAILED)
		return;
	off = meta->data_offset;
	size = meta->data_size;
	policy = meta->policy;
	data = (void *)CALL(t, mmap(NULL, size, PROT_READ, MAP_SHARED, fd, off),
			    "mmap(%d, data %#" PRIx64 ", %u)", fd, off, size);
	pthread_mutex_lock(&F.maps_lock);
	pair = ++F.next_pair;
	maps_add(meta, F.page, PROT_READ | PROT_WRITE, MK_META, pair, policy, 0);
	if (data != MAP_FAILED)
		maps_add(data, size, PROT_READ, MK_DATA, pair, policy, size);
	pthread_mutex_unlock(&F.maps_lock);
	(void)idx;
}

static void op_mmap(struct kfuzz_thread *t)
{
	static const size_t lens[] = { 0, 4096, 8192, 16384, 65536, 1 << 20,
				       12288, 4095 };
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_WRITE, PROT_READ | PROT_EXEC, PROT_NONE };
	struct kfuzz_rng *r = R(t);
	int idx = -1, fd = kfuzz_pct(r, 5) ? uslot_fd(t) : slot_fd(t, &idx);
	uint64_t cpu, part, off;
	int prot, flags;
	size_t len;
	void *p;

	if (fd < 0)
		return;
	fd_lock(idx, 0);
	if (kfuzz_pct(r, 50)) {
		map_good(t, fd, idx);
		fd_unlock(idx);
		return;
	}
	cpu = kfuzz_pct(r, 80) ? kfuzz_below(r, F.nr_cpus) :
	      kfuzz_pct(r, 50) ? F.nr_cpus : kfuzz_interesting(r, NULL, 0) & 0xfffff;
	switch (kfuzz_below(r, 4)) {
	case 0: part = 0; break;
	case 1: part = F.page; break;
	case 2: part = F.page * kfuzz_below(r, 300); break;
	default: part = kfuzz_rand(r) & (KETW_MMAP_CPU(1) - 1) & ~(F.page - 1);
	}
	off = KETW_MMAP_CPU(cpu) + part;
	len = kfuzz_pct(r, 70) ? KFUZZ_PICK(r, lens) : F.page * (1 + kfuzz_below(r, 64));
	prot = KFUZZ_PICK(r, prots);
	flags = kfuzz_pct(r, 85) ? MAP_SHARED : MAP_PRIVATE;
	if (kfuzz_pct(r, 20))
		flags |= MAP_POPULATE;
	p = (void *)CALL(t, mmap(NULL, len, prot, flags, fd, off),
			 "mmap(%d, %#" PRIx64 ", %zu, prot %#x, flags %#x)", fd, off, len,
			 prot, flags);
	fd_unlock(idx);
	if (p == MAP_FAILED)
		return;
	if (part && (prot & PROT_WRITE))
		kfuzz_fail(K, t, "a data area was mapped writable");
	if (!(flags & MAP_SHARED))
		kfuzz_fail(K, t, "a private mapping was accepted");
	pthread_mutex_lock(&F.maps_lock);
	/* The size of a data area mapped whole is its size (a power of two). */
	maps_add(p, (len + F.page - 1) & ~(F.page - 1), prot, part ? MK_DATA : MK_META,
		 0, -1, 0);
	pthread_mutex_unlock(&F.maps_lock);
}

/* A page-aligned part of @m: offset and length. */
static void pick_range(struct kfuzz_thread *t, const struct fzmap *m,
		       size_t *off, size_t *len)
{
	size_t pages = m->len / F.page, first;

	if (kfuzz_pct(R(t), 40)) {
		*off = 0;
		*len = m->len;
		return;
	}
	first = kfuzz_below(R(t), pages);
	*off = first * F.page;
	*len = (1 + kfuzz_below(R(t), pages - first)) * F.page;
}

static void op_munmap(struct kfuzz_thread *t)
{
	struct fzmap *m;
	size_t off, len;

	pthread_mutex_lock(&F.maps_lock);
	m = maps_pick(t, -1, 0);
	if (m) {
		pick_range(t, m, &off, &len);
		CALL(t, munmap(m->addr + off, len), "munmap(%p+%zu, %zu)", m->addr, off, len);
		/* Gone, or in doubt: either way never touched again. */
		maps_update(m, off, len, -1);
	}
	pthread_mutex_unlock(&F.maps_lock);
}

static void op_mprotect(struct kfuzz_thread *t)
{
	static const int prots[] = { PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE,
				     PROT_WRITE, PROT_READ | PROT_EXEC };
	int prot = KFUZZ_PICK(R(t), prots);
	struct fzmap *m;
	size_t off, len;
	long ret;

	pthread_mutex_lock(&F.maps_lock);
	m = maps_pick(t, -1, 0);
	if (m) {
		pick_range(t, m, &off, &len);
		ret = CALL(t, mprotect(m->addr + off, len, prot), "mprotect(%p+%zu, %zu, %#x)",
			   m->addr, off, len, prot);
		if (!ret && m->kind == MK_DATA && (prot & PROT_WRITE))
			kfuzz_fail(K, t, "a data area was made writable");
		/* On failure part may have changed: keep what both allow. */
		maps_update(m, off, len, ret ? (m->prot & prot) : prot);
	}
	pthread_mutex_unlock(&F.maps_lock);
}

static void op_mremap(struct kfuzz_thread *t)
{
	static const int flagss[] = { 0, MREMAP_MAYMOVE,
				      MREMAP_MAYMOVE | MREMAP_DONTUNMAP };
	struct kfuzz_rng *r = R(t);
	int flags = KFUZZ_PICK(r, flagss);
	struct fzmap *m, old;
	size_t oldlen, newlen;
	void *p;

	pthread_mutex_lock(&F.maps_lock);
	m = maps_pick(t, -1, 0);
	if (!m)
		goto out;
	oldlen = (1 + kfuzz_below(r, m->len / F.page)) * F.page;
	switch (kfuzz_below(r, 3)) {
	case 0: newlen = oldlen > F.page ? oldlen / 2 & ~(F.page - 1) : oldlen; break;
	case 1: newlen = oldlen; break;
	default: newlen = oldlen + F.page * (1 + kfuzz_below(r, 4));
	}
	if (flags & MREMAP_DONTUNMAP)
		newlen = oldlen;
	p = (void *)CALL(t, mremap(m->addr, oldlen, newlen, flags),
			 "mremap(%p, %zu, %zu, %#x)", m->addr, oldlen, newlen, flags);
	if (p == MAP_FAILED)
		goto out;
	old = *m;
	if (!(flags & MREMAP_DONTUNMAP) || p == old.addr)
		maps_update(m, 0, oldlen, -1);
	else
		m->zapped = 1;	/* the old range stays, emptied */
	m = maps_add(p, newlen, old.prot, old.kind, old.pair, old.policy,
		     newlen == oldlen && oldlen == old.len ? old.full_len : 0);
	/* Grown (it must not): the new pages have nothing behind them. */
	if (m && (newlen > oldlen || old.zapped))
		m->zapped = 1;
out:
	pthread_mutex_unlock(&F.maps_lock);
}

static void op_madvise(struct kfuzz_thread *t)
{
	static const int advs[] = { MADV_DONTNEED, MADV_DOFORK, MADV_DONTFORK,
				    MADV_WILLNEED, MADV_WIPEONFORK, MADV_NORMAL,
				    MADV_DONTDUMP, MADV_COLD, MADV_PAGEOUT };
	int adv = KFUZZ_PICK(R(t), advs);
	struct fzmap *m;
	size_t off, len;
	long ret;

	pthread_mutex_lock(&F.maps_lock);
	m = maps_pick(t, -1, 0);
	if (m) {
		pick_range(t, m, &off, &len);
		ret = CALL(t, madvise(m->addr + off, len, adv), "madvise(%p+%zu, %zu, %d)",
			   m->addr, off, len, adv);
		/* Zapped pages of these mappings do not come back (SIGBUS). */
		if (adv == MADV_DONTNEED || adv == MADV_PAGEOUT || ret)
			m->zapped = 1;
	}
	pthread_mutex_unlock(&F.maps_lock);
}

/* A value for a meta page field: positions near the real ones, or anything. */
static uint64_t meta_value(struct kfuzz_thread *t, const struct ketw_meta_page *mp)
{
	struct kfuzz_rng *r = R(t);
	uint32_t commit = __atomic_load_n(&mp->commit, __ATOMIC_RELAXED);
	uint32_t size = mp->data_size;

	switch (kfuzz_below(r, 8)) {
	case 0: return commit + 8 * kfuzz_below(r, 16);
	case 1: return commit - 8 * kfuzz_below(r, 16);
	case 2: return commit + 1 + kfuzz_below(r, 7);		/* unaligned */
	case 3: return commit - size - 8 * kfuzz_below(r, 4);	/* over a lap */
	case 4: return commit + size;
	case 5: return commit ^ 0x80000000u;
	default: return kfuzz_interesting(r, kfuzz_consts, KFUZZ_NR_CONSTS);
	}
}

/* Write a random value into a field of a mapped meta page. */
static void op_scribble(struct kfuzz_thread *t)
{
	const struct kfuzz_struct *st = F.meta_st;
	const struct kfuzz_field *f;
	struct ketw_meta_page *mp;
	struct fzmap *m;
	uint64_t v;

	if (!st)
		return;
	pthread_mutex_lock(&F.maps_lock);
	m = maps_pick(t, MK_META, PROT_READ | PROT_WRITE);
	if (!m)
		goto out;
	mp = (void *)m->addr;
	f = &st->fields[kfuzz_below(R(t), st->nr_fields)];
	/* The reader's positions most. */
	if (kfuzz_pct(R(t), 60)) {
		const char *want = kfuzz_pct(R(t), 50) ? "oldest" : "consumed";

		for (size_t i = 0; i < st->nr_fields; i++)
			if (!strcmp(st->fields[i].name, want))
				f = &st->fields[i];
	}
	if (F.avoid_meta && (!strcmp(f->name, "oldest") || !strcmp(f->name, "consumed")))
		goto out;
	v = meta_value(t, mp);
	kfuzz_begin(K, t, "meta %p: %s = %#" PRIx64 " (commit %u)", (void *)mp,
		    f->name, v, mp->commit);
	if (f->len == 4)
		__atomic_store_n((uint32_t *)((char *)mp + f->off), (uint32_t)v,
				 __ATOMIC_RELEASE);
	else if (f->len == 8)
		__atomic_store_n((uint64_t *)((char *)mp + f->off), v, __ATOMIC_RELEASE);
	else
		put_uint((unsigned char *)mp + f->off, f->len, v);
	kfuzz_end(K, t, 0, 0);
out:
	pthread_mutex_unlock(&F.maps_lock);
}

/* Consume from a mapped data area as a reader would, bounded. */
static void op_consume(struct kfuzz_thread *t)
{
	static unsigned char copy[1 << 16];
	struct fzmap *m, *d = NULL;
	struct ketw_meta_page *mp;
	uint32_t *tail, c, p, span, off, mask;
	unsigned int i, n = 0;
	int loop;

	pthread_mutex_lock(&F.maps_lock);
	m = maps_pick(t, MK_META, PROT_READ | PROT_WRITE);
	for (i = 0; m && m->pair && i < NR_MAPS; i++) {
		struct fzmap *x = &F.maps[i];

		if (x->used && x->kind == MK_DATA && x->pair == m->pair &&
		    (x->prot & PROT_READ) && !x->zapped && x->len == x->full_len &&
		    x->len && !(x->len & (x->len - 1)))
			d = x;
	}
	if (!d)
		goto out;
	mp = (void *)m->addr;
	loop = m->policy == KETW_POLICY_LOOP;
	tail = loop ? &mp->oldest : &mp->consumed;
	mask = d->len - 1;
	kfuzz_begin(K, t, "consume meta %p data %p (%s)", (void *)mp, d->addr,
		    loop ? "oldest" : "consumed");
	p = __atomic_load_n(&mp->commit, __ATOMIC_ACQUIRE);
	c = __atomic_load_n(tail, __ATOMIC_ACQUIRE);
	for (i = 0; i < 512 && c != p; i++) {
		off = c & mask;
		if (off + 2 > d->len)
			break;
		span = KETW_RECORD_SPAN(*(volatile uint16_t *)(d->addr + off));
		if (span < KETW_RECORD_ALIGN || span > p - c || off + span > d->len) {
			if (!loop)
				break;
			c = __atomic_load_n(tail, __ATOMIC_ACQUIRE);
			continue;
		}
		if (loop) {
			uint32_t expect = c;

			memcpy(copy, d->addr + off, span);
			if (!__atomic_compare_exchange_n(tail, &expect, c + span, 0,
							 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
				c = expect;
				continue;
			}
		}
		c += span;
		n++;
	}
	if (!loop)
		__atomic_store_n(tail, c, __ATOMIC_RELEASE);
	kfuzz_end(K, t, n, 0);
out:
	pthread_mutex_unlock(&F.maps_lock);
}

/* ---- providers ---------------------------------------------------------- */

static int emit(int fd, unsigned int n)
{
	char s[16];
	int len = snprintf(s, sizeof(s), "%u", n);

	return pwrite(fd, s, len, 0) == len ? 0 : -1;
}

static void op_emit(struct kfuzz_thread *t)
{
	struct kfuzz_rng *r = R(t);
	unsigned int n = 1 + kfuzz_below(r, 200), ms;
	int busy = 0;

	if (kfuzz_pct(r, 5) && F.stress_fd >= 0 && !F.avoid_stress &&
	    atomic_compare_exchange_strong(&F.stress_busy, &busy, 1)) {
		ms = 20 + kfuzz_below(r, 80);
		CALL(t, emit(F.stress_fd, ms), "ketw_stress run_ms=%u", ms);
		atomic_store(&F.stress_busy, 0);
		return;
	}
	if (kfuzz_pct(r, 30))
		CALL(t, emit(F.warn_fd, n), "ketw_sample emit_warn=%u", n);
	else
		CALL(t, emit(F.emit_fd, n), "ketw_sample emit=%u", n);
}

/*
 * A value for a writable parameter of ketw: back to the one it had, or
 * around it, or nonsense. user_gid is never the unprivileged children's
 * own gid (a non-member would rightly be let in).
 */
static void op_param(struct kfuzz_thread *t)
{
	static const char *const gids[] = { "4242", "4242", "-1", "1234", "0",
					    "abc", "99999999999", "-2", "" };
	static const char *const odd[] = { "0", "1", "-1", "4294967295",
					   "18446744073709551616", "abc", "",
					   "0x10", " 7", "1k" };
	struct fzparam *pm;
	char v[32];

	if (!F.nr_params)
		return;
	pm = &F.params[kfuzz_below(R(t), F.nr_params)];
	if (!strcmp(pm->name, "user_gid"))
		snprintf(v, sizeof(v), "%s", KFUZZ_PICK(R(t), gids));
	else if (kfuzz_pct(R(t), 40))
		snprintf(v, sizeof(v), "%s", pm->orig);
	else if (kfuzz_pct(R(t), 50))
		snprintf(v, sizeof(v), "%s", KFUZZ_PICK(R(t), odd));
	else
		snprintf(v, sizeof(v), "%llu", strtoull(pm->orig, NULL, 0) *
			 (1 + kfuzz_below(R(t), 4)) / (1 + kfuzz_below(R(t), 4)));
	CALL(t, pwrite(pm->fd, v, strlen(v), 0), "ketw.%s='%s'", pm->name, v);
}

/* ---- children ----------------------------------------------------------- */

/*
 * Wait for a child, bounded: SIGKILL after 5 s, and a hang if even that
 * does not end it within the stall limit (a task stuck in the kernel).
 * Returns its status, or -1.
 */
static int reap(struct kfuzz_thread *t, pid_t pid)
{
	uint64_t start = kfuzz_now_ms();
	int status, killed = 0;
	pid_t w;

	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			return status;
		if (w < 0 && errno != EINTR)
			return -1;
		if (!killed && kfuzz_now_ms() - start > 5000) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		if (kfuzz_now_ms() - start > 5000 + F.k.stall_s * 1000ull) {
			kfuzz_fail(K, t, "child %d did not die after SIGKILL: stuck in the kernel?",
				   pid);
			return -1;
		}
		usleep(10000);
	}
}

/* What a forked child does with the files it inherited, bounded by alarm(). */
static void child_ops(struct kfuzz_thread *t, unsigned int n)
{
	while (n--) {
		switch (kfuzz_below(R(t), 8)) {
		case 0: op_close(t); break;
		case 1: op_read(t); break;
		case 2: op_poll(t); break;
		case 3: op_session(t); break;
		case 4: op_dup(t); break;
		default: op_ioctl(t);
		}
	}
}

static void child_setup(void)
{
	F.in_child = 1;
	F.k.trace = 0;		/* no stdio: its locks may be held */
	memset(F.maps, 0, sizeof(F.maps));	/* VM_DONTCOPY: not ours */
	signal(SIGALRM, SIG_DFL);
	alarm(3);
}

static void op_fork(struct kfuzz_thread *t)
{
	unsigned int n = 5 + kfuzz_below(R(t), 30);
	uint64_t cseed = kfuzz_rand(R(t));
	int status;
	pid_t pid;

	if (F.avoid_fdrace)
		return;
	/* The child writes to the trail meanwhile: ours comes after. */
	pid = fork();
	if (!pid) {
		child_setup();
		t->rng.s = cseed;
		kfuzz_begin(K, t, "fork(): child %d of t%d, with its files:", getpid(),
			    t->id);
		kfuzz_end(K, t, 0, 0);
		child_ops(t, n);
		_exit(0);
	}
	status = pid < 0 ? -1 : reap(t, pid);
	kfuzz_begin(K, t, "fork() = %d, reaped", pid);
	kfuzz_end(K, t, status, 0);
	if (pid < 0)
		return;
	if (status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) != SIGALRM &&
	    WTERMSIG(status) != SIGKILL)
		kfuzz_fail(K, t, "forked child died of signal %d", WTERMSIG(status));
}

enum { UC_OK, UC_SETUP = 10, UC_CTL_OPEN, UC_NOT_MEMBER, UC_CONTRACT };

/* An unprivileged user of /dev/ketw_user; see op_user_child(). */
static int user_child(struct kfuzz_thread *t, int member, unsigned int n)
{
	struct kfuzz_rng *r = R(t);
	struct pollfd p;
	gid_t g = USER_GID;
	int fd, ufd, i;
	long ret;

	/* Raw calls: this child of a threaded process has one thread. */
	if (syscall(SYS_setgroups, member ? 1 : 0, &g) ||
	    syscall(SYS_setresgid, NOBODY, NOBODY, NOBODY) ||
	    syscall(SYS_setresuid, NOBODY, NOBODY, NOBODY))
		return UC_SETUP;
	/* None of the files root had: they are not this user's. */
	for (i = 0; i < NR_SLOTS; i++)
		atomic_store(&F.slot[i], -1);
	fd = CALL(t, open(KETW_DEVICE, O_RDWR), "uid %d: open(%s)", NOBODY, KETW_DEVICE);
	if (fd >= 0)
		return UC_CTL_OPEN;
	ufd = CALL(t, open(KETW_USER_DEVICE, O_RDWR), "uid %d%s: open(%s)", NOBODY,
		   member ? " in the group" : "", KETW_USER_DEVICE);
	if (ufd < 0)
		return UC_OK;	/* user_gid may be something else now */
	if (!member)
		return UC_NOT_MEMBER;
	for (i = 0; i < NR_USLOTS; i++)
		atomic_store(&F.uslot[i], ufd);
	while (n--) {
		const struct kfuzz_ioctl *io;
		struct built b;

		switch (kfuzz_below(r, 8)) {
		case 0:
			ret = CALL(t, read(ufd, Z(t)->scratch.base, 4096), "read(user %d)", ufd);
			if (ret >= 0 || errno != EINVAL)
				return UC_CONTRACT;
			break;
		case 1:
			p.fd = ufd;
			p.events = POLLIN;
			ret = CALL(t, poll(&p, 1, 0), "poll(user %d)", ufd);
			if (ret != 1 || !(p.revents & POLLERR))
				return UC_CONTRACT;
			break;
		case 2:
			/*
			 * The enable page: read-only and shared, and only
			 * once this file registered a provider (ENODEV
			 * before); madvise(MADV_DONTNEED) only drops it until
			 * the next read.
			 */
			ret = CALL(t, (long)mmap(NULL, F.page, PROT_READ, MAP_SHARED, ufd, 0),
				   "mmap(user %d)", ufd);
			if (ret == -1) {
				if (errno != ENODEV)
					return UC_CONTRACT;
				break;
			}
			if (CALL(t, madvise((void *)ret, F.page, MADV_DONTNEED),
				 "madvise(user page, DONTNEED)") ||
			    ((const struct ketw_user_enable_page *)ret)->version !=
			    KETW_USER_PAGE_VERSION)
				return UC_CONTRACT;
			munmap((void *)ret, F.page);
			ret = CALL(t, (long)mmap(NULL, F.page, PROT_READ | PROT_WRITE,
						 MAP_SHARED, ufd, 0),
				   "mmap(user %d, writable)", ufd);
			if (ret != -1 || errno != EPERM)
				return UC_CONTRACT;
			ret = CALL(t, (long)mmap(NULL, F.page, PROT_READ, MAP_PRIVATE, ufd, 0),
				   "mmap(user %d, private)", ufd);
			if (ret != -1 || errno != EINVAL)
				return UC_CONTRACT;
			break;
		default:
			io = &kfuzz_ioctls[kfuzz_below(r, KFUZZ_NR_IOCTLS)];
			if (kfuzz_pct(r, 60))
				io = find_ioctl(kfuzz_pct(r, 40) ? KETW_IOC_USER_REGISTER :
						kfuzz_pct(r, 50) ? KETW_IOC_USER_WRITE :
						KETW_IOC_USER_WRITEV);
			build_arg(t, io->st, kfuzz_below(r, 3), kfuzz_pct(r, 85) ?
				  PLACE_OK : PLACE_STRADDLE, &b);
			ret = do_ioctl(t, ufd, -1, io, &b);
			if (!is_user_cmd(io->cmd) && (ret >= 0 || errno != ENOTTY))
				return UC_CONTRACT;
		}
	}
	return UC_OK;
}

/* Fork a child that drops root and uses /dev/ketw_user as a group member or not. */
static void op_user_child(struct kfuzz_thread *t)
{
	static const char *const why[] = {
		[UC_SETUP] = "could not drop privileges",
		[UC_CTL_OPEN] = "opened /dev/ketw without CAP_SYS_ADMIN",
		[UC_NOT_MEMBER] = "opened /dev/ketw_user outside the group",
		[UC_CONTRACT] = "/dev/ketw_user broke its contract (last call above)",
	};
	int member = kfuzz_pct(R(t), 80), status;
	unsigned int n = 10 + kfuzz_below(R(t), 40);
	uint64_t cseed = kfuzz_rand(R(t));
	pid_t pid;

	pid = fork();
	if (!pid) {
		child_setup();
		t->rng.s = cseed;
		kfuzz_begin(K, t, "fork(): child %d of t%d, unprivileged%s:", getpid(),
			    t->id, member ? ", in the group" : "");
		kfuzz_end(K, t, 0, 0);
		_exit(user_child(t, member, n));
	}
	status = pid < 0 ? -1 : reap(t, pid);
	kfuzz_begin(K, t, "fork() = %d (unprivileged), reaped", pid);
	kfuzz_end(K, t, status, 0);
	if (status < 0)
		return;
	if (WIFEXITED(status) && WEXITSTATUS(status) >= UC_SETUP &&
	    WEXITSTATUS(status) <= UC_CONTRACT)
		kfuzz_fail(K, t, "unprivileged child: %s", why[WEXITSTATUS(status)]);
	else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGALRM &&
		 WTERMSIG(status) != SIGKILL)
		kfuzz_fail(K, t, "unprivileged child died of signal %d", WTERMSIG(status));
}

/* ---- races set up on purpose -------------------------------------------- */

struct helper {
	struct kfuzz_thread *t;
	int fd;
	int what;
	const char *a, *b;
	pthread_t th;
	_Atomic int done;
	_Atomic long ret;
	_Atomic int err;
};

enum { H_READ, H_POLL, H_ATTACH, H_READ_NB };

/*
 * The helper thread of a race: a blocking read(), a poll(), ATTACHes or
 * non-blocking reads on one file. Its calls go into the trail of the
 * thread that made it ([t] in the trail shows them).
 */
static void *helper_fn(void *arg)
{
	struct helper *h = arg;
	unsigned char *buf = malloc(65536);
	struct pollfd p = { .fd = h->fd, .events = POLLIN };
	struct ketw_session_ref ref;
	long ret = 0;
	int i;

	switch (h->what) {
	case H_READ:
		ret = read(h->fd, buf, 65536);
		break;
	case H_POLL:
		ret = poll(&p, 1, 300);
		break;
	case H_ATTACH:
		for (i = 0; i < 50 && !atomic_load(&F.k.stop); i++) {
			memset(&ref, 0, sizeof(ref));
			snprintf(ref.name, sizeof(ref.name), "%s", i & 1 ? h->a : h->b);
			ret = ioctl(h->fd, KETW_IOC_ATTACH, &ref);
		}
		break;
	case H_READ_NB:
		for (i = 0; i < 50 && !atomic_load(&F.k.stop); i++)
			ret = read(h->fd, buf, 65536);
		break;
	}
	atomic_store(&h->err, errno);
	free(buf);
	atomic_store(&h->ret, ret);
	atomic_store(&h->done, 1);
	return NULL;
}

static int helper_start(struct kfuzz_thread *t, struct helper *h, int fd, int what)
{
	static const char *const names[] = { "read()", "poll()", "ATTACH x50",
					     "read() x50" };

	memset(h, 0, sizeof(*h));
	h->t = t;
	h->fd = fd;
	h->what = what;
	h->a = session_names[0];
	h->b = session_names[1];
	kfuzz_begin(K, t, "[helper] %s on %d, racing with what follows", names[what], fd);
	kfuzz_end(K, t, 0, 0);
	return pthread_create(&h->th, NULL, helper_fn, h);
}

/* Interrupt the helper until it returns; a hang is the watchdog's. */
static void helper_join(struct kfuzz_thread *t, struct helper *h)
{
	kfuzz_begin(K, t, "[helper] join");
	while (!atomic_load(&h->done)) {
		pthread_kill(h->th, SIGUSR2);
		usleep(20000);
	}
	pthread_join(h->th, NULL);
	errno = atomic_load(&h->err);
	kfuzz_end(K, t, atomic_load(&h->ret), errno);
}

/* A new file attached to a new running session @name (of @policy). */
static int session_file(struct kfuzz_thread *t, const char *name, uint32_t policy,
			int flags)
{
	int fd = CALL(t, open(KETW_DEVICE, O_RDWR | O_CLOEXEC | flags), "open(%s)",
		      KETW_DEVICE);

	if (fd < 0)
		return -1;
	ref_ioctl(t, fd, KETW_IOC_DESTROY, name, "DESTROY");
	if (create_session(t, fd, name, policy, 16, KETW_SESSION_NO_RUNDOWN) ||
	    ref_ioctl(t, fd, KETW_IOC_START, name, "START")) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A blocked read() or poll() while the same file changes session or goes. */
static void scen_wait_vs_control(struct kfuzz_thread *t)
{
	const char *a = session_names[kfuzz_below(R(t), 4)];
	const char *b = session_names[kfuzz_below(R(t), 4)];
	int fd = session_file(t, a, 1 + kfuzz_below(R(t), 3), 0), what;
	struct helper h;
	void *p;

	if (fd < 0)
		return;
	if (helper_start(t, &h, fd, kfuzz_pct(R(t), 60) ? H_READ : H_POLL))
		goto out;
	usleep(kfuzz_below(R(t), 30000));
	what = kfuzz_below(R(t), 6);
	switch (what) {
	case 0:
		ref_ioctl(t, fd, KETW_IOC_DESTROY, a, "DESTROY");
		break;
	case 1:
		ref_ioctl(t, fd, KETW_IOC_ATTACH, b, "ATTACH");
		break;
	case 2:
		create_session(t, fd, b, 0, 4, KETW_SESSION_NO_RUNDOWN);
		break;
	case 3:
		ref_ioctl(t, fd, KETW_IOC_STOP, a, "STOP");
		break;
	case 4:
		p = (void *)CALL(t, mmap(NULL, 16384, PROT_READ, MAP_SHARED, fd,
					 F.page), "mmap(%d, data cpu 0)", fd);
		if (p != MAP_FAILED)
			munmap(p, 16384);
		break;
	default:
		ref_ioctl(t, fd, KETW_IOC_DESTROY, a, "DESTROY");
		ref_ioctl(t, fd, KETW_IOC_ATTACH, b, "ATTACH");
	}
	helper_join(t, &h);
out:
	CALL(t, close(fd), "close(%d)", fd);
}

/* Two threads ATTACH one file to two sessions, over and over. */
static void scen_attach_race(struct kfuzz_thread *t)
{
	int fd0, fd1, fd, i;
	struct helper h;

	fd0 = session_file(t, session_names[0], KETW_POLICY_LOOP, 0);
	fd1 = session_file(t, session_names[1], KETW_POLICY_FLUSH, 0);
	fd = CALL(t, open(KETW_DEVICE, O_RDWR | O_CLOEXEC), "open(%s)", KETW_DEVICE);
	if (fd >= 0 && !helper_start(t, &h, fd, H_ATTACH)) {
		for (i = 0; i < 50; i++)
			ref_ioctl(t, fd, KETW_IOC_ATTACH, session_names[i & 1], "ATTACH");
		helper_join(t, &h);
	}
	if (fd >= 0)
		CALL(t, close(fd), "close(%d)", fd);
	if (fd0 >= 0)
		close(fd0);
	if (fd1 >= 0)
		close(fd1);
}

/*
 * A reader position (oldest in LOOP, consumed otherwise) where no record
 * starts, then read(): the kernel must not trust it.
 */
static void scen_hostile_position(struct kfuzz_thread *t)
{
	uint32_t policy = 1 + kfuzz_below(R(t), 3);
	const char *name = session_names[kfuzz_below(R(t), 4)];
	int fd = session_file(t, name, policy, O_NONBLOCK), i;
	struct ketw_meta_page *mp;
	unsigned char *buf = Z(t)->scratch.base;
	uint32_t v;

	if (fd < 0)
		return;
	CALL(t, emit(F.emit_fd, 50), "ketw_sample emit=50");
	mp = (void *)CALL(t, mmap(NULL, F.page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				  KETW_MMAP_CPU(0)), "mmap(%d, meta cpu 0)", fd);
	if (mp == MAP_FAILED)
		goto out;
	for (i = 0; i < 4; i++) {
		v = meta_value(t, mp);
		kfuzz_begin(K, t, "meta %p: %s = %#x (commit %u)", (void *)mp,
			    policy == KETW_POLICY_LOOP ? "oldest" : "consumed", v, mp->commit);
		__atomic_store_n(policy == KETW_POLICY_LOOP ? &mp->oldest : &mp->consumed,
				 v, __ATOMIC_RELEASE);
		kfuzz_end(K, t, 0, 0);
		if (kfuzz_pct(R(t), 50))
			CALL(t, emit(F.emit_fd, 20), "ketw_sample emit=20");
		CALL(t, read(fd, buf, 65536), "read(%d, 65536)", fd);
	}
	munmap(mp, F.page);
out:
	CALL(t, close(fd), "close(%d)", fd);
}

/* read() against mapping the data area, on one file. */
static void scen_read_vs_mmap(struct kfuzz_thread *t)
{
	int fd = session_file(t, session_names[kfuzz_below(R(t), 4)],
			      1 + kfuzz_below(R(t), 3), O_NONBLOCK), i;
	struct helper h;
	void *p;

	if (fd < 0)
		return;
	if (!helper_start(t, &h, fd, H_READ_NB)) {
		for (i = 0; i < 20; i++) {
			p = (void *)CALL(t, mmap(NULL, 16384, PROT_READ, MAP_SHARED, fd,
						 F.page), "mmap(%d, data cpu 0)", fd);
			if (p != MAP_FAILED)
				munmap(p, 16384);
		}
		helper_join(t, &h);
	}
	CALL(t, close(fd), "close(%d)", fd);
}

/*
 * epoll waits on a file's session; the file moves to another session and
 * the first is destroyed; then the epoll entry goes.
 */
static void scen_epoll_switch(struct kfuzz_thread *t)
{
	const char *a = session_names[0], *b = session_names[1];
	struct epoll_event ev = { .events = EPOLLIN };
	int fd, ep, ctl;

	fd = session_file(t, a, KETW_POLICY_LOOP, O_NONBLOCK);
	if (fd < 0)
		return;
	ep = CALL(t, epoll_create1(EPOLL_CLOEXEC), "epoll_create1()");
	ctl = CALL(t, open(KETW_DEVICE, O_RDWR | O_CLOEXEC), "open(%s)", KETW_DEVICE);
	if (ep < 0 || ctl < 0)
		goto out;
	CALL(t, epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev), "epoll_ctl(%d, ADD, %d)", ep, fd);
	ref_ioctl(t, ctl, KETW_IOC_DESTROY, b, "DESTROY");
	if (kfuzz_pct(R(t), 50))
		create_session(t, fd, b, 0, 4, KETW_SESSION_NO_RUNDOWN);
	else if (!create_session(t, ctl, b, 0, 4, KETW_SESSION_NO_RUNDOWN))
		ref_ioctl(t, fd, KETW_IOC_ATTACH, b, "ATTACH");
	ref_ioctl(t, ctl, KETW_IOC_DESTROY, a, "DESTROY");
	CALL(t, emit(F.emit_fd, 5), "ketw_sample emit=5");
	CALL(t, epoll_wait(ep, &ev, 1, 10), "epoll_wait(%d)", ep);
	if (kfuzz_pct(R(t), 50))
		CALL(t, epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL), "epoll_ctl(%d, DEL, %d)", ep, fd);
out:
	if (ep >= 0)
		CALL(t, close(ep), "close(epoll %d)", ep);
	if (ctl >= 0)
		close(ctl);
	CALL(t, close(fd), "close(%d)", fd);
}

/*
 * A process killed while it sleeps in the kernel: in read(), poll(),
 * epoll_wait() or FLUSH of its own session, with a mapping or not.
 */
static void scen_kill_sleeper(struct kfuzz_thread *t)
{
	const char *name = session_names[kfuzz_below(R(t), 4)];
	unsigned int what = kfuzz_below(R(t), 4), ms = kfuzz_below(R(t), 100);
	int map = kfuzz_pct(R(t), 50), status;
	pid_t pid;

	pid = fork();
	if (!pid) {
		struct epoll_event ev = { .events = EPOLLIN };
		struct pollfd p;
		int fd, ep;

		child_setup();
		fd = session_file(t, name, KETW_POLICY_FLUSH, 0);
		if (fd < 0)
			_exit(0);
		if (map)
			mmap(NULL, F.page, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			     KETW_MMAP_CPU(0));
		switch (what) {
		case 0:
			CALL(t, read(fd, Z(t)->scratch.base, 65536), "read(%d) until killed", fd);
			break;
		case 1:
			p.fd = fd;
			p.events = POLLIN;
			CALL(t, poll(&p, 1, -1), "poll(%d) until killed", fd);
			break;
		case 2:
			ep = epoll_create1(0);
			epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
			CALL(t, epoll_wait(ep, &ev, 1, -1), "epoll_wait(%d) until killed", fd);
			break;
		default:
			emit(F.emit_fd, 20);
			ref_ioctl(t, fd, KETW_IOC_FLUSH, name, "FLUSH until killed");
		}
		_exit(0);
	}
	if (pid < 0)
		return;
	usleep(ms * 1000);
	kill(pid, SIGKILL);
	status = reap(t, pid);
	kfuzz_begin(K, t, "fork() = %d, killed after %u ms, reaped", pid, ms);
	kfuzz_end(K, t, status, 0);
}

static void op_scenario(struct kfuzz_thread *t)
{
	switch (kfuzz_below(R(t), 6)) {
	case 5:
		scen_kill_sleeper(t);
		break;
	case 0:
		if (!F.avoid_fdrace)
			scen_wait_vs_control(t);
		break;
	case 1:
		if (!F.avoid_fdrace)
			scen_attach_race(t);
		break;
	case 2:
		if (!F.avoid_meta)
			scen_hostile_position(t);
		break;
	case 3:
		if (!F.avoid_fdrace)
			scen_read_vs_mmap(t);
		break;
	default:
		if (!F.avoid_epoll)
			scen_epoll_switch(t);
	}
}

/* ---- the random phase --------------------------------------------------- */

static const struct {
	void (*fn)(struct kfuzz_thread *t);
	const char *name;
	unsigned int weight;
} ops[] = {
	{ op_open, "open", 6 },		{ op_close, "close", 3 },
	{ op_dup, "dup", 2 },		{ op_fcntl, "fcntl", 1 },
	{ op_uopen, "uopen", 2 },	{ op_ioctl, "ioctl", 16 },
	{ op_uwritev, "uwritev", 4 },
	{ op_session, "session", 16 },	{ op_badcmd, "badcmd", 3 },
	{ op_read, "read", 10 },	{ op_poll, "poll", 4 },
	{ op_epoll, "epoll", 3 },	{ op_mmap, "mmap", 8 },
	{ op_munmap, "munmap", 4 },	{ op_mprotect, "mprotect", 2 },
	{ op_mremap, "mremap", 2 },	{ op_madvise, "madvise", 1 },
	{ op_scribble, "scribble", 8 },	{ op_consume, "consume", 4 },
	{ op_emit, "emit", 8 },		{ op_param, "param", 1 },
	{ op_fork, "fork", 1 },		{ op_user_child, "user", 1 },
	{ op_scenario, "race", 2 },
};
#define NR_OPS (sizeof(ops) / sizeof(ops[0]))

static _Atomic unsigned long op_count[NR_OPS];

static unsigned int pick_op(struct kfuzz_thread *t)
{
	unsigned int i, total = 0, n;

	for (i = 0; i < NR_OPS; i++)
		total += ops[i].weight;
	n = kfuzz_below(R(t), total);
	for (i = 0; n >= ops[i].weight; i++)
		n -= ops[i].weight;
	return i;
}

static void *worker(void *arg)
{
	struct kfuzz_thread *t = arg;
	uint64_t iters = kfuzz_env("KETW_FUZZ_ITERS", 0);
	unsigned int op;

	kfuzz_timer_init(t);
	while (!atomic_load(&F.k.stop) && kfuzz_now_ms() < F.k.deadline &&
	       (!iters || t->ops < iters)) {
		op = pick_op(t);
		atomic_fetch_add(&op_count[op], 1);
		/* Nothing blocks for long: a signal ends any wait. */
		kfuzz_arm(t, 100 + kfuzz_below(R(t), 300));
		ops[op].fn(t);
		kfuzz_disarm(t);
	}
	return NULL;
}

static int open_param(const char *path)
{
	return open(path, O_WRONLY | O_CLOEXEC);
}

/* Every writable parameter of ketw, whatever it is, and its value now. */
static void params_open(void)
{
	struct dirent *de;
	struct stat st;
	char path[128];
	DIR *d = opendir(PARAMS_DIR);
	int fd, n;

	while (d && (de = readdir(d)) && F.nr_params < MAX_PARAMS) {
		struct fzparam *pm = &F.params[F.nr_params];

		snprintf(path, sizeof(path), PARAMS_DIR "/%.48s", de->d_name);
		if (de->d_name[0] == '.' || stat(path, &st) || !(st.st_mode & S_IWUSR) ||
		    strlen(de->d_name) >= sizeof(pm->name))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : read(fd, pm->orig, sizeof(pm->orig) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0)
			continue;
		pm->orig[strcspn(pm->orig, "\n")] = 0;
		pm->fd = open_param(path);
		if (pm->fd < 0)
			continue;
		snprintf(pm->name, sizeof(pm->name), "%s", de->d_name);
		F.nr_params++;
	}
	if (d)
		closedir(d);
}

/* Save the parameters' values, for params_restore() in another process. */
static void params_save(void)
{
	FILE *f = fopen(PARAMS_SAVED, "w");
	unsigned int i;

	for (i = 0; f && i < F.nr_params; i++)
		fprintf(f, "%s %s\n", F.params[i].name, F.params[i].orig);
	if (f)
		fclose(f);
}

/* Put back what params_save() saved; 0 if nothing was saved. */
static int params_restore(void)
{
	char name[64], val[64], path[160];
	FILE *f = fopen(PARAMS_SAVED, "r");
	int n = 0;

	while (f && fscanf(f, "%63s %63s", name, val) == 2) {
		snprintf(path, sizeof(path), PARAMS_DIR "/%s", name);
		write_str(path, val);
		n++;
	}
	if (f) {
		fclose(f);
		unlink(PARAMS_SAVED);
	}
	return n;
}

/* Shared state, and the per-thread areas; 0 or -errno. */
static int fz_init(unsigned int def_seconds)
{
	unsigned int i;
	int err;

	err = kfuzz_init(K, def_seconds);
	if (err)
		return err;
	F.page = sysconf(_SC_PAGESIZE);
	F.nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	F.avoid_fdrace = kfuzz_avoid("fdrace");
	F.avoid_meta = kfuzz_avoid("meta");
	F.avoid_epoll = kfuzz_avoid("epoll");
	F.avoid_stress = kfuzz_avoid("stress");
	F.meta_st = find_struct("ketw_meta_page");
	pthread_mutex_init(&F.maps_lock, NULL);
	for (i = 0; i < NR_SLOTS; i++) {
		F.slot[i] = -1;
		pthread_rwlock_init(&F.fdlock[i], NULL);
	}
	for (i = 0; i < NR_USLOTS; i++)
		F.uslot[i] = -1;
	for (i = 0; i < NR_EPOLL; i++)
		F.epfd[i] = -1;
	/* Kept open: no helper open() reuses a number a thread still holds. */
	F.emit_fd = open_param(SAMPLE_PARAM("emit"));
	F.warn_fd = open_param(SAMPLE_PARAM("emit_warn"));
	F.stress_fd = open_param(PARAM("ketw_stress", "run_ms"));
	if (F.emit_fd < 0 || F.warn_fd < 0)
		return -errno;
	params_open();
	for (i = 0; i <= K->nr_threads; i++) {
		struct fzt *z = calloc(1, sizeof(*z));

		if (!z || kfuzz_area_init(&z->arg, 2 * F.page) ||
		    kfuzz_area_init(&z->scratch, SCRATCH_LEN))
			return -ENOMEM;
		K->threads[i].priv = z;
	}
	err = kfuzz_signals_init();
	if (err)
		return err;
	kfuzz_crash_init(K);
	return kfuzz_timer_init(&K->threads[K->nr_threads]);
}

static void print_seed(const char *what)
{
	kfuzz_log(K, "seed=%" PRIu64 " seconds=%u threads=%u avoid='%s' (%s)", K->seed,
		  K->seconds, K->nr_threads, getenv("KETW_FUZZ_AVOID") ?: "", what);
	kfuzz_log(K, "replay: KETW_FUZZ_SEED=%" PRIu64 " (make fuzz-kernel KETW_FUZZ_SEED=%" PRIu64 ")",
		  K->seed, K->seed);
}

/* ---- the tests ---------------------------------------------------------- */

/*
 * Every ioctl of the table, one call per case, on /dev/ketw and
 * /dev/ketw_user: the size contract of extensible structs, truncated and
 * bad pointers (EFAULT), and the commands around it (ENOTTY).
 */
TEST(contracts)
{
	struct kfuzz_thread *t;
	unsigned int i, j, v, bad = 0;
	int fds[2];

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ASSERT_EQ(0, fz_init(0));
	t = &K->threads[0];
	print_seed("contracts");
	ASSERT_LT(0, KFUZZ_NR_IOCTLS);
	fds[0] = ketw_open();
	fds[1] = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fds[0]);
	ASSERT_LE(0, fds[1]);
	for (i = 0; i < KFUZZ_NR_IOCTLS; i++) {
		const struct kfuzz_ioctl *io = &kfuzz_ioctls[i];
		const struct kfuzz_struct *st = io->st;
		struct built b;
		long ret;

		/* The table agrees with the header's encoding. */
		EXPECT_EQ(KETW_IOC_MAGIC, _IOC_TYPE(io->cmd)) TH_LOG("%s", io->name);
		if (st)
			EXPECT_EQ(st->size, _IOC_SIZE(io->cmd)) TH_LOG("%s", io->name);
		for (j = 0; j < 2; j++) {
			int user_only = j == 1 && !is_user_cmd(io->cmd);

			/* Size games: every value of size_game(), both tails. */
			for (v = 0; st && st->sized && v < 36; v++) {
				build_arg(t, st, 0, PLACE_OK, &b);
				mutate_field(t, st, kfuzz_size_field(st), b.arg,
					     &b);
				b.mutated = 0;
				if (b.usize > st->size && b.usize <= F.page && (v & 1)) {
					((unsigned char *)b.arg)[b.usize - 1] = 0x5a;
					b.tail_nonzero = 1;
				}
				ret = do_ioctl(t, fds[j], -1, io, &b);
				if (user_only && (ret >= 0 || errno != ENOTTY))
					kfuzz_fail(K, t, "%s on %s: not ENOTTY", io->name,
						   KETW_USER_DEVICE);
			}
			/*
			 * Cut short by the guard page, or nowhere at all.
			 * USER_WRITEV reads nothing on a file without a
			 * registration (ENODEV), nor while no session takes
			 * the provider the table's USER_REGISTER made (0).
			 */
			for (v = 0; st && v < 8; v++) {
				int want = user_only ? ENOTTY : EFAULT;

				build_arg(t, st, 0, v < 4 ? PLACE_STRADDLE : PLACE_BAD, &b);
				ret = do_ioctl(t, fds[j], -1, io, &b);
				if (io->cmd == KETW_IOC_USER_WRITEV &&
				    (ret == 0 || (ret < 0 && errno == ENODEV)))
					continue;
				if (ret >= 0 || errno != want)
					kfuzz_fail(K, t, "%s with a bad pointer: %ld %s", io->name,
						   ret, strerrorname_np(errno));
			}
		}
		/* Neighbours of the command: never a command. */
		for (v = 0; v < 40; v++) {
			unsigned long cmd = near_cmd(&t->rng, io->cmd);

			if (find_ioctl(cmd))
				continue;
			for (j = 0; j < 2; j++) {
				ret = CALL(t, ioctl(fds[j], cmd, Z(t)->arg.base),
					   "ioctl(%d, %#lx near %s)", fds[j], cmd, io->name);
				if (ret >= 0 || errno != ENOTTY) {
					kfuzz_fail(K, t, "ioctl %#lx (near %s): %ld %s, want ENOTTY",
						   cmd, io->name, ret, strerrorname_np(errno));
					bad++;
				}
			}
		}
	}
	close(fds[0]);
	close(fds[1]);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(0, atomic_load(&K->failures));
}

static int create_attr(int fd, struct ketw_session_attr *a)
{
	return ioctl(fd, KETW_IOC_CREATE, a) ? -errno : 0;
}

/* Attributes at and around their bounds, the session limit, lengths. */
TEST(limits)
{
	static const struct {
		const char *what;
		size_t off;
		uint32_t value;
		int ok;
	} cases[] = {
#define C(f, v, ok) { #f "=" #v, offsetof(struct ketw_session_attr, f), v, ok }
		C(buffer_kb, 0, 1), C(buffer_kb, 1, 0), C(buffer_kb, 3, 0),
		C(buffer_kb, KETW_BUFFER_KB_MIN, 1), C(buffer_kb, 5, 1),
		C(buffer_kb, KETW_BUFFER_KB_MAX + 1, 0), C(buffer_kb, 0xffffffff, 0),
		C(policy, 0, 1), C(policy, KETW_POLICY_FLUSH, 1),
		C(policy, KETW_POLICY_FLUSH + 1, 0), C(clock, KETW_CLOCK_LOCAL, 1),
		C(clock, KETW_CLOCK_LOCAL + 1, 0), C(level, KETW_LEVEL_VERBOSE, 1),
		C(level, KETW_LEVEL_VERBOSE + 1, 0), C(watermark, 100, 1),
		C(watermark, 101, 0), C(max_data_size, 1, 1),
		C(max_data_size, KETW_MAX_DATA_SIZE, 1),
		C(max_data_size, KETW_MAX_DATA_SIZE + 1, 0),
		C(max_data_size, 0xffffffff, 0), C(flags, KETW_SESSION_FLAGS + 1, 0),
		C(flags, KETW_SESSION_OWNED, 1),
		C(ext_items, 1, 0), C(ext_items, KETW_EXT_ALL, 1), C(state, 7, 1), C(nr_cpus, 0xffffffff, 1),
#undef C
	};
	struct ketw_session_attr a;
	struct ketw_user_event ue;
	struct ketw_session_ref ref;
	struct kfuzz_thread *t;
	char name[KETW_NAME_MAX];
	unsigned char *buf;
	volatile size_t huge = SIZE_MAX;
	struct sysinfo si;
	int fd, ufd, n, err;
	unsigned int i;
	long ret;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ASSERT_EQ(0, fz_init(0));
	t = &K->threads[0];
	buf = Z(t)->scratch.base;
	fd = ketw_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < NR_SESSION_NAMES; i++)
		ketw_ref(fd, KETW_IOC_DESTROY, session_names[i]);

	/* Each bound, with a small buffer unless it is the buffer. */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ketw_attr_init(&a, "kfz0");
		a.buffer_kb = 256;	/* room for the largest payload */
		memcpy((char *)&a + cases[i].off, &cases[i].value, 4);
		err = create_attr(fd, &a);
		EXPECT_EQ(cases[i].ok ? 0 : -EINVAL, err) TH_LOG("%s", cases[i].what);
		if (!err)
			EXPECT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, "kfz0"));
	}
	/* The largest buffer, if the guest can afford one per CPU. */
	ASSERT_EQ(0, sysinfo(&si));
	ketw_attr_init(&a, "kfz0");
	a.buffer_kb = KETW_BUFFER_KB_MAX;
	if ((uint64_t)si.totalram * si.mem_unit / 4 > (uint64_t)KETW_BUFFER_KB_MAX * 1024 * F.nr_cpus) {
		EXPECT_EQ(0, create_attr(fd, &a));
		ketw_ref(fd, KETW_IOC_DESTROY, "kfz0");
	} else {
		kfuzz_log(K, "limits: no %u KiB buffers: %lu MiB of memory",
			  KETW_BUFFER_KB_MAX, si.totalram * si.mem_unit >> 20);
	}

	/* Names: KETW_NAME_MAX - 1 characters, and one more (no NUL). */
	ketw_attr_init(&a, "x");
	memset(a.name, 'n', KETW_NAME_MAX);
	EXPECT_EQ(-EINVAL, create_attr(fd, &a));
	memset(ref.name, 'n', KETW_NAME_MAX);
	EXPECT_EQ(-1, ioctl(fd, KETW_IOC_START, &ref));
	EXPECT_EQ(EINVAL, errno);
	ketw_attr_init(&a, LONG_NAME);
	a.buffer_kb = 4;
	EXPECT_EQ(0, create_attr(fd, &a));
	EXPECT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, LONG_NAME));

	/* KETW_MAX_SESSIONS, counting what exists already. */
	for (n = 0; n <= MAX_SESSIONS; n++) {
		snprintf(name, sizeof(name), MAX_NAME "%d", n);
		ketw_attr_init(&a, name);
		a.buffer_kb = 4;
		err = create_attr(fd, &a);
		if (err)
			break;
	}
	EXPECT_EQ(-ENOSPC, err) TH_LOG("session %d: %s", n, strerror(-err));
	EXPECT_GE(MAX_SESSIONS, n);
	EXPECT_LE(MAX_SESSIONS - 8, n) TH_LOG("only %d sessions", n);
	while (n--) {
		snprintf(name, sizeof(name), MAX_NAME "%d", n);
		EXPECT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, name));
	}

	/* read() lengths around the records, into odd places. */
	close(fd);
	fd = open(KETW_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pin_cpu(0));
	ketw_attr_init(&a, "kfz0");
	a.buffer_kb = 64;
	ASSERT_EQ(0, session_start(fd, &a));
	ASSERT_EQ(0, emit(F.emit_fd, 100));
	EXPECT_EQ(0, read(fd, buf, 0));
	EXPECT_EQ(-1, read(fd, buf, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, read(fd, buf, KETW_EVENT_HEADER_SIZE - 1));
	EXPECT_EQ(EINVAL, errno);
	/* START's record is exactly a header and its payload. */
	ret = read(fd, buf + 3, KETW_EVENT_HEADER_SIZE + sizeof(struct ketw_sys_start));
	EXPECT_EQ(KETW_EVENT_HEADER_SIZE + sizeof(struct ketw_sys_start), ret);
	ret = read(fd, kfuzz_area_end(&Z(t)->scratch) - 100, 4096);
	EXPECT_TRUE(ret > 0 || errno == EFAULT) TH_LOG("%ld %s", ret, strerror(errno));
	EXPECT_EQ(-1, read(fd, Z(t)->scratch.ro, 4096));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, read(fd, (void *)0xffff888000000000ull, 4096));
	EXPECT_EQ(EFAULT, errno);
	ret = read(fd, buf + 5, huge);
	EXPECT_TRUE(ret > 0 || errno == EFAULT) TH_LOG("%ld %s", ret, strerror(errno));
	ret = read(fd, buf, SCRATCH_LEN);
	if (ret > 0)
		check_records(t, buf, SCRATCH_LEN, ret);

	/* Payload lengths through /dev/ketw_user. */
	ufd = open(KETW_USER_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, ufd);
	{
		struct ketw_user_provider up;

		memset(&up, 0, sizeof(up));
		up.size = sizeof(up);
		memcpy(up.guid, "kfzuser-guid-000", KETW_GUID_SIZE);
		snprintf(up.name, sizeof(up.name), "kfz-user0");
		ASSERT_EQ(0, ioctl(ufd, KETW_IOC_USER_REGISTER, &up));
	}
	memset(&ue, 0, sizeof(ue));
	ue.size = sizeof(ue);
	ue.data = (uintptr_t)buf;
	ue.len = KETW_MAX_DATA_SIZE;
	EXPECT_LE(0, ioctl(ufd, KETW_IOC_USER_WRITE, &ue));
	ue.len = KETW_MAX_DATA_SIZE + 1;
	EXPECT_EQ(-1, ioctl(ufd, KETW_IOC_USER_WRITE, &ue));
	EXPECT_EQ(EINVAL, errno);
	ue.len = 0;
	ue.data = 0;
	EXPECT_LE(0, ioctl(ufd, KETW_IOC_USER_WRITE, &ue));
	ue.len = 300;
	ue.data = (uintptr_t)(kfuzz_area_end(&Z(t)->scratch) - 100);
	EXPECT_EQ(-1, ioctl(ufd, KETW_IOC_USER_WRITE, &ue));
	EXPECT_EQ(EFAULT, errno);
	ue.data = 0xffff888000000000ull;
	EXPECT_EQ(-1, ioctl(ufd, KETW_IOC_USER_WRITE, &ue));
	EXPECT_EQ(EFAULT, errno);
	/* The same through USER_WRITEV, the provider taken by kfz0. */
	EXPECT_EQ(0, ketw_enable(fd, "kfz0", KETW_USER_PREFIX "kfz-user0", NULL,
				 0, 0, 0, NULL, 0, 0));
	{
		struct iovec iov[2] = {
			{ .iov_base = buf, .iov_len = KETW_MAX_DATA_SIZE },
			{ .iov_base = buf, .iov_len = 1 },
		};
		struct ketw_user_writev w;

		memset(&w, 0, sizeof(w));
		w.iov = (uintptr_t)iov;
		w.iovcnt = 1;
		EXPECT_LE(1, ioctl(ufd, KETW_IOC_USER_WRITEV, &w));
		w.iovcnt = 2;
		EXPECT_EQ(-1, ioctl(ufd, KETW_IOC_USER_WRITEV, &w));
		EXPECT_EQ(EINVAL, errno);
		w.iovcnt = 0;
		EXPECT_LE(1, ioctl(ufd, KETW_IOC_USER_WRITEV, &w));
		iov[0].iov_base = kfuzz_area_end(&Z(t)->scratch) - 100;
		iov[0].iov_len = 300;
		w.iovcnt = 1;
		EXPECT_EQ(-1, ioctl(ufd, KETW_IOC_USER_WRITEV, &w));
		EXPECT_EQ(EFAULT, errno);
		iov[0].iov_base = (void *)0xffff888000000000ull;
		EXPECT_EQ(-1, ioctl(ufd, KETW_IOC_USER_WRITEV, &w));
		EXPECT_EQ(EFAULT, errno);
		w.iovcnt = KETW_USER_IOV_MAX + 1;
		EXPECT_EQ(-1, ioctl(ufd, KETW_IOC_USER_WRITEV, &w));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(-1, ioctl(ufd, KETW_IOC_USER_WRITEV,
				    kfuzz_area_end(&Z(t)->arg) - 8));
		EXPECT_EQ(EFAULT, errno);
	}
	close(ufd);
	EXPECT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, "kfz0"));
	close(fd);
	EXPECT_EQ(0, atomic_load(&K->failures));
}

/*
 * A running session that enables the sample and stress providers and
 * takes none of their events (level 1; theirs are 3 and 4), so their
 * static branches stay on while the threads start and stop sessions: as
 * stress_test found, QEMU's multi-threaded TCG can leave a vCPU running
 * a stale translation of a call site the kernel is patching (the int3 of
 * text_poke_bp), trapping for ever at a site memory already holds as
 * patched. The guest then hangs in the emulator, not in ketw (the same
 * runs pass with -accel tcg,thread=single). KETW_FUZZ_KEEPER=0 goes
 * without it. Returns its file, or -1.
 */
static int start_keeper(void)
{
	static const char *const provs[] = { KETW_SAMPLE_NAME, KETW_STRESS_NAME };
	struct ketw_session_attr a;
	unsigned int i;
	int fd = ketw_open();

	if (fd < 0)
		return -1;
	ketw_ref(fd, KETW_IOC_DESTROY, KEEPER_NAME);
	ketw_attr_init(&a, KEEPER_NAME);
	a.buffer_kb = 16;
	if (ioctl(fd, KETW_IOC_CREATE, &a))
		goto fail;
	for (i = 0; i < sizeof(provs) / sizeof(provs[0]); i++)
		if (ketw_enable(fd, KEEPER_NAME, provs[i], NULL, KETW_LEVEL_CRITICAL,
				0, 0, NULL, 0, 0))
			goto fail;
	if (!ketw_ref(fd, KETW_IOC_START, KEEPER_NAME))
		return fd;
fail:
	kfuzz_log(K, "no keeper session: %s", strerror(errno));
	ketw_ref(fd, KETW_IOC_DESTROY, KEEPER_NAME);
	close(fd);
	return -1;
}

/* Everything at once, from KETW_FUZZ_THREADS threads; see the top. */
TEST(fuzz_random)
{
	pthread_t th[64];
	long long stress_period;
	struct kfuzz_thread *self;
	int keeper;
	struct timespec ts;
	unsigned int i;
	int stuck = 0;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	ASSERT_EQ(0, fz_init(SECONDS_DEFAULT));
	self = &K->threads[K->nr_threads];
	print_seed("fuzz_random");
	if (kfuzz_kmsg_open(K))
		kfuzz_log(K, "cannot read /dev/kmsg: %s", strerror(errno));
	params_save();
	ASSERT_EQ(0, write_str(PARAM("ketw", "user_gid"), "4242"));
	/* ketw_stress's timers every 5 ms, not 1: CPU time for the calls. */
	stress_period = read_ll(PARAM("ketw_stress", "period_us"));
	write_str(PARAM("ketw_stress", "period_us"), "5000");
	keeper = kfuzz_env("KETW_FUZZ_KEEPER", 1) ? start_keeper() : -1;
	K->deadline = kfuzz_now_ms() + K->seconds * 1000ull;
	for (i = 0; i < K->nr_threads; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker, &K->threads[i]));
	while (!atomic_load(&K->stop)) {
		usleep(200000);
		kfuzz_kmsg_check(K);
		kfuzz_watchdog(K);
		if (kfuzz_now_ms() >= K->deadline)
			atomic_store(&K->stop, 1);
	}
	for (i = 0; i < K->nr_threads; i++) {
		for (;;) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			if (!pthread_timedjoin_np(th[i], NULL, &ts))
				break;
			kfuzz_kmsg_check(K);
			if (!stuck && kfuzz_watchdog(K))
				stuck = 1;
			if (stuck) {
				/* A thread the kernel keeps: say so, and go. */
				kfuzz_log(K, "giving up on thread %u", i);
				fflush(stdout);
				_exit(KSFT_FAIL);
			}
		}
	}
	usleep(500000);
	kfuzz_kmsg_check(K);
	kfuzz_begin(K, self, "done");
	kfuzz_end(K, self, 0, 0);
	{
		char line[1024];
		int n = 0;

		for (i = 0; i < NR_OPS; i++)
			n += snprintf(line + n, sizeof(line) - n, " %s=%lu", ops[i].name,
				      atomic_load(&op_count[i]));
		kfuzz_log(K, "calls:%s", line);
		n = 0;
		for (i = 0; i < KFUZZ_NR_IOCTLS; i++)
			n += snprintf(line + n, sizeof(line) - n, " %s=%lu/%lu",
				      kfuzz_ioctls[i].name + 9, atomic_load(&F.oks[i]),
				      atomic_load(&F.calls[i]));
		kfuzz_log(K, "ioctls ok/called:%s", line);
	}
	if (keeper >= 0) {
		ketw_ref(keeper, KETW_IOC_DESTROY, KEEPER_NAME);
		close(keeper);
	}
	params_restore();
	if (stress_period > 0) {
		char v[24];

		snprintf(v, sizeof(v), "%lld", stress_period);
		write_str(PARAM("ketw_stress", "period_us"), v);
	}
	EXPECT_EQ(0, atomic_load(&K->failures)) TH_LOG("seed %" PRIu64, K->seed);
}

/* A session name from a ketwfs listing; 0 if none is left. */
static int list_sessions(char names[][KETW_NAME_MAX], int max)
{
	const char *mnt = "/tmp/kfuzz_ketwfs";
	struct dirent *de;
	DIR *d;
	int n = 0;

	mkdir(mnt, 0700);
	if (mount("none", mnt, "ketwfs", 0, NULL))
		return -errno;
	d = opendir("/tmp/kfuzz_ketwfs/sessions");
	while (d && (de = readdir(d)) && n < max) {
		size_t len = strnlen(de->d_name, KETW_NAME_MAX - 1);

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		memcpy(names[n], de->d_name, len);
		names[n++][len] = 0;
	}
	if (d)
		closedir(d);
	umount(mnt);
	return n;
}

static void count_tick(const struct ketw_event_header *h, uint32_t *next, int *bad)
{
	const struct ketw_sample_tick *tk = (const void *)(h + 1);

	if (h->event_id != KETW_SAMPLE_EV_TICK)
		return;
	*bad |= tk->magic != KETW_SAMPLE_MAGIC || tk->index != *next ||
		tk->value != (uint64_t)tk->index * 3 + 1;
	(*next)++;
}

/*
 * After the fuzzing: every session can be destroyed, the user providers
 * went with their files, and a new session records and reads back.
 */
TEST(cleanup_and_record)
{
	char listed[MAX_SESSIONS + 8][KETW_NAME_MAX];
	struct ketw_provider_info pi[32];
	const struct ketw_event_header *h;
	struct ketw_session_attr a;
	struct drained d = { 0 };
	struct ketw_list l;
	char name[KETW_NAME_MAX];
	int fd, n, i, err, bad = 0;
	uint32_t next = 0;
	size_t off = 0;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_SAMPLE);

	fd = ketw_open();
	ASSERT_LE(0, fd);
	if (params_restore())
		TH_LOG("fuzz_random left ketw's parameters changed: put back");
	for (i = -1; i < (int)NR_SESSION_NAMES + MAX_SESSIONS; i++) {
		if (i < 0)
			snprintf(name, sizeof(name), "%s", KEEPER_NAME);
		else if (i < (int)NR_SESSION_NAMES)
			snprintf(name, sizeof(name), "%s", session_names[i]);
		else
			snprintf(name, sizeof(name), MAX_NAME "%d", i - (int)NR_SESSION_NAMES);
		err = ketw_ref(fd, KETW_IOC_DESTROY, name) ? errno : 0;
		EXPECT_TRUE(!err || err == ENOENT) TH_LOG("DESTROY %s: %s", name, strerror(err));
	}
	/* Anything else a listing shows (a name the fuzzer did not expect). */
	n = list_sessions(listed, MAX_SESSIONS + 8);
	if (n < 0)
		TH_LOG("no ketwfs listing (%s): checked the fuzzer's names only", strerror(-n));
	for (i = 0; i < n; i++) {
		memcpy(name, listed[i], sizeof(name));
		TH_LOG("session '%s' was left", name);
		err = ketw_ref(fd, KETW_IOC_DESTROY, name) ? errno : 0;
		EXPECT_TRUE(!err || err == ENOENT) TH_LOG("DESTROY %s: %s", name,
							  strerror(err));
	}
	if (n > 0)
		EXPECT_GE(0, list_sessions(listed, MAX_SESSIONS + 8))
			TH_LOG("sessions left after DESTROY");
	for (i = 0; i < (int)NR_SESSION_NAMES; i++) {
		ketw_attr_init(&a, session_names[i]);
		EXPECT_EQ(-1, ioctl(fd, KETW_IOC_GET_ATTR, &a));
		EXPECT_EQ(ENOENT, errno);
	}

	/* No user provider outlived its file. */
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.capacity = 32;
	l.entries = (uintptr_t)pi;
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_PROVIDERS, &l));
	for (i = 0; i < (int)l.count && i < 32; i++)
		EXPECT_EQ(0, pi[i].flags & KETW_PROVIDER_USER)
			TH_LOG("user provider '%s' left", pi[i].name);

	/* A new session records the sample provider and reads it back. */
	ASSERT_EQ(0, pin_cpu(0));
	ketw_attr_init(&a, FINAL_NAME);
	a.buffer_kb = 256;
	ASSERT_EQ(0, session_start(fd, &a));
	ASSERT_EQ(0, sample_emit(500));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, FINAL_NAME));
	ASSERT_EQ(0, drain(fd, &d));
	while ((h = next_record(&d, &off, &bad)))
		if (is_sample(h))
			count_tick(h, &next, &bad);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(500, next);
	EXPECT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, FINAL_NAME));
	free(d.buf);
	close(fd);
}

int main(int argc, char **argv)
{
	/* The random phase's time limit follows its length. */
	_fuzz_random_object.timeout = kfuzz_env("KETW_FUZZ_SECONDS", SECONDS_DEFAULT) +
				      kfuzz_env("KETW_FUZZ_STALL", 10) + 60;
	_limits_object.timeout = 120;
	return test_harness_run(argc, argv);
}
