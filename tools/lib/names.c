// SPDX-License-Identifier: GPL-2.0
/*
 * libketw: the names of ketw's numbers (event types, levels, system
 * events, field types, policies, clocks, states, trigger actions,
 * errnos) both ways, and
 * strict parsing of numbers.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/*
 * Each table indexed by value, from the word lists of uapi/linux/ketw.h,
 * which the module's tables come from too: what ketwfs prints, this
 * parses.
 */
#define KETW_WORD(v, w) \
	[v] = w,
static const char *const ketw_type_names[] = { KETW_TYPE_WORDS(KETW_WORD) };
static const char *const ketw_level_names[] = { KETW_LEVEL_WORDS(KETW_WORD) };
static const char *const ketw_sys_names[] = { KETW_SYS_WORDS(KETW_WORD) };
static const char *const ketw_field_names[] = { KETW_FIELD_WORDS(KETW_WORD) };
static const char *const ketw_policy_names[] = { KETW_POLICY_WORDS(KETW_WORD) };
static const char *const ketw_clock_names[] = { KETW_CLOCK_WORDS(KETW_WORD) };
static const char *const ketw_state_names[] = { KETW_STATE_WORDS(KETW_WORD) };
static const char *const ketw_ext_names[] = { KETW_EXT_WORDS(KETW_WORD) };
static const char *const ketw_action_names[] = {
	KETW_TRIGGER_ACTION_WORDS(KETW_WORD)
};
#undef KETW_WORD

#define KETW_CTX_NAME(v, w)	[v] = w,
static const char *const ketw_context_names[] = {
	KETW_CTX_WORDS(KETW_CTX_NAME)
};

static const char *ketw_name_of(const char *const *names, size_t n,
				unsigned int v)
{
	return v < n ? names[v] : NULL;
}

const char *ketw_type_name(unsigned int type)
{
	return ketw_name_of(ketw_type_names, ARRAY_SIZE(ketw_type_names), type);
}

const char *ketw_level_name(unsigned int level)
{
	return ketw_name_of(ketw_level_names, ARRAY_SIZE(ketw_level_names),
			    level);
}

const char *ketw_sys_event_name(unsigned int id)
{
	return ketw_name_of(ketw_sys_names, ARRAY_SIZE(ketw_sys_names), id);
}

const char *ketw_context_name(unsigned int ctx)
{
	return ketw_name_of(ketw_context_names, ARRAY_SIZE(ketw_context_names),
			    ctx);
}

const char *ketw_field_type_name(unsigned int type)
{
	return ketw_name_of(ketw_field_names, ARRAY_SIZE(ketw_field_names),
			    type);
}

const char *ketw_policy_name(unsigned int policy)
{
	return ketw_name_of(ketw_policy_names, ARRAY_SIZE(ketw_policy_names),
			    policy);
}

const char *ketw_clock_name(unsigned int clock)
{
	return ketw_name_of(ketw_clock_names, ARRAY_SIZE(ketw_clock_names),
			    clock);
}

const char *ketw_state_name(unsigned int state)
{
	return ketw_name_of(ketw_state_names, ARRAY_SIZE(ketw_state_names),
			    state);
}

const char *ketw_ext_type_name(unsigned int type)
{
	return ketw_name_of(ketw_ext_names, ARRAY_SIZE(ketw_ext_names), type);
}

