// SPDX-License-Identifier: GPL-2.0
/*
 * ketw module lifetime: loading and unloading ketw.ko and a provider, and
 * what holds them. Runs with both modules loaded and leaves them loaded.
 * KETW_MODDIR names the directory holding the .ko files (default /ketw).
 */
#include "ketw_test.h"
#include "kselftest_harness.h"

#define SESSION "mod_test"

/* The provider modules the harness loads besides ketw. */
static const char *const providers[] = { "ketw_sample", "ketw_stress" };
#define NR_PROVIDERS (sizeof(providers) / sizeof(providers[0]))

static int load_all(void)
{
	char file[64];
	unsigned int i;
	int err;

	if (!mod_loaded("ketw")) {
		err = mod_load("ketw.ko", "");
		if (err)
			return err;
	}
	for (i = 0; i < NR_PROVIDERS; i++) {
		if (mod_loaded(providers[i]))
			continue;
		snprintf(file, sizeof(file), "%s.ko", providers[i]);
		err = mod_load(file, "");
		if (err)
			return err;
	}
	return 0;
}

/* Unload every provider but ketw_sample. */
static int unload_others(void)
{
	unsigned int i;
	int err;

	for (i = 1; i < NR_PROVIDERS; i++) {
		err = mod_unload(providers[i]);
		if (err)
			return err;
	}
	return 0;
}

FIXTURE(mods) {
	int unused;
};

FIXTURE_SETUP(mods)
{
	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_MODULES);

	ASSERT_EQ(0, load_all());
	ketw_cleanup(SESSION);
}

FIXTURE_TEARDOWN(mods)
{
	ketw_cleanup(SESSION);
	load_all();
}

/* ketw stays while a provider, a session or an open file holds it. */
TEST_F(mods, unload_only_when_unused)
{
	struct ketw_session_attr a;
	int fd;

	/* Provider modules use ketw's symbols. */
	EXPECT_EQ(-EAGAIN, mod_unload("ketw"));
	ASSERT_EQ(0, unload_others());
	EXPECT_EQ(-EAGAIN, mod_unload("ketw"));
	ASSERT_EQ(0, mod_unload("ketw_sample"));

	fd = ketw_open();
	ASSERT_LE(0, fd);
	ketw_attr_init(&a, SESSION);
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_CREATE, &a));
	close(fd);
	/* The session holds the module after its file is gone. */
	EXPECT_EQ(-EAGAIN, mod_unload("ketw"));
	EXPECT_TRUE(mod_loaded("ketw"));

	fd = ketw_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, SESSION));
	/* Now only the open file holds it. */
	EXPECT_EQ(-EAGAIN, mod_unload("ketw"));
	close(fd);

	ASSERT_EQ(0, mod_unload("ketw"));
	EXPECT_FALSE(mod_loaded("ketw"));
	EXPECT_EQ(-1, open(KETW_DEVICE, O_RDWR));

	ASSERT_EQ(0, load_all());
	fd = ketw_open();
	ASSERT_LE(0, fd);
	close(fd);
}

/* A mapping of a session's buffer holds the module too. */
TEST_F(mods, mapping_holds_module)
{
	struct ketw_session_attr a;
	void *meta;
	int fd;

	fd = ketw_open();
	ASSERT_LE(0, fd);
	ketw_attr_init(&a, SESSION);
	ASSERT_EQ(0, ioctl(fd, KETW_IOC_CREATE, &a));
	meta = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, KETW_MMAP_CPU(0));
	ASSERT_NE(MAP_FAILED, meta);
	close(fd);
	ASSERT_EQ(0, unload_others());
	ASSERT_EQ(0, mod_unload("ketw_sample"));

	fd = ketw_open();
	ASSERT_LE(0, fd);
	/* The mapping's file is still attached to the session. */
	EXPECT_EQ(-1, ketw_ref(fd, KETW_IOC_DESTROY, SESSION));
	EXPECT_EQ(EBUSY, errno);
	close(fd);
	EXPECT_EQ(-EAGAIN, mod_unload("ketw"));

	ASSERT_EQ(0, munmap(meta, 4096));
	fd = ketw_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, SESSION));
	close(fd);
	ASSERT_EQ(0, mod_unload("ketw"));
	ASSERT_EQ(0, load_all());
}

/* Loading twice is refused; a provider needs ketw. */
TEST_F(mods, load_errors)
{
	EXPECT_EQ(-EEXIST, mod_load("ketw.ko", ""));
	EXPECT_EQ(-EEXIST, mod_load("ketw_sample.ko", ""));
}

/*
 * A provider that goes away during a session and comes back: the session
 * keeps what it had and takes the new instance's events.
 */
TEST_F(mods, provider_reload_during_session)
{
	struct ketw_session_attr a;
	struct drained d = { 0 };
	const struct ketw_event_header *h;
	int fd = ketw_open(), bad = 0, n = 0;
	size_t off = 0;

	ASSERT_LE(0, fd);
	ketw_attr_init(&a, SESSION);
	ASSERT_EQ(0, session_start(fd, &a));
	ASSERT_EQ(0, sample_emit(10));
	ASSERT_EQ(0, mod_unload("ketw_sample"));
	ASSERT_EQ(0, mod_load("ketw_sample.ko", ""));
	ASSERT_EQ(0, sample_emit(20));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, SESSION));
	ASSERT_EQ(0, drain(fd, &d));
	while ((h = next_record(&d, &off, &bad)))
		n += is_sample(h);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(30, n);
	EXPECT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, SESSION));
	close(fd);
	free(d.buf);
}

TEST_HARNESS_MAIN
