#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of what ketw installs (make install-check, in make check):
# make install and uninstall into throwaway roots, samples/out-of-tree
# built from a staged root alone, and DKMS building ketw.ko in a throwaway
# DKMS tree. Nothing is installed on this machine and nothing is loaded:
# build/stage, which it leaves, is what the guest's oot_test modprobes
# from. Prints "ok"/"not ok" per case; exits non-zero on any failure.
#
# Environment: KVER and KDIR (the Makefile's scripts/kernel.sh choice).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${KVER:?}" "${KDIR:?}"
version=$(cat "$top/VERSION")
tmp=$top/build/install-check
rm -rf "$tmp"
mkdir -p "$tmp"

. "$top/scripts/tap.sh"
# check NAME COMMAND...: ok if COMMAND succeeds; its output if not.
check() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then ok "$name"; else notok "$name" "$*" "$out"; fi
}
# expect NAME WANT GOT
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "want: $2" "got:  $3"; fi
}

# make, on this tree, with the kernel chosen, no deps step.
tmake() {
	env -u DESTDIR -u PREFIX MAKEFLAGS= make --no-print-directory -C "$top" \
		NO_DEPS=1 KVER="$KVER" "$@"
}

# Files and symlinks below $1, relative, sorted.
files_in() { (cd "$1" && find . \( -type f -o -type l \) -printf '%P\n' | LC_ALL=C sort); }

# The __versions table of a module: "crc name" lines (x86_64: 8-byte CRC
# and a 56-byte name per entry).
modversions() {
	local bin=$tmp/versions.bin size i
	objcopy -O binary --only-section=__versions "$1" "$bin" || return 1
	size=$(stat -c %s "$bin")
	for ((i = 0; i < size; i += 64)); do
		printf '0x%08x %s\n' "0x$(od -An -tx8 -j $i -N8 "$bin" | tr -d ' ')" \
			"$(dd if="$bin" bs=1 skip=$((i + 8)) count=56 2>/dev/null | tr -d '\0')"
	done
}

