// SPDX-License-Identifier: GPL-2.0
/*
 * The words for session attributes, system events, field types and
 * trigger actions, in text: what ketwfs prints and parses, and what the
 * "boot" module parameter takes.
 */
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "ketw_internal.h"

/* Each table indexed by value, from uapi/linux/ketw.h's word lists. */
#define KETW_WORD(v, w) \
	[v] = w,
static const char *const ketw_policies[] = { KETW_POLICY_WORDS(KETW_WORD) };
static const char *const ketw_clocks[] = { KETW_CLOCK_WORDS(KETW_WORD) };
static const char *const ketw_states[] = { KETW_STATE_WORDS(KETW_WORD) };
static const char *const ketw_sys_events[] = { KETW_SYS_WORDS(KETW_WORD) };
static const char *const ketw_field_types[] = { KETW_FIELD_WORDS(KETW_WORD) };
static const char *const ketw_ext_types[] = { KETW_EXT_WORDS(KETW_WORD) };
static const char *const ketw_actions[] = { KETW_TRIGGER_ACTION_WORDS(KETW_WORD) };
#undef KETW_WORD

static const char *ketw_name_of(const char *const *names, size_t nr, u32 i)
{
	return i < nr && names[i] ? names[i] : "?";
}

static int ketw_index_of(const char *const *names, size_t nr, const char *s)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (names[i] && !strcmp(names[i], s))
			return i;
	return -EINVAL;
}

/**
 * ketw_policy_name() - "loop", "until-full" or "flush"
 * @policy: KETW_POLICY_*.
 *
 * Return: the word, or "?".
 */
const char *ketw_policy_name(u32 policy)
{
	return ketw_name_of(ketw_policies, ARRAY_SIZE(ketw_policies), policy);
}

/**
 * ketw_policy_parse() - the policy a word names
 * @s: "loop", "until-full" (or "until_full") or "flush".
 *
 * Return: KETW_POLICY_*, or -EINVAL.
 */
int ketw_policy_parse(const char *s)
{
	if (!strcmp(s, "until_full"))
		return KETW_POLICY_UNTIL_FULL;
	return ketw_index_of(ketw_policies, ARRAY_SIZE(ketw_policies), s);
}

/**
 * ketw_clock_name() - "mono", "boot" or "local"
 * @clock: KETW_CLOCK_*.
 *
 * Return: the word, or "?".
 */
const char *ketw_clock_name(u32 clock)
{
	return ketw_name_of(ketw_clocks, ARRAY_SIZE(ketw_clocks), clock);
}

/**
 * ketw_clock_parse() - the clock a word names
 * @s: "mono", "boot" or "local".
 *
 * Return: KETW_CLOCK_*, or -EINVAL.
 */
int ketw_clock_parse(const char *s)
{
	return ketw_index_of(ketw_clocks, ARRAY_SIZE(ketw_clocks), s);
}

/**
 * ketw_state_name() - "created", "running" or "suspended"
 * @state: KETW_STATE_*.
 *
 * Return: the word, or "?".
 */
const char *ketw_state_name(u32 state)
{
	return ketw_name_of(ketw_states, ARRAY_SIZE(ketw_states), state);
}

/**
 * ketw_sys_event_name() - a system event's name, "START" and so on
 * @id: KETW_SYS_*.
 *
 * Return: the name, or "?".
 */
const char *ketw_sys_event_name(u32 id)
{
	return ketw_name_of(ketw_sys_events, ARRAY_SIZE(ketw_sys_events), id);
}

/**
 * ketw_field_type_name() - a payload field's type, "u32", "string" and so on
 * @type: KETW_FIELD_*.
 *
 * Return: the name, or "?".
 */
const char *ketw_field_type_name(u32 type)
{
	return ketw_name_of(ketw_field_types, ARRAY_SIZE(ketw_field_types), type);
}

/**
 * ketw_ext_items_parse() - extended data items named in a list
 * @s:    words of KETW_EXT_WORDS(), separated by commas ("stack,cputime"),
 *        or "none".
 * @mask: out: their KETW_EXT_BIT()s.
 *
 * Return: 0; -EINVAL for a word that names no item.
 */
int ketw_ext_items_parse(const char *s, u32 *mask)
{
	char word[16];
	size_t n;
	int t;

	*mask = 0;
	if (!strcmp(s, "none"))
		return 0;
	for (;;) {
		n = strcspn(s, ",");
		if (!n || n >= sizeof(word))
			return -EINVAL;
		memcpy(word, s, n);
		word[n] = 0;
		t = ketw_index_of(ketw_ext_types, ARRAY_SIZE(ketw_ext_types),
				  word);
		if (t < 0)
			return -EINVAL;
		*mask |= KETW_EXT_BIT(t);
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

/**
 * ketw_ext_items_list() - print "stack,cputime" for a mask, "none" for 0
 * @m:    where.
 * @mask: KETW_EXT_BIT()s; bits that name no item are left out.
 *
 * What ketw_ext_items_parse() takes back.
 */
void ketw_ext_items_list(struct seq_file *m, u32 mask)
{
	const char *sep = "";
	u32 t;

	for (t = 0; t < ARRAY_SIZE(ketw_ext_types); t++) {
		if (!(mask & KETW_EXT_BIT(t)) || !ketw_ext_types[t])
			continue;
		seq_printf(m, "%s%s", sep, ketw_ext_types[t]);
		sep = ",";
	}
	if (!*sep)
		seq_puts(m, "none");
}

/**
 * ketw_ext_items_show() - print " items=stack,cputime" for a mask
 * @m:    where.
 * @mask: KETW_EXT_BIT()s; nothing is printed for 0.
 */
void ketw_ext_items_show(struct seq_file *m, u32 mask)
{
	if (!(mask & KETW_EXT_ALL))
		return;
	seq_puts(m, " items=");
	ketw_ext_items_list(m, mask);
}

/**
 * ketw_trigger_action_name() - "wake", "stop" or "snapshot"
 * @action: KETW_TRIGGER_*.
 *
 * Return: the word, or "?".
 */
const char *ketw_trigger_action_name(u32 action)
{
	return ketw_name_of(ketw_actions, ARRAY_SIZE(ketw_actions), action);
}

/**
 * ketw_trigger_action_parse() - the trigger action a word names
 * @s: "wake", "stop" or "snapshot".
 *
 * Return: KETW_TRIGGER_*, or -EINVAL.
 */
int ketw_trigger_action_parse(const char *s)
{
	return ketw_index_of(ketw_actions, ARRAY_SIZE(ketw_actions), s);
}
