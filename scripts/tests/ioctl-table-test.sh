#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of selftests/ketw/ioctl_table.awk, which turns the uapi header
# into the kernel fuzzers' tables: the real header gives a table that
# compiles and lists every KETW_IOC_*, a new ioctl with a new struct is
# picked up with its fields' kinds, and an ioctl define the script cannot
# read fails the build. Run by make check (make scripts-test); prints
# "ok"/"not ok" per case and exits non-zero on any failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
awkf=$top/selftests/ketw/ioctl_table.awk
hdr=$top/uapi/linux/ketw.h
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/inc/linux"

. "$top/scripts/tap.sh"

# Generate from header $1, compile with it, print the table (name cmd
# struct size ver0 sized, then "field name off len kind" lines).
gen_and_dump() {
	cp "$1" "$tmp/inc/linux/ketw.h"
	awk -f "$awkf" "$tmp/inc/linux/ketw.h" >"$tmp/table.h" || return 1
	cat >"$tmp/dump.c" <<-'EOF'
	#define _GNU_SOURCE
	#include "kfuzz.h"
	#include "table.h"
	int main(void)
	{
		for (size_t i = 0; i < KFUZZ_NR_IOCTLS; i++) {
			const struct kfuzz_ioctl *io = &kfuzz_ioctls[i];
			const struct kfuzz_struct *st = io->st;

			printf("%s %#lx %s %zu %zu %d\n", io->name, io->cmd,
			       st ? st->name : "-", st ? st->size : 0,
			       st ? st->ver0 : 0, st ? st->sized : 0);
			for (size_t j = 0; st && j < st->nr_fields; j++)
				printf("field %s %zu %zu %d\n", st->fields[j].name,
				       st->fields[j].off, st->fields[j].len,
				       st->fields[j].kind);
		}
		printf("consts %zu\n", KFUZZ_NR_CONSTS);
		return 0;
	}
	EOF
	cc -std=gnu11 -Wall -Werror -I"$tmp/inc" -I"$tmp" \
		-I"$top/selftests/ketw" -o "$tmp/dump" "$tmp/dump.c" -lpthread &&
		"$tmp/dump"
}

# The real header: one entry per KETW_IOC_* define but the magic.
want=$(grep -cE '^#define[[:space:]]+KETW_IOC_[A-Z0-9_]+[[:space:]]+_IO' "$hdr")
if out=$(gen_and_dump "$hdr" 2>&1); then
	got=$(grep -c '^KETW_IOC_' <<<"$out")
	if [ "$got" = "$want" ] && [ "$want" -gt 0 ]; then
		ok "uapi/linux/ketw.h: $got ioctls"
	else
		notok "uapi/linux/ketw.h: ioctls" "want: $want" "got:  $got"
	fi
	if grep -qE '^KETW_IOC_CREATE .* ketw_session_attr [0-9]+ 112 1$' <<<"$out" &&
	   grep -q '^field name 8 32 2$' <<<"$out"; then
		ok "CREATE: its struct, VER0 size and name field"
	else
		notok "CREATE: its struct, VER0 size and name field" "$(grep -A3 '^KETW_IOC_CREATE' <<<"$out")"
	fi
	# struct ketw_pid_filter: extensible, its size after the name.
	pf=$(sed -n '/^KETW_IOC_SET_PIDS /,/^KETW_IOC_GET_PIDS /p' <<<"$out")
	if grep -qE '^KETW_IOC_SET_PIDS .* ketw_pid_filter 56 56 1$' <<<"$pf" &&
	   grep -q '^field session 0 32 2$' <<<"$pf" &&
	   grep -q '^field size 32 4 1$' <<<"$pf" &&
	   grep -q '^field pids 48 8 3$' <<<"$pf"; then
		ok "SET_PIDS: extensible, its size after the session's name"
	else
		notok "SET_PIDS: extensible, its size after the session's name" "$pf"
	fi
	# A flexible array member takes no field (struct ketw_sys_filter_pids):
	# sizeof() of it would not compile.
	flex=$(sed -n '/kfuzz_fields_ketw_sys_filter_pids\[\]/,/^};/p' "$tmp/table.h")
	if grep -q '"reserved"' <<<"$flex" && ! grep -q '"pids"' <<<"$flex"; then
		ok "a flexible array member is left out"
	else
		notok "a flexible array member is left out" "$flex"
	fi
else
	notok "uapi/linux/ketw.h: the table builds" "$out"
fi

# A new ioctl with a new extensible struct: found, with every kind.
sed '/^#endif \/\* _UAPI_LINUX_KETW_H \*\//d' "$hdr" >"$tmp/new.h"
cat >>"$tmp/new.h" <<-'EOF'
/**
 * struct ketw_new - a request added later
 * @size:    sizeof(struct ketw_new).
 * @session: the session's name.
 * @buf:     user address of a buffer.
 * @filter:  a filter.
 * @count:   a number.
 */
struct ketw_new {
	__u32 size;
	__u32 count;
	char  session[KETW_NAME_MAX];
	__u64 buf;
	struct ketw_filter filter;
};

#define KETW_NEW_SIZE_VER0	48
#define KETW_IOC_NEW		_IOWR(KETW_IOC_MAGIC, 99, struct ketw_new)

#endif /* _UAPI_LINUX_KETW_H */
EOF
if out=$(gen_and_dump "$tmp/new.h" 2>&1); then
	new=$(sed -n '/^KETW_IOC_NEW /,/^KETW_IOC_\|^consts/p' <<<"$out")
	kinds=$(awk '$1 == "field" { printf "%s:%s ", $2, $5 }' <<<"$new")
	if grep -q '^KETW_IOC_NEW .* ketw_new [0-9]* 48 1$' <<<"$new" &&
	   [ "$kinds" = "size:1 count:0 session:2 buf:3 filter.level:0 filter.enabled:0 filter.match_any:0 filter.match_all:0 filter.filtered.bits:4 " ]; then
		ok "a new ioctl and struct are in the table"
	else
		notok "a new ioctl and struct are in the table" "$new" "kinds: $kinds"
	fi
else
	notok "a new ioctl: the table builds" "$out"
fi

# An ioctl define the script cannot read stops the build.
sed 's/^#endif \/\* _UAPI_LINUX_KETW_H \*\//#define KETW_IOC_ODD\t_IOW(KETW_IOC_MAGIC, 98, int)\n&/' \
	"$hdr" >"$tmp/odd.h"
if awk -f "$awkf" "$tmp/odd.h" >/dev/null 2>"$tmp/err"; then
	notok "an unreadable ioctl define fails" "awk exited 0"
elif grep -q 'KETW_IOC_ODD' "$tmp/err"; then
	ok "an unreadable ioctl define fails, naming it"
else
	notok "an unreadable ioctl define fails, naming it" "$(cat "$tmp/err")"
fi

tap_end ioctl-table