root=$tmp/root
src=usr/local/src/ketw-$version
# babeltrace2's plugin directory (libbabeltrace2-dev, scripts/deps.sh).
bt2_plugin=$(pkg-config --variable=libdir babeltrace2)/babeltrace2/plugins/babeltrace-plugin-ketw.so
bt2_plugin=${bt2_plugin#/}
mods=lib/modules/$KVER

# ---- make install -----------------------------------------------------------
t0=$(date +%s)
check "make install DESTDIR=ROOT" tmake install DESTDIR="$root"
want="$mods/modules.alias
$mods/modules.alias.bin
$mods/modules.builtin.alias.bin
$mods/modules.builtin.bin
$mods/modules.dep
$mods/modules.dep.bin
$mods/modules.devname
$mods/modules.softdep
$mods/modules.symbols
$mods/modules.symbols.bin
$mods/updates/ketw.ko
usr/local/bin/ketw
usr/local/include/ketw-posix/trace.h
usr/local/include/ketw_file.h
usr/local/include/ketw_provider.h
usr/local/include/ketw_stream.h
usr/local/include/libketw.h
usr/local/include/linux/ketw.h
usr/local/lib/libketw-posix.a
usr/local/lib/libketw-posix.so
usr/local/lib/libketw-posix.so.0
usr/local/lib/libketw-posix.so.$version
usr/local/lib/libketw.a
usr/local/lib/libketw.so
usr/local/lib/libketw.so.0
usr/local/lib/libketw.so.$version
usr/local/lib/pkgconfig/ketw-posix.pc
usr/local/lib/pkgconfig/ketw.pc
usr/local/share/man/man1/ketw.1
$(cd "$top/Documentation/man" && ls posix_trace_*.3 | sed 's|^|usr/local/share/man/man3/|')
usr/local/src/ketw
$bt2_plugin
$src/$KVER/Module.symvers
$src/include/ketw.h
$src/include/uapi/linux/ketw.h"
expect "install: exactly these files" "$(LC_ALL=C sort <<<"$want")" "$(files_in "$root")"
expect "install: the tool and the .so files are 0755, the rest 0644" "755 755 755 644 644 644 644 644 644 644 644" \
	"$(stat -c %a "$root/usr/local/bin/ketw" "$root/usr/local/lib/libketw.so.$version" \
		"$root/usr/local/lib/libketw-posix.so.$version" "$root/usr/local/include/ketw-posix/trace.h" \
		"$root/usr/local/lib/pkgconfig/ketw-posix.pc" \
		"$root/$mods/updates/ketw.ko" "$root/usr/local/include/linux/ketw.h" \
		"$root/usr/local/include/libketw.h" "$root/usr/local/lib/libketw.a" \
		"$root/usr/local/lib/pkgconfig/ketw.pc" "$root/$src/$KVER/Module.symvers" | xargs)"
expect "install: libketw.so -> libketw.so.0 -> libketw.so.$version" \
	"libketw.so.0 libketw.so.$version" \
	"$(readlink "$root/usr/local/lib/libketw.so" "$root/usr/local/lib/libketw.so.0" | xargs)"
expect "install: usr/local/src/ketw -> ketw-$version" "ketw-$version" \
	"$(readlink "$root/usr/local/src/ketw")"
expect "install: depmod -b ROOT: modules.dep has ketw" "updates/ketw.ko:" \
	"$(cat "$root/$mods/modules.dep")"

# Module.symvers: ketw's six exports, with the build's CRCs.
cp "$root/$src/$KVER/Module.symvers" "$root.symvers"
want=$(awk -F'\t' '$3 ~ /module\/ketw$/ { print $1, $2 }' "$top/Module.symvers" | sort)
got=$(awk -F'\t' '$3 == "ketw" { print $1, $2 }' "$root/$src/$KVER/Module.symvers" | sort)
expect "Module.symvers: ketw's exports and CRCs, module \"ketw\"" "$want" "$got"
expect "Module.symvers: the six exports" \
	"__ketw_write __ketw_write_activity __ketw_write_bench ketw_clock_mono_ns ketw_provider_register ketw_provider_unregister" \
	"$(cut -f2 "$root/$src/$KVER/Module.symvers" | sort | xargs)"

check "the installed uapi header compiles in user space (-I PREFIX/include)" \
	cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$root/usr/local/include" \
	-x c - <<<'#include <linux/ketw.h>
int main(void) { return KETW_IOC_CREATE == 0; }'
check "the installed tool runs" "$root/usr/local/bin/ketw" --version
check "the installed man page is ketw(1)" grep -q '^\.TH KETW 1' "$root/usr/local/share/man/man1/ketw.1"

# ---- libketw from the staged root, through pkg-config ---------------------------
# A program with a user-space provider that also uses the consumer API,
# built from ROOT alone: pkg-config's sysroot puts ROOT in front.
pcenv=(env PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR="$root/usr/local/lib/pkgconfig"
	PKG_CONFIG_SYSROOT_DIR="$root")
expect "pkg-config: ketw's version" "$version" "$("${pcenv[@]}" pkg-config --modversion ketw 2>&1)"
expect "pkg-config: flags into ROOT" \
	"-I$root/usr/local/include -L$root/usr/local/lib -lketw" \
	"$("${pcenv[@]}" pkg-config --cflags --libs ketw 2>&1 | xargs)"
cat >"$tmp/hello.c" <<'EOF'
#include <stdio.h>
#include <libketw.h>

static const struct ketw_field fields[] = {
	{ .name = "n", .type = KETW_FIELD_U32, .offset = 0, .size = 4 },
};
static const struct ketw_event_descriptor events[] = {
	{ .id = 1, .level = KETW_LEVEL_INFO, .name = "hello",
	  .fields = fields, .nr_fields = 1 },
};
static KETW_PROVIDER_EVENTS(prov, "hello", events,
	{ 0x68, 0x65, 0x6c, 0x6c, 0x6f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 });

int main(void)
{
	unsigned int n = 1;
	/* No module on the build machine: registering fails, the rest is a no-op. */
	int err = ketw_provider_register(&prov);

	printf("%s enabled=%d write=%d valid=%d\n", err < 0 ? "refused" : "registered",
	       ketw_enabled(&prov), ketw_write(&prov, &events[0], &n, sizeof(n)),
	       ketw_session_name_valid("hello"));
	ketw_provider_unregister(&prov);
	return 0;
}
EOF
# shellcheck disable=SC2046
check "a program builds against the staged libketw.so (pkg-config)" \
	cc -std=c11 -Wall -Wextra -Werror -o "$tmp/hello" "$tmp/hello.c" \
	$("${pcenv[@]}" pkg-config --cflags --libs ketw)
expect "it runs on the staged libketw.so.0" "refused enabled=0 write=0 valid=1" \
	"$(LD_LIBRARY_PATH="$root/usr/local/lib" "$tmp/hello" 2>&1)"
expect "it loads libketw.so.0 from ROOT" "$root/usr/local/lib/libketw.so.$version" \
	"$(LD_LIBRARY_PATH="$root/usr/local/lib" ldd "$tmp/hello" |
		awk '$1 == "libketw.so.0" { print $3 }' | xargs -r readlink -f 2>&1)"
