// SPDX-License-Identifier: GPL-2.0
/*
 * ketw report: the extended data items of a record (stacks, CPU time,
 * program address, pid namespace, activity) as text and JSON, with code
 * addresses symbolised: placed in a module by the trace's MODULE rundown,
 * and named by /proc/kallsyms when it is readable (root) and the trace
 * was taken on this kernel. The raw addresses are always shown too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cli.h"
#include "report_items.h"

struct cli_sym {
	uint64_t addr;
	char *name;		/* "func" */
	char *mod;		/* "[module]" as kallsyms has it, or NULL */
};

struct cli_mod {
	uint64_t base, size;
	char name[KETW_MODULE_NAME_MAX + 1];
};

struct cli_syms {
	struct cli_mod *mods;
	size_t nr_mods, cap_mods;
	struct cli_sym *syms;
	size_t nr_syms;
	bool kallsyms_ok;	/* may be read: the trace is this kernel's */
	bool kallsyms_read;	/* tried already */
};

struct cli_syms *cli_syms_new(void)
{
	return calloc(1, sizeof(struct cli_syms));
}

void cli_syms_free(struct cli_syms *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr_syms; i++) {
		free(s->syms[i].name);
		free(s->syms[i].mod);
	}
	free(s->syms);
	free(s->mods);
	free(s);
}

int cli_syms_add_record(struct cli_syms *s, const struct ketw_record *rec)
{
	struct ketw_sys_module m;
	struct cli_mod *n;

	if (!(rec->hdr->flags & KETW_RECORD_SYSTEM) ||
	    rec->hdr->event_id != KETW_SYS_MODULE ||
	    rec->data_len < sizeof(m))
		return 0;
	memcpy(&m, rec->data, sizeof(m));
	if (s->nr_mods == s->cap_mods) {
		size_t cap = s->cap_mods ? 2 * s->cap_mods : 64;

		n = realloc(s->mods, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		s->mods = n;
		s->cap_mods = cap;
	}
	n = &s->mods[s->nr_mods++];
	n->base = m.base;
	n->size = m.size;
	memcpy(n->name, m.name, sizeof(m.name));
	n->name[sizeof(m.name)] = '\0';
	return 1;
}

void cli_syms_check_kernel(struct cli_syms *s,
			   const struct ketw_file_header *fh)
{
	struct utsname u;

	s->kallsyms_ok = !uname(&u) &&
			 !strncmp(u.release, fh->release, sizeof(fh->release)) &&
			 !strncmp(u.nodename, fh->hostname, sizeof(fh->hostname));
}

static int cli_sym_cmp(const void *a, const void *b)
{
	const struct cli_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols of /proc/kallsyms; none if it hides addresses (not root). */
static void cli_syms_read_kallsyms(struct cli_syms *s)
{
	size_t cap = 0;
	char line[512], name[256], mod[128];
	unsigned long long addr;
	char type;
	FILE *f;

	s->kallsyms_read = true;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		struct cli_sym *n;
		int k;

		mod[0] = '\0';
		k = sscanf(line, "%llx %c %255s %127s", &addr, &type, name, mod);
		if (k < 3 || !addr)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (s->nr_syms == cap) {
			cap = cap ? 2 * cap : 65536;
			n = realloc(s->syms, cap * sizeof(*n));
			if (!n)
				break;
			s->syms = n;
		}
		n = &s->syms[s->nr_syms];
		n->name = strdup(name);
		n->mod = k == 4 && mod[0] ? strdup(mod) : NULL;
		if (!n->name || (k == 4 && mod[0] && !n->mod)) {
			free(n->name);
			free(n->mod);
			break;
		}
		n->addr = addr;
		s->nr_syms++;
	}
	fclose(f);
	qsort(s->syms, s->nr_syms, sizeof(*s->syms), cli_sym_cmp);
}

static const struct cli_mod *cli_syms_module(const struct cli_syms *s,
					     uint64_t addr)
{
	size_t i;

	/* Modules first: vmlinux's range is the whole kernel map. */
	for (i = 0; i < s->nr_mods; i++)
		if (strcmp(s->mods[i].name, "vmlinux") &&
		    addr - s->mods[i].base < s->mods[i].size)
			return &s->mods[i];
	for (i = 0; i < s->nr_mods; i++)
		if (addr - s->mods[i].base < s->mods[i].size)
			return &s->mods[i];
	return NULL;
}

/* Symbols farther than this from an address do not name it. */
#define CLI_SYM_MAX_OFFSET	0x100000ull

int cli_syms_format(struct cli_syms *s, uint64_t addr, char *buf, size_t len)
{
	const struct cli_mod *m = cli_syms_module(s, addr);
	size_t lo = 0, hi;

	if (len)
		buf[0] = '\0';
	if (s->kallsyms_ok && !s->kallsyms_read)
		cli_syms_read_kallsyms(s);
	hi = s->nr_syms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr - s->syms[lo - 1].addr < CLI_SYM_MAX_OFFSET &&
	    (m || !s->nr_mods))
		return snprintf(buf, len, "%s+0x%llx%s%s", s->syms[lo - 1].name,
				(unsigned long long)(addr -
						     s->syms[lo - 1].addr),
				s->syms[lo - 1].mod ? " " : "",
				s->syms[lo - 1].mod ? s->syms[lo - 1].mod : "");
	if (m && strcmp(m->name, "vmlinux"))
		return snprintf(buf, len, "[%s+0x%llx]", m->name,
				(unsigned long long)(addr - m->base));
	if (m)
		return snprintf(buf, len, "[%s]", m->name);
	return 0;
}

