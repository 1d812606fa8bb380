// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers for the unit tests: records, files, running the CLI.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

const uint8_t test_guid[KETW_GUID_SIZE] = {
	0x6b, 0x65, 0x74, 0x77, 0x73, 0x61, 0x6d, 0x70,
	0x6c, 0x65, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

size_t test_record(void *buf, unsigned int cpu, uint64_t seq, uint64_t ts,
		   uint16_t flags, uint32_t id, const void *payload,
		   size_t len)
{
	struct ketw_event_header h = {
		.size = KETW_EVENT_HEADER_SIZE + len,
		.type = 10,
		.level = KETW_LEVEL_INFO,
		.version = 2,
		.flags = flags,
		.event_id = id,
		.cpu = cpu,
		.thread_id = 1000 + cpu,
		.process_id = 1000,
		.sequence = seq,
		.timestamp = ts,
		.keyword = 0x1,
	};
	unsigned char *p = buf;
	size_t i, span = KETW_RECORD_SPAN(h.size);

	memcpy(h.provider_guid, test_guid, KETW_GUID_SIZE);
	memcpy(p, &h, sizeof(h));
	for (i = 0; i < len; i++)
		p[sizeof(h) + i] = payload ? ((const unsigned char *)payload)[i] :
					     (unsigned char)i;
	memset(p + sizeof(h) + len, 0, span - sizeof(h) - len);
	return span;
}

void test_info(struct ketw_output_info *info, unsigned int nr_cpus)
{
	memset(info, 0, sizeof(*info));
	strcpy(info->session.name, "unit");
	info->session.buffer_kb = 64;
	info->session.policy = KETW_POLICY_UNTIL_FULL;
	info->session.max_data_size = 256;
	info->session.clock = KETW_CLOCK_BOOT;
	info->session.level = KETW_LEVEL_VERBOSE;
	info->session.state = KETW_STATE_SUSPENDED;
	info->session.match_any = 0xf0;
	info->session.match_all = 0x10;
	info->session.creation_time = 1700000000123456789ull;
	info->session.clock_resolution = 1;
	info->session.nr_cpus = nr_cpus;
	info->nr_cpus = nr_cpus;
	info->clock = KETW_CLOCK_BOOT;
	info->creation_time = 1700000001000000000ull;
	strcpy(info->hostname, "testhost");
	strcpy(info->release, "6.1.0-test");
	strcpy(info->machine, "x86_64");
}

int test_write_stream(const char *path)
{
	struct ketw_output_info info;
	struct ketw_cpu_stats st[2];
	struct ketw_output *out;
	_Alignas(8) unsigned char rec[256];
	uint64_t seq[2] = { 0, 0 }, ts = 1000;
	unsigned int round, i, cpu;
	size_t span;
	int err;

	test_info(&info, 2);
	memset(st, 0, sizeof(st));
	for (cpu = 0; cpu < 2; cpu++) {
		st[cpu].cpu = cpu;
		st[cpu].written = 10 + cpu;
		st[cpu].overwritten = 30 + cpu;
	}
	err = ketw_output_create(path, &info, &out);
	if (err)
		return err;
	for (round = 0; !err && round < 4; round++) {
		for (i = 0; !err && i < 3 + round; i++) {
			cpu = (i + round) & 1;
			span = test_record(rec, cpu, seq[cpu]++, ts += 10, 0, 1,
					   NULL, (i * 7) % 40);
			err = ketw_output_add_record(out, cpu, rec, span);
		}
		if (!err)
			err = ketw_output_flush(out);
	}
	if (!err)
		err = ketw_output_add_stats(out, st, NULL, 2);
	if (err) {
		ketw_output_abort(out, path);
		return err;
	}
	return ketw_output_close(out);
}

void *test_slurp(const char *path, size_t *len)
{
	struct stat st;
	void *buf;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		close(fd);
		return NULL;
	}
	buf = malloc(st.st_size + 1);
	if (!buf) {
		close(fd);
		return NULL;
	}
	if (read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		close(fd);
		return NULL;
	}
	((char *)buf)[st.st_size] = '\0';
	*len = st.st_size;
	close(fd);
	return buf;
}

int test_spit(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

static int test_run(const char *const *env, const char *const *argv,
		    char **out, char **err, bool tty);

int test_run_ketw(const char *const *env, const char *const *argv,
		  char **out, char **err)
{
	return test_run(env, argv, out, err, false);
}

int test_run_ketw_tty(const char *const *env, const char *const *argv,
		      char **out, char **err)
{
	return test_run(env, argv, out, err, true);
}

/* Everything the terminal shows until its last user is gone. */
static char *test_pty_drain(int master)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap), *p;
	ssize_t n;

	if (!buf)
		return NULL;
	for (;;) {
		if (cap - len < 1024) {
			p = realloc(buf, cap * 2);
			if (!p)
				break;
			buf = p;
			cap *= 2;
		}
		n = read(master, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;		/* EIO: the child is gone */
		len += n;
	}
	buf[len] = '\0';
	return buf;
}

static int test_run(const char *const *env, const char *const *argv,
		    char **out, char **err, bool tty)
{
	const char *argv_full[32];
	const char *opath = test_path("cli.out"), *epath = test_path("cli.err");
	size_t i, n;
	int status, fd, master = -1;
	const char *slave = NULL;
	pid_t pid;

	argv_full[0] = test_ketw_path;
	for (i = 0; argv[i] && i < 30; i++)
		argv_full[i + 1] = argv[i];
	argv_full[i + 1] = NULL;

	if (tty) {
		master = posix_openpt(O_RDWR | O_NOCTTY);
		if (master >= 0 && !grantpt(master) && !unlockpt(master))
			slave = ptsname(master);
		if (!slave) {
			if (master >= 0)
				close(master);
			return -1;
		}
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(opath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		close(fd);
		if (tty) {
			close(master);
			fd = open(slave, O_RDWR | O_NOCTTY);
		} else {
			fd = open(epath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		}
		if (fd < 0 || dup2(fd, 2) < 0)
			_exit(126);
		close(fd);
		for (i = 0; env && env[i]; i++)
			if (putenv((char *)env[i]))
				_exit(126);
		execv(test_ketw_path, (char *const *)argv_full);
		_exit(127);
	}
	if (tty) {
		*err = test_pty_drain(master);
		close(master);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	*out = test_slurp(opath, &n);
	if (!tty)
		*err = test_slurp(epath, &n);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

const char *test_golden_path(const char *name)
{
	static char path[512];
	const char *slash = strrchr(__FILE__, '/');
	int dir = slash ? (int)(slash - __FILE__) : 1;

	snprintf(path, sizeof(path), "%.*s/golden/%s", dir,
		 slash ? __FILE__ : ".", name);
	return path;
}