# shellcheck disable=SC2046
check "a program builds against the staged libketw.a" \
	cc -std=c11 -Wall -Wextra -Werror -o "$tmp/hello-static" "$tmp/hello.c" \
	$("${pcenv[@]}" pkg-config --cflags ketw) -L"$root/usr/local/lib" \
	-Wl,-Bstatic -lketw -Wl,-Bdynamic
expect "it runs without libketw.so" "refused enabled=0 write=0 valid=1" "$("$tmp/hello-static" 2>&1)"
expect "libketw.so exports only ketw_* and __ketw_*" "" \
	"$(nm -D --defined-only "$root/usr/local/lib/libketw.so.$version" |
		awk '$3 !~ /^(__)?ketw_/ && $3 != "LIBKETW_0" { print $3 }')"
expect "libketw.so's soname" "libketw.so.0" \
	"$(objdump -p "$root/usr/local/lib/libketw.so.$version" | awk '$1 == "SONAME" { print $2 }')"

# ---- libketw-posix from the staged root, through pkg-config -------------------
# A program written from the standard alone: <trace.h> with the
# pkg-config Cflags, glibc's own feature macros untouched, every option.
expect "pkg-config: ketw-posix's version" "$version" \
	"$("${pcenv[@]}" pkg-config --modversion ketw-posix 2>&1)"
expect "pkg-config: ketw-posix's flags into ROOT" \
	"-I$root/usr/local/include/ketw-posix -I$root/usr/local/include -L$root/usr/local/lib -lketw-posix -lketw" \
	"$("${pcenv[@]}" pkg-config --cflags --libs ketw-posix 2>&1 | xargs)"
cat >"$tmp/posix.c" <<'EOF'
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <trace.h>

#if _POSIX_TRACE != -1 || !defined(KETW_POSIX_TRACE) || !defined(KETW_POSIX_TRACE_LOG) || \
    !defined(KETW_POSIX_TRACE_EVENT_FILTER) || !defined(KETW_POSIX_TRACE_INHERIT)
#error "feature macros"
#endif

int main(void)
{
	trace_attr_t attr;
	trace_event_set_t set;
	trace_id_t trid;
	size_t size;
	int member, err;

	if (posix_trace_attr_init(&attr) ||
	    posix_trace_attr_setstreamsize(&attr, 8192) ||
	    posix_trace_attr_getstreamsize(&attr, &size) ||
	    posix_trace_eventset_fill(&set, POSIX_TRACE_SYSTEM_EVENTS) ||
	    posix_trace_eventset_ismember(POSIX_TRACE_STOP, &set, &member))
		return 1;
	/* No module on the build machine: no stream can be started now. */
	err = posix_trace_create(0, &attr, &trid);
	posix_trace_event(POSIX_TRACE_UNNAMED_USER_EVENT, "x", 1);
	printf("size=%zu member=%d create=%s\n", size, member,
	       err == EAGAIN ? "EAGAIN" : "other");
	return posix_trace_attr_destroy(&attr);
}
EOF
want="size=8192 member=1 create=EAGAIN"
# shellcheck disable=SC2046
check "a POSIX trace program builds against the staged libketw-posix.so (pkg-config)" \
	cc -std=c11 -Wall -Wextra -Werror -o "$tmp/posix" "$tmp/posix.c" \
	$("${pcenv[@]}" pkg-config --cflags --libs ketw-posix)
expect "it runs on the staged libketw-posix.so.0" "$want" \
	"$(LD_LIBRARY_PATH="$root/usr/local/lib" "$tmp/posix" 2>&1)"