/* "0xADDR SYM" for each address, " <- " between them. */
static void cli_items_addrs(FILE *f, struct cli_syms *s, const char *what,
			    const struct ketw_ext_view *v, bool kernel)
{
	const unsigned char *p = v->data;
	char sym[512];
	uint64_t a;
	size_t i;

	fprintf(f, "    %s:", what);
	for (i = 0; i + 8 <= v->size; i += 8) {
		memcpy(&a, p + i, 8);
		fprintf(f, "%s0x%llx", i ? " <- " : " ",
			(unsigned long long)a);
		if (kernel && cli_syms_format(s, a, sym, sizeof(sym)) > 0)
			fprintf(f, " %s", sym);
	}
	fprintf(f, "\n");
}

void cli_report_items_text(const struct ketw_record *rec, struct cli_syms *s,
			   FILE *f)
{
	char g1[KETW_GUID_STR_LEN], g2[KETW_GUID_STR_LEN];
	bool user = rec->hdr->flags & KETW_RECORD_USER;
	struct ketw_ext_activity a;
	struct ketw_ext_cpu_time t;
	struct ketw_ext_pid_ns ns;
	struct ketw_ext_iter it;
	struct ketw_ext_view v;

	if (ketw_record_items(rec, &it) <= 0)
		return;
	while (ketw_ext_next(&it, &v) > 0) {
		switch (v.type) {
		case KETW_EXT_KSTACK:
			cli_items_addrs(f, s, "stack", &v, true);
			continue;
		case KETW_EXT_USTACK:
			cli_items_addrs(f, s, "ustack", &v, false);
			continue;
		case KETW_EXT_PROG_ADDR:
			cli_items_addrs(f, s, "progaddr", &v, !user);
			continue;
		case KETW_EXT_CPU_TIME:
			if (v.size < sizeof(t))
				break;
			memcpy(&t, v.data, sizeof(t));
			fprintf(f, "    cputime: kernel=%lluns user=%lluns runtime=%lluns\n",
				(unsigned long long)t.kernel_ns,
				(unsigned long long)t.user_ns,
				(unsigned long long)t.runtime_ns);
			continue;
		case KETW_EXT_PID_NS:
			if (v.size < sizeof(ns))
				break;
			memcpy(&ns, v.data, sizeof(ns));
			fprintf(f, "    pidns: vpid=%u vtid=%u pid_ns=%llu\n",
				ns.vpid, ns.vtid,
				(unsigned long long)ns.pid_ns_inum);
			continue;
		case KETW_EXT_ACTIVITY:
			if (v.size < sizeof(a))
				break;
			memcpy(&a, v.data, sizeof(a));
			fprintf(f, "    activity: %s related=%s\n",
				ketw_guid_format(a.activity, g1),
				ketw_guid_format(a.related, g2));
			continue;
		}
		fprintf(f, "    item %u: %zu bytes\n", v.type, v.size);
	}
}

