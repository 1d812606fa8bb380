// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: session control through ioctls on /dev/ketw.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "internal.h"

int ketw_device_open(const char *path, int flags)
{
	int fd;

	fd = open(path ? path : KETW_DEVICE, O_RDONLY | O_CLOEXEC | flags);
	return fd < 0 ? -errno : fd;
}

bool ketw_session_name_valid(const char *name)
{
	size_t i, n = strnlen(name, KETW_NAME_MAX);

	if (n == 0 || n == KETW_NAME_MAX)
		return false;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == '-'))
			return false;
	}
	return true;
}

/* Copy a name into a fixed field; names are checked by the caller. */
static void ketw_name_copy(char dst[KETW_NAME_MAX], const char *name)
{
	memset(dst, 0, KETW_NAME_MAX);
	strncpy(dst, name, KETW_NAME_MAX - 1);
}

void ketw_session_attr_init(struct ketw_session_attr *attr, const char *name)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	ketw_name_copy(attr->name, name);
}

int ketw_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

static int ketw_session_ref_ioctl(int fd, unsigned long cmd, const char *name)
{
	struct ketw_session_ref ref;

	if (!ketw_session_name_valid(name))
		return -EINVAL;
	ketw_name_copy(ref.name, name);
	return ketw_ioctl(fd, cmd, &ref);
}

int ketw_session_create(int fd, struct ketw_session_attr *attr)
{
	if (!ketw_session_name_valid(attr->name))
		return -EINVAL;
	if (!attr->size)
		attr->size = sizeof(*attr);
	return ketw_ioctl(fd, KETW_IOC_CREATE, attr);
}

int ketw_session_start(int fd, const char *name)
{
	return ketw_session_ref_ioctl(fd, KETW_IOC_START, name);
}

int ketw_session_stop(int fd, const char *name)
{
	return ketw_session_ref_ioctl(fd, KETW_IOC_STOP, name);
}

int ketw_session_destroy(int fd, const char *name)
{
	return ketw_session_ref_ioctl(fd, KETW_IOC_DESTROY, name);
}

int ketw_session_attach(int fd, const char *name)
{
	return ketw_session_ref_ioctl(fd, KETW_IOC_ATTACH, name);
}

int ketw_session_get_attr(int fd, const char *name,
			  struct ketw_session_attr *attr)
{
	if (!ketw_session_name_valid(name))
		return -EINVAL;
	ketw_session_attr_init(attr, name);
	return ketw_ioctl(fd, KETW_IOC_GET_ATTR, attr);
}

int ketw_session_get_cpu_stats(int fd, const char *name, unsigned int cpu,
			       struct ketw_cpu_stats *st)
{
	if (!ketw_session_name_valid(name))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->cpu = cpu;
	ketw_name_copy(st->name, name);
	return ketw_ioctl(fd, KETW_IOC_CPU_STATS, st);
}

int ketw_session_get_status(int fd, const char *name,
			    struct ketw_session_status *st)
{
	if (!ketw_session_name_valid(name))
		return -EINVAL;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	ketw_name_copy(st->name, name);
	return ketw_ioctl(fd, KETW_IOC_STATUS, st);
}

static int ketw_sessions_ask(int fd, void *ctx, void *arr, unsigned int cap,
			     unsigned int *count)
{
	struct ketw_session_list l = {
		.size = sizeof(l),
		.capacity = cap,
		.entry_size = sizeof(struct ketw_session_info),
		.entries = (uintptr_t)arr,
	};
	int err;

	(void)ctx;
	err = ketw_ioctl(fd, KETW_IOC_SESSIONS, &l);
	*count = l.count;
	return err;
}

int ketw_sessions_get(int fd, struct ketw_session_info **out,
		      unsigned int *nr)
{
	return ketw_array_get(fd, sizeof(**out), ketw_sessions_ask, NULL,
			      (void **)out, nr);
}

int ketw_session_snapshot(int fd, const char *name, unsigned int cpu,
			  void *buf, size_t len, struct ketw_snapshot *snap)
{
	int err;

	if (!ketw_session_name_valid(name))
		return -EINVAL;
	memset(snap, 0, sizeof(*snap));
	snap->size = sizeof(*snap);
	snap->cpu = cpu;
	ketw_name_copy(snap->name, name);
	snap->buf = (uintptr_t)buf;
	snap->buf_len = len;
	err = ketw_ioctl(fd, KETW_IOC_SNAPSHOT, snap);
	if (!err && snap->len > len)
		return -EPROTO;		/* never trust a length blindly */
	return err;
}

int ketw_session_flush(int fd, const char *name)
{
	return ketw_session_ref_ioctl(fd, KETW_IOC_FLUSH, name);
}

int ketw_trigger_add(int fd, struct ketw_trigger *t)
{
	if (!ketw_session_name_valid(t->session))
		return -EINVAL;
	t->size = sizeof(*t);
	return ketw_ioctl(fd, KETW_IOC_TRIGGER_ADD, t);
}

int ketw_trigger_del(int fd, const char *name, uint32_t id)
{
	struct ketw_trigger t;

	if (!ketw_session_name_valid(name))
		return -EINVAL;
	memset(&t, 0, sizeof(t));
	t.size = sizeof(t);
	ketw_name_copy(t.session, name);
	t.id = id;
	return ketw_ioctl(fd, KETW_IOC_TRIGGER_DEL, &t);
}

int ketw_session_set_pids(int fd, const char *name, const int32_t *pids,
			  uint32_t count, uint32_t flags)
{
	struct ketw_pid_filter pf;

	if (!ketw_session_name_valid(name))
		return -EINVAL;
	memset(&pf, 0, sizeof(pf));
	ketw_name_copy(pf.session, name);
	pf.size = sizeof(pf);
	pf.flags = flags;
	pf.count = count;
	pf.pids = (uintptr_t)pids;
	return ketw_ioctl(fd, KETW_IOC_SET_PIDS, &pf);
}

int ketw_session_get_pids(int fd, const char *name, int32_t *pids,
			  uint32_t capacity, uint32_t *count, uint32_t *flags)
{
	struct ketw_pid_filter pf;
	int err;

	if (!ketw_session_name_valid(name))
		return -EINVAL;
	memset(&pf, 0, sizeof(pf));
	ketw_name_copy(pf.session, name);
	pf.size = sizeof(pf);
	pf.capacity = capacity;
	pf.pids = (uintptr_t)pids;
	err = ketw_ioctl(fd, KETW_IOC_GET_PIDS, &pf);
	if (err)
		return err;
	*count = pf.count;
	*flags = pf.flags;
	return 0;
}