# shellcheck disable=SC2046
check "a POSIX trace program builds against the staged libketw-posix.a (pkg-config --static)" \
	cc -std=c11 -Wall -Wextra -Werror -o "$tmp/posix-static" "$tmp/posix.c" \
	$("${pcenv[@]}" pkg-config --cflags ketw-posix) -L"$root/usr/local/lib" \
	-Wl,-Bstatic -lketw-posix -lketw -Wl,-Bdynamic \
	$("${pcenv[@]}" pkg-config --static --libs-only-other ketw-posix) -lpthread
expect "it runs without the shared libraries" "$want" "$("$tmp/posix-static" 2>&1)"
expect "pkg-config --static names libketw after libketw-posix" "-lketw-posix -lpthread -lketw" \
	"$("${pcenv[@]}" pkg-config --static --libs-only-l ketw-posix 2>&1 | xargs)"
expect "libketw-posix.so exports only posix_trace_*" "" \
	"$(nm -D --defined-only "$root/usr/local/lib/libketw-posix.so.$version" |
		awk '$3 !~ /^posix_trace_/ && $3 != "LIBKETW_POSIX_0" { print $3 }')"
expect "libketw-posix.so exports the 50 functions of the Trace option" "50" \
	"$(nm -D --defined-only "$root/usr/local/lib/libketw-posix.so.$version" |
		awk '$3 ~ /^posix_trace_/' | wc -l)"
expect "libketw-posix.so's soname, and it needs libketw.so.0" \
	"libketw-posix.so.0 libketw.so.0" \
	"$(objdump -p "$root/usr/local/lib/libketw-posix.so.$version" |
		awk '$1 == "SONAME" { s = $2 } $1 == "NEEDED" && $2 ~ /ketw/ { n = $2 } END { print s, n }')"
check "the installed man pages are roff of section 3" \
	grep -q '^\.TH POSIX_TRACE_ATTR 3' "$root/usr/local/share/man/man3/posix_trace_attr.3"

# PREFIX moves all but the module.
check "make install PREFIX=/usr" tmake install DESTDIR="$tmp/usr-root" PREFIX=/usr
check "PREFIX=/usr: the tool in /usr/bin, the module still in /lib/modules" \
	test -x "$tmp/usr-root/usr/bin/ketw" -a -f "$tmp/usr-root/$mods/updates/ketw.ko" \
	-a -f "$tmp/usr-root/usr/src/ketw-$version/$KVER/Module.symvers" \
	-a -L "$tmp/usr-root/usr/lib/libketw.so.0" -a -f "$tmp/usr-root/usr/include/libketw.h" \
	-a ! -e "$tmp/usr-root/usr/local"
expect "PREFIX=/usr: ketw.pc says so" 'prefix=/usr libdir=${prefix}/lib' \
	"$(head -n 2 "$tmp/usr-root/usr/lib/pkgconfig/ketw.pc" | xargs)"
check "make install PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu" \
	tmake install DESTDIR="$tmp/multiarch" PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu
expect "LIBDIR: libketw and ketw.pc there" 'libdir=${prefix}/lib/x86_64-linux-gnu' \
	"$(sed -n 2p "$tmp/multiarch/usr/lib/x86_64-linux-gnu/pkgconfig/ketw.pc" 2>&1)"
check "LIBDIR: make uninstall" \
	tmake uninstall DESTDIR="$tmp/multiarch" PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu
expect "LIBDIR: uninstall leaves no file" "" "$(files_in "$tmp/multiarch")"

# ---- the out-of-tree sample, from ROOT alone --------------------------------
oot=$tmp/oot
mkdir -p "$oot"
cp "$top"/samples/out-of-tree/{Kbuild,Makefile,ketw_oot.c,ketw_oot.h} "$oot/"
check "samples/out-of-tree builds from the staged headers and Module.symvers" \
	make -C "$oot" KDIR="$KDIR" KETW_DIR="$root/usr/local/src/ketw"
ko=$oot/ketw_oot.ko
expect "ketw_oot.ko depends on ketw" "ketw" "$(modinfo -F depends "$ko" 2>&1)"
expect "ketw_oot.ko is for $KVER" "$KVER" "$(modinfo -F vermagic "$ko" 2>&1 | cut -d' ' -f1)"
# Its symbol versions are ketw's: modprobe would refuse it otherwise.
want=$(cut -f1,2 --output-delimiter=' ' "$root/$src/$KVER/Module.symvers" |
	grep -v -e ketw_clock_mono_ns -e __ketw_write_activity -e __ketw_write_bench | sort)