static void cli_items_json_addrs(struct cli_json *j, struct cli_syms *s,
				 const struct ketw_ext_view *v, bool kernel)
{
	const unsigned char *p = v->data;
	char sym[512];
	uint64_t a;
	size_t i;

	cli_json_array(j, false);
	for (i = 0; i + 8 <= v->size; i += 8) {
		memcpy(&a, p + i, 8);
		cli_json_object(j, false);
		cli_json_key(j, "addr");
		cli_json_stringf(j, "0x%llx", (unsigned long long)a);
		if (kernel && cli_syms_format(s, a, sym, sizeof(sym)) > 0) {
			cli_json_key(j, "sym");
			cli_json_string(j, sym, sizeof(sym));
		}
		cli_json_end(j);
	}
	cli_json_end(j);
}

void cli_report_items_json(struct cli_json *j, const struct ketw_record *rec,
			   struct cli_syms *s)
{
	char g[KETW_GUID_STR_LEN], key[16];
	bool user = rec->hdr->flags & KETW_RECORD_USER;
	struct ketw_ext_activity a;
	struct ketw_ext_cpu_time t;
	struct ketw_ext_pid_ns ns;
	struct ketw_ext_iter it;
	struct ketw_ext_view v;
	const char *name;

	if (ketw_record_items(rec, &it) <= 0)
		return;
	cli_json_key(j, "items");
	cli_json_object(j, false);
	while (ketw_ext_next(&it, &v) > 0) {
		name = ketw_ext_type_name(v.type);
		switch (v.type) {
		case KETW_EXT_KSTACK:
		case KETW_EXT_USTACK:
		case KETW_EXT_PROG_ADDR:
			cli_json_key(j, name);
			cli_items_json_addrs(j, s, &v,
					     v.type == KETW_EXT_KSTACK ||
					     (v.type == KETW_EXT_PROG_ADDR &&
					      !user));
			continue;
		case KETW_EXT_CPU_TIME:
			if (v.size < sizeof(t))
				break;
			memcpy(&t, v.data, sizeof(t));
			cli_json_key(j, name);
			cli_json_object(j, false);
			cli_json_key(j, "kernel_ns");
			cli_json_u64(j, t.kernel_ns);
			cli_json_key(j, "user_ns");
			cli_json_u64(j, t.user_ns);
			cli_json_key(j, "runtime_ns");
			cli_json_u64(j, t.runtime_ns);
			cli_json_end(j);
			continue;
		case KETW_EXT_PID_NS:
			if (v.size < sizeof(ns))
				break;
			memcpy(&ns, v.data, sizeof(ns));
			cli_json_key(j, name);
			cli_json_object(j, false);
			cli_json_key(j, "vpid");
			cli_json_u64(j, ns.vpid);
			cli_json_key(j, "vtid");
			cli_json_u64(j, ns.vtid);
			cli_json_key(j, "pid_ns");
			cli_json_u64(j, ns.pid_ns_inum);
			cli_json_end(j);
			continue;
		case KETW_EXT_ACTIVITY:
			if (v.size < sizeof(a))
				break;
			memcpy(&a, v.data, sizeof(a));
			cli_json_key(j, name);
			cli_json_object(j, false);
			cli_json_key(j, "id");
			cli_json_string_or_null(j, ketw_guid_format(a.activity, g));
			cli_json_key(j, "related");
			cli_json_string_or_null(j, ketw_guid_format(a.related, g));
			cli_json_end(j);
			continue;
		}
		/* Unknown, or too short to decode: its bytes. */
		snprintf(key, sizeof(key), "item%u", v.type);
		cli_json_key(j, key);
		cli_json_hex(j, v.data, v.size);
	}
	cli_json_end(j);
}