int ketw_ext_items_parse(const char *s, uint32_t *mask)
{
	unsigned int t;
	size_t n;

	*mask = 0;
	if (!strcmp(s, "none"))
		return 0;
	for (;;) {
		n = strcspn(s, ",");
		for (t = 0; t < ARRAY_SIZE(ketw_ext_names); t++)
			if (ketw_ext_names[t] && strlen(ketw_ext_names[t]) == n &&
			    !strncmp(ketw_ext_names[t], s, n))
				break;
		if (!n || t == ARRAY_SIZE(ketw_ext_names))
			return -EINVAL;
		*mask |= KETW_EXT_BIT(t);
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

char *ketw_ext_items_format(uint32_t mask, char *buf, size_t len)
{
	struct ketw_fmt f = { buf, len, 0 };
	const char *sep = "";
	unsigned int t;

	if (len)
		buf[0] = 0;
	if (!mask) {
		ketw_fmt(&f, "none");
		return buf;
	}
	for (t = 0; t < 32; t++) {
		if (!(mask & (1u << t)))
			continue;
		if (ketw_ext_type_name(t))
			ketw_fmt(&f, "%s%s", sep, ketw_ext_type_name(t));
		else
			ketw_fmt(&f, "%s0x%x", sep, 1u << t);
		sep = ",";
	}
	return buf;
}

const char *ketw_errno_name(int err)
{
#define E(x) [x] = #x
	static const char *const names[] = {
		E(EPERM), E(ENOENT), E(ESRCH), E(EINTR), E(EIO), E(ENXIO),
		E(E2BIG), E(ENOEXEC), E(EBADF), E(ECHILD), E(EAGAIN),
		E(ENOMEM), E(EACCES), E(EFAULT), E(EBUSY), E(EEXIST),
		E(EXDEV), E(ENODEV), E(ENOTDIR), E(EISDIR), E(EINVAL),
		E(ENFILE), E(EMFILE), E(ENOTTY), E(EFBIG), E(ENOSPC),
		E(ESPIPE), E(EROFS), E(EPIPE), E(EDOM), E(ERANGE),
		E(EDEADLK), E(ENAMETOOLONG), E(ENOSYS), E(ENODATA),
		E(ETIME), E(EPROTO), E(EBADMSG), E(EOVERFLOW),
		E(EMSGSIZE), E(EPROTONOSUPPORT), E(EOPNOTSUPP),
		E(ETIMEDOUT), E(EALREADY), E(EINPROGRESS), E(ECANCELED),
		E(ESHUTDOWN), E(ECONNRESET), E(ENOBUFS),
	};
#undef E
	unsigned int e = err < 0 ? -(unsigned int)err : (unsigned int)err;

	/* ERESTARTSYS and friends only leak out of the kernel by mistake. */
	switch (e) {
	case 512: return "ERESTARTSYS";
	case 513: return "ERESTARTNOINTR";
	case 514: return "ERESTARTNOHAND";
	case 516: return "ERESTART_RESTARTBLOCK";
	}
	return e < ARRAY_SIZE(names) ? names[e] : NULL;
}

int ketw_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	const char *p = s;
	char *end;
	int base = 10;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;	/* also no sign, no blanks */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		p = s + 2;
		base = 16;
		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(p, &end, base);
	if (end == p || *end)
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

static int ketw_parse_name(const char *s, const char *const *names,
			   size_t n, unsigned int *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcasecmp(s, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

int ketw_parse_level(const char *s, unsigned int *level)
{
	uint64_t v;
	int err;

	if (!strcasecmp(s, "all")) {
		*level = KETW_LEVEL_ALL;
		return 0;
	}
	if (!strcasecmp(s, "information")) {
		*level = KETW_LEVEL_INFO;
		return 0;
	}
	if (!ketw_parse_name(s, ketw_level_names, ARRAY_SIZE(ketw_level_names),
			     level))
		return 0;
	err = ketw_parse_u64(s, KETW_LEVEL_VERBOSE, &v);
	if (err)
		return err;
	*level = v;
	return 0;
}

const char *ketw_trigger_action_name(unsigned int action)
{
	return ketw_name_of(ketw_action_names, ARRAY_SIZE(ketw_action_names),
			    action);
}

int ketw_parse_trigger_action(const char *s, unsigned int *action)
{
	return ketw_parse_name(s, ketw_action_names,
			       ARRAY_SIZE(ketw_action_names), action);
}

int ketw_parse_policy(const char *s, unsigned int *policy)
{
	if (!strcasecmp(s, "until_full")) {
		*policy = KETW_POLICY_UNTIL_FULL;
		return 0;
	}
	return ketw_parse_name(s, ketw_policy_names,
			       ARRAY_SIZE(ketw_policy_names), policy);
}

int ketw_parse_clock(const char *s, unsigned int *clock)
{
	if (!strcasecmp(s, "monotonic")) {
		*clock = KETW_CLOCK_MONO;
		return 0;
	}
	if (!strcasecmp(s, "boottime")) {
		*clock = KETW_CLOCK_BOOT;
		return 0;
	}
	return ketw_parse_name(s, ketw_clock_names,
			       ARRAY_SIZE(ketw_clock_names), clock);
}