got=$(modversions "$ko" | grep ketw | sort)
expect "ketw_oot.ko's __versions: ketw's CRCs from the staged Module.symvers" "$want" "$got"
# Nothing of the tree went into it: every header is the kernel's or ROOT's.
leaks=$(tr ' \\' '\n\n' <"$oot/.ketw_oot.o.cmd" | grep -F "$top/" | grep -vF "$tmp/" || true)
expect "ketw_oot.o used no file of ketw's tree" "" "$leaks"
out=$(make -C "$oot" KDIR="$KDIR" KETW_DIR="$tmp/nothing" 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "make install ketw first" <<<"$out"; then
	ok "without ketw installed the sample's Makefile says so"
else
	notok "without ketw installed the sample's Makefile says so" "rc=$rc" "$out"
fi
check "the sample's make install INSTALL_MOD_PATH=ROOT" \
	make -C "$oot" KDIR="$KDIR" INSTALL_MOD_PATH="$root" install
expect "modules.dep: ketw_oot needs ketw" \
	"extra/ketw_oot.ko: updates/ketw.ko
updates/ketw.ko:" "$(LC_ALL=C sort "$root/$mods/modules.dep")"
check "the sample's make uninstall" make -C "$oot" KDIR="$KDIR" INSTALL_MOD_PATH="$root" uninstall

# ---- make install-conf, signing, two kernels --------------------------------
check "make install-conf KETW_USER_GID=0" tmake install-conf DESTDIR="$root" KETW_USER_GID=0
expect "modprobe.d/ketw.conf sets user_gid" "options ketw user_gid=0" \
	"$(tail -n 1 "$root/etc/modprobe.d/ketw.conf")"

openssl req -new -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=ketw install-check/" \
	-outform DER -keyout "$tmp/key.pem" -out "$tmp/cert.der" >/dev/null 2>&1
check "make install SIGN_KEY= SIGN_CERT=" \
	tmake install DESTDIR="$tmp/signed" SIGN_KEY="$tmp/key.pem" SIGN_CERT="$tmp/cert.der"
expect "the installed ketw.ko is signed with that key" "ketw install-check" \
	"$(modinfo -F signer "$tmp/signed/$mods/updates/ketw.ko" 2>&1)"
expect "the unsigned install has no signature" "" \
	"$(modinfo -F signer "$root/$mods/updates/ketw.ko" 2>&1)"

# A second kernel: uninstalling one keeps what the other still needs.
inst() { KVER=$1 DESTDIR=$root "$top/scripts/install.sh" "$2" >/dev/null; }
check "install for a second kernel" inst 6.1.0-0-fake install
check "uninstall of the second kernel" inst 6.1.0-0-fake uninstall
check "uninstall of one kernel keeps the tool, headers and the other's files" \
	test -x "$root/usr/local/bin/ketw" -a -f "$root/$src/include/ketw.h" \
	-a -f "$root/$src/$KVER/Module.symvers" -a -f "$root/$mods/updates/ketw.ko" \
	-a ! -e "$root/lib/modules/6.1.0-0-fake" -a ! -e "$root/$src/6.1.0-0-fake"

# ---- make uninstall -----------------------------------------------------------
check "make uninstall DESTDIR=ROOT" tmake uninstall DESTDIR="$root"
expect "uninstall: no file left" "" "$(files_in "$root")"
check "uninstall: ketw's own directories gone" \
	test ! -e "$root/$src" -a ! -e "$root/$mods/updates"
# On a root with other modules, depmod runs again instead.
check "install on a root with another module" tmake install DESTDIR="$tmp/real"
install -D -m 0644 "$ko" "$tmp/real/$mods/kernel/misc/other.ko"
check "uninstall there" tmake uninstall DESTDIR="$tmp/real"
expect "uninstall there: depmod ran, the other module stays" \
	"kernel/misc/other.ko:" "$(cat "$tmp/real/$mods/modules.dep" 2>&1)"
echo "# install and out-of-tree sample: $(($(date +%s) - t0)) s"

# ---- DKMS ---------------------------------------------------------------------
t0=$(date +%s)
dk=$tmp/dkms
check "make dkms-source DESTDIR=ROOT" tmake dkms-source DESTDIR="$dk/root"
dsrc=$dk/root/usr/src/ketw-$version
want=$(cd "$top" && for f in dkms.conf VERSION Kbuild module/Kbuild module/include/ketw.h \
	uapi/linux/ketw.h module/*.c module/*.h include/ketw.h include/uapi/linux/ketw.h \
	dkms-symvers.sh; do echo "$f"; done | grep -v '\.mod\.c$' | LC_ALL=C sort)
expect "dkms-source: ketw.ko's sources and include/, no test module" "$want" "$(files_in "$dsrc")"

# Nothing of this may land on the machine: DKMS's tree, its default
# source tree, its module signing key, the modules directory, a depmod.
host_state() {
	ls -d /var/lib/dkms/ketw "/usr/src/ketw-$version" /var/lib/dkms/mok.key \
		/var/lib/dkms/mok.pub "/lib/modules/$KVER/updates/dkms/ketw.ko" 2>/dev/null
	stat -c '%n %Y' "/lib/modules/$KVER/modules.dep" 2>/dev/null
}
before=$(host_state)
# The signing key, in the throwaway tree (dkms generates it there).
dkms_env=(env mok_signing_key="$dk/mok.key" mok_certificate="$dk/mok.pub")
dkms_opts=(--sourcetree "$dk/root/usr/src" --dkmstree "$dk/tree")
mkdir -p "$dk/tree"
[ "$KDIR" = "/lib/modules/$KVER/build" ] || dkms_opts+=(--kernelsourcedir "$KDIR")
check "dkms add ketw/$version (throwaway tree)" \
	"${dkms_env[@]}" dkms add "ketw/$version" "${dkms_opts[@]}"
check "dkms build ketw/$version -k $KVER" \
	"${dkms_env[@]}" dkms build "ketw/$version" -k "$KVER" "${dkms_opts[@]}"
built=$dk/tree/ketw/$version/$KVER/$(uname -m)/module
expect "dkms built ketw.ko alone" "ketw.ko" "$(ls "$built" 2>&1)"
expect "dkms's ketw.ko is for $KVER" "$KVER" \
	"$(modinfo -F vermagic "$built/ketw.ko" 2>&1 | cut -d' ' -f1)"
expect "dkms signed it with its key" "DKMS module signing key" \
	"$(modinfo -F signer "$built/ketw.ko" 2>&1)"
expect "dkms status: built" "ketw/$version, $KVER, $(uname -m): built" \
	"$("${dkms_env[@]}" dkms status "${dkms_opts[@]}" 2>&1)"
kept=$dk/tree/ketw/$version/$KVER/$(uname -m)/Module.symvers
expect "dkms kept ketw's Module.symvers (POST_BUILD)" \
	"$(cut -f2 "$root.symvers" 2>&1 | sort)" "$(cut -f2 "$kept" 2>&1 | sort)"
# A provider against DKMS's ketw: its include/ and the kept Module.symvers.
rm -rf "$oot.dkms" && cp -r "$oot" "$oot.dkms" && make -s -C "$oot.dkms" KDIR="$KDIR" clean
check "samples/out-of-tree builds against DKMS's ketw" \
	make -C "$oot.dkms" KDIR="$KDIR" KETW_DIR="$dsrc" SYMVERS="$kept"
check "dkms remove ketw/$version --all" \
	"${dkms_env[@]}" dkms remove "ketw/$version" --all "${dkms_opts[@]}"
check "dkms remove took the kept Module.symvers with it" test ! -e "$kept"
expect "dkms touched nothing outside the throwaway tree" "$before" "$(host_state)"
[ -z "${KEEP_LOGS:-}" ] || cp "$dk/tree/ketw/$version/$KVER/$(uname -m)/log/make.log" "$tmp/dkms-make.log"
echo "# dkms: $(($(date +%s) - t0)) s"

# ---- the stage for the guest ------------------------------------------------
check "make stage: build/stage for the guest's oot_test" \
	env KVER="$KVER" KDIR="$KDIR" "$top/scripts/stage.sh" "$top/build/stage"

tap_end install-check
