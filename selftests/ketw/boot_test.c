// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions at load (the module parameter "boot"): ketw starts them
 * before a provider module that depends on it runs its init, so the
 * provider's first events are in them; a wrong description leaves that
 * session out, says why, and ketw loads all the same. Reloads ketw and
 * its providers, and leaves them loaded as it found them.
 */
#include "ketw_test.h"
#include <sys/klog.h>
#include "kselftest_harness.h"

static int log_has(const char *s)
{
	static char buf[1 << 20];
	int n = klogctl(3, buf, sizeof(buf) - 1);	/* READ_ALL */

	if (n < 0)
		return -1;
	buf[n] = '\0';
	return strstr(buf, s) != NULL;
}

/* Put ketw and its providers back as the harness loaded them. */
static void restore(void)
{
	if (!mod_loaded("ketw"))
		mod_load("ketw.ko", "");
	if (!mod_loaded("ketw_sample"))
		mod_load("ketw_sample.ko", "");
	if (!mod_loaded("ketw_stress"))
		mod_load("ketw_stress.ko", "");
}

TEST(session_at_load_sees_a_drivers_init)
{
	const struct ketw_event_header *h;
	struct drained d = { 0 };
	int fd, bad = 0, ticks = 0, start = 0, stop = 0;
	size_t off = 0;

	KETW_REQUIRE(KETW_NEED_ROOT | KETW_NEED_DEV | KETW_NEED_MODULES);

	if (mod_loaded("ketw_stress"))
		ASSERT_EQ(0, mod_unload("ketw_stress"));
	if (mod_loaded("ketw_sample"))
		ASSERT_EQ(0, mod_unload("ketw_sample"));
	ASSERT_EQ(0, mod_unload("ketw"))
		TH_LOG("ketw is still in use (a session left by another test?)");
	/* The second description is wrong: ketw loads without it. */
	ASSERT_EQ(0, mod_load("ketw.ko",
			  "boot=bt,buffer_kb=256,no_rundown,provider=ketw-sample:5;bad,policy=nope"));
	/* %pe: the name, or the number without CONFIG_SYMBOLIC_ERRNAME. */
	EXPECT_EQ(1, log_has("ketw: boot session 2 not started: policy (-EINVAL)") ||
		     log_has("ketw: boot session 2 not started: policy (-22)"));
	EXPECT_EQ(1, log_has("ketw: 1 boot session running"));
	/* A driver that logs from its init, as a probe would. */
	ASSERT_EQ(0, mod_load("ketw_sample.ko", "init_events=3"));

	fd = ketw_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_ATTACH, "bt"));
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_STOP, "bt"));
	ASSERT_EQ(0, drain(fd, &d));
	while ((h = next_record(&d, &off, &bad))) {
		ticks += is_sample(h) && h->event_id == KETW_SAMPLE_EV_TICK;
		start += is_system(h, KETW_SYS_START);
		stop += is_system(h, KETW_SYS_STOP);
	}
	EXPECT_EQ(0, bad);
	EXPECT_EQ(1, start);
	EXPECT_EQ(3, ticks);
	EXPECT_EQ(1, stop);
	free(d.buf);
	ASSERT_EQ(0, ketw_ref(fd, KETW_IOC_DESTROY, "bt"));
	EXPECT_EQ(-1, ketw_ref(fd, KETW_IOC_ATTACH, "bad"));
	EXPECT_EQ(ENOENT, errno);
	close(fd);

	/* Back as the harness had it: ketw without sessions at load. */
	ASSERT_EQ(0, mod_unload("ketw_sample"));
	ASSERT_EQ(0, mod_unload("ketw"));
	restore();
	EXPECT_TRUE(mod_loaded("ketw") && mod_loaded("ketw_sample") &&
		    mod_loaded("ketw_stress"));
}

TEST_HARNESS_MAIN
