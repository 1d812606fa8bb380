#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What "make install" puts where, and what "make uninstall" removes
# (Documentation/ketw-install.rst). The top Makefile runs it with the
# kernel scripts/kernel.sh chose.
#
#   scripts/install.sh install     copy, then depmod
#   scripts/install.sh uninstall   remove exactly those files, then depmod
#   scripts/install.sh list        the installed paths (below DESTDIR), one a line
#   scripts/install.sh conf        $DESTDIR/etc/modprobe.d/ketw.conf: user_gid
#                                  (make install-conf; not part of install)
#
# Environment:
#   KVER       the kernel release (required): /lib/modules/$KVER/updates/ketw.ko
#   DESTDIR    a staged root (default: none, the real one)
#   PREFIX     the tool, its man page, libketw and the headers (default
#              /usr/local)
#   LIBDIR     libketw.so.0, libketw.a and pkgconfig/ketw.pc (default
#              PREFIX/lib)
#   LDCONFIG   default ldconfig, run after installing into the real root
#              (not with DESTDIR); LDCONFIG=true skips it
#   KETW_VERSION  default: the VERSION file
#   KMOD_DIR   the tree ketw.ko was built in: KMOD_DIR/module/ketw.ko and
#              KMOD_DIR/Module.symvers (default: the top of the tree)
#   DEPMOD     default depmod; DEPMOD=true skips it (package builds)
#   SIGN_KEY, SIGN_CERT  sign the installed ketw.ko with this key and
#              certificate (a MOK, Documentation/ketw-install.rst);
#              SIGN_FILE, SIGN_HASH: default KDIR/scripts/sign-file, sha256
#   KETW_USER_GID  for conf: the group allowed to open /dev/ketw_user
#   BT2_PLUGINDIR  where babeltrace2 looks for plugins: the ketw plugin
#              goes there if it was built (default: babeltrace2's, from
#              pkg-config: /usr/lib/x86_64-linux-gnu/babeltrace2/plugins;
#              none without libbabeltrace2-dev). Not under PREFIX:
#              babeltrace2 does not look there
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:?usage: $0 install|uninstall|list|conf}
: "${KVER:?set KVER to the kernel release}"
DESTDIR=${DESTDIR:-}
DESTDIR=${DESTDIR%/}
PREFIX=${PREFIX:-/usr/local}
VERSION=${KETW_VERSION:-$(cat "$top/VERSION")}
KMOD_DIR=${KMOD_DIR:-$top}
DEPMOD=${DEPMOD:-depmod}
LDCONFIG=${LDCONFIG:-ldconfig}
LIBDIR=${LIBDIR:-$PREFIX/lib}
LIBDIR=${LIBDIR%/}
incdir=$PREFIX/include
bt2_plugin=$top/tools/babeltrace2/babeltrace-plugin-ketw.so
if [ -z "${BT2_PLUGINDIR+set}" ]; then
	BT2_PLUGINDIR=$(pkg-config --variable=libdir babeltrace2 2>/dev/null || true)
	[ -z "$BT2_PLUGINDIR" ] || BT2_PLUGINDIR=$BT2_PLUGINDIR/babeltrace2/plugins
fi
solib=libketw.so.$VERSION
soname=libketw.so.0
posix_solib=libketw-posix.so.$VERSION
posix_soname=libketw-posix.so.0

moddir=/lib/modules/$KVER
srcdir=$PREFIX/src/ketw-$VERSION
conf=/etc/modprobe.d/ketw.conf
conf_mark="# ketw: written by make install-conf (make uninstall removes it)"

die() { echo "install: $*" >&2; exit 1; }

# The per-kernel files, then those every kernel shares: mode source path.
kernel_files() {
	echo "0644 $KMOD_DIR/module/ketw.ko $moddir/updates/ketw.ko"
	echo "0644 @symvers $srcdir/$KVER/Module.symvers"
}
shared_files() {
	echo "0755 $top/tools/ketw/ketw $PREFIX/bin/ketw"
	echo "0644 $top/Documentation/ketw.1 $PREFIX/share/man/man1/ketw.1"
	echo "0644 $top/uapi/linux/ketw.h $incdir/linux/ketw.h"
	echo "0644 $top/module/include/ketw.h $srcdir/include/ketw.h"
	echo "0644 $top/uapi/linux/ketw.h $srcdir/include/uapi/linux/ketw.h"
	# libketw: consumers and user-space providers.
	echo "0755 $top/tools/lib/$solib $LIBDIR/$solib"
	echo "0644 $top/tools/lib/libketw.a $LIBDIR/libketw.a"
	echo "0644 @pc $LIBDIR/pkgconfig/ketw.pc"
	for h in libketw.h ketw_file.h ketw_stream.h ketw_provider.h; do
		echo "0644 $top/tools/lib/$h $incdir/$h"
	done
	# babeltrace2's source.ketw.file, if it was built.
	if [ -n "$BT2_PLUGINDIR" ] && [ -f "$bt2_plugin" ]; then
		echo "0644 $bt2_plugin $BT2_PLUGINDIR/babeltrace-plugin-ketw.so"
	fi
	# libketw-posix: the POSIX trace API, <trace.h> under its own
	# directory (ketw-posix.pc's Cflags), a man page per function group.
	echo "0755 $top/tools/posix/$posix_solib $LIBDIR/$posix_solib"
	echo "0644 $top/tools/posix/libketw-posix.a $LIBDIR/libketw-posix.a"
	echo "0644 @posix_pc $LIBDIR/pkgconfig/ketw-posix.pc"
	echo "0644 $top/tools/posix/trace.h $incdir/ketw-posix/trace.h"
	for m in "$top"/Documentation/man/posix_trace_*.3; do
		echo "0644 $m $PREFIX/share/man/man3/${m##*/}"
	done
}
# Symlinks every kernel shares: target link.
shared_links() {
	echo "$solib $LIBDIR/$soname"
	echo "$soname $LIBDIR/libketw.so"
	echo "$posix_solib $LIBDIR/$posix_soname"
	echo "$posix_soname $LIBDIR/libketw-posix.so"
}

# pkg-config's ketw.pc: paths below PREFIX as \${prefix}, so that
# PKG_CONFIG_SYSROOT_DIR and --define-prefix work on a staged root.
ketw_pc() {
	local libdir=$LIBDIR

	case $libdir in
	"$PREFIX"/*) libdir=\${prefix}${libdir#"$PREFIX"} ;;
	esac
	cat <<-EOF
	prefix=$PREFIX
	libdir=$libdir
	includedir=\${prefix}/include

	Name: ketw
	Description: libketw, ketw's library: sessions, trace files and user-space providers
	Version: $VERSION
	Libs: -L\${libdir} -lketw
	Cflags: -I\${includedir}
	EOF
}

# ketw-posix.pc: the POSIX trace API; libketw comes along (static links).
ketw_posix_pc() {
	ketw_pc | sed -n '1,3p'
	cat <<-EOF

	Name: ketw-posix
	Description: the POSIX trace API (<trace.h>: posix_trace_*) on ketw
	Version: $VERSION
	Requires: ketw
	Libs: -L\${libdir} -lketw-posix
	Libs.private: -lpthread
	Cflags: -I\${includedir}/ketw-posix
	EOF
}

# ketw's own lines of Module.symvers, the module named "ketw" (modpost
# only uses the name's last part, for the provider's "depends").
symvers() {
	local f=$KMOD_DIR/Module.symvers

	[ -r "$f" ] || die "no $f: build ketw first (make module)"
	awk -F'\t' 'BEGIN { OFS = "\t" }
		$3 ~ /(^|\/)module\/ketw$/ { $3 = "ketw"; print; n++ }
		END { exit n ? 0 : 1 }' "$f" ||
		die "$f exports nothing of module/ketw"
}

run_depmod() {
	[ "$DEPMOD" != true ] || return 0
	echo "  DEPMOD  ${DESTDIR:-/} $KVER"
	if [ -z "$DESTDIR" ]; then
		"$DEPMOD" -b / "$KVER"
		return
	fi
	# A staged root has none of the kernel's own lists: not a problem.
	"$DEPMOD" -b "$DESTDIR" "$KVER" 2>&1 |
		{ grep -v 'WARNING: could not open modules\.\(order\|builtin\|builtin\.modinfo\) at' || true; } >&2
	return "${PIPESTATUS[0]}"
}

# Files depmod writes (kmod 30), for a staged root left with no module.
depmod_outputs="modules.dep modules.dep.bin modules.alias modules.alias.bin
	modules.softdep modules.symbols modules.symbols.bin modules.builtin.bin
	modules.builtin.alias.bin modules.devname modules.weakdep"

install_files() {
	local m src dst

	tmp=$(mktemp)
	pc=$(mktemp)
	posix_pc=$(mktemp)
	trap 'rm -f "$tmp" "$pc" "$posix_pc"' EXIT
	symvers >"$tmp"
	ketw_pc >"$pc"
	ketw_posix_pc >"$posix_pc"
	while read -r m src dst; do
		[ "$src" != @symvers ] || src=$tmp
		[ "$src" != @pc ] || src=$pc
		[ "$src" != @posix_pc ] || src=$posix_pc
		[ -r "$src" ] || die "missing $src (run make first)"
		echo "  INSTALL $dst"
		install -D -m "$m" "$src" "$DESTDIR$dst"
	done < <(kernel_files; shared_files)
	ln -sfn "ketw-$VERSION" "$DESTDIR$PREFIX/src/ketw"
	echo "  SYMLINK $PREFIX/src/ketw -> ketw-$VERSION"
	while read -r src dst; do
		ln -sfn "$src" "$DESTDIR$dst"
		echo "  SYMLINK $dst -> $src"
	done < <(shared_links)
	if [ -z "$DESTDIR" ] && [ "$LDCONFIG" != true ]; then
		echo "  LDCONFIG"
		"$LDCONFIG"
	fi
	if [ -n "${SIGN_KEY:-}" ]; then
		local sf=${SIGN_FILE:-${KDIR:-$moddir/build}/scripts/sign-file}

		[ -n "${SIGN_CERT:-}" ] || die "SIGN_KEY without SIGN_CERT"
		[ -x "$sf" ] || die "no sign-file at $sf (set SIGN_FILE)"
		echo "  SIGN    $moddir/updates/ketw.ko"
		"$sf" "${SIGN_HASH:-sha256}" "$SIGN_KEY" "$SIGN_CERT" \
			"$DESTDIR$moddir/updates/ketw.ko"
	fi
	run_depmod
}

# Remove a file we installed; say so.
remove() {
	if [ -e "$DESTDIR$1" ] || [ -L "$DESTDIR$1" ]; then
		echo "  REMOVE  $1"
		rm -f "$DESTDIR$1"
	fi
}

# Remove the directories below $1 that are empty, and $1 itself.
prune() {
	[ -d "$DESTDIR$1" ] || return 0
	find "$DESTDIR$1" -depth -type d -empty -delete
}

uninstall_files() {
	local m src dst other

	while read -r m src dst; do
		remove "$dst"
	done < <(kernel_files)
	rmdir "$DESTDIR$srcdir/$KVER" 2>/dev/null || true
	# The files every kernel shares go with the last kernel's.
	other=$(find "$DESTDIR$srcdir" -mindepth 2 -maxdepth 2 \
		-name Module.symvers 2>/dev/null | head -n 1)
	if [ -z "$other" ]; then
		while read -r m src dst; do
			remove "$dst"
		done < <(shared_files)
		while read -r src dst; do
			remove "$dst"
		done < <(shared_links)
		rmdir "$DESTDIR$LIBDIR/pkgconfig" "$DESTDIR$incdir/ketw-posix" \
			2>/dev/null || true
		if [ "$(readlink "$DESTDIR$PREFIX/src/ketw" 2>/dev/null)" = "ketw-$VERSION" ]; then
			remove "$PREFIX/src/ketw"
		fi
		prune "$srcdir"
	else
		other=${other%/Module.symvers}
		echo "  KEEP    $srcdir, the tool and the headers: still installed for ${other##*/}"
	fi
	if [ -f "$DESTDIR$conf" ] && [ "$(head -n 1 "$DESTDIR$conf")" = "$conf_mark" ]; then
		remove "$conf"
	fi
	rmdir "$DESTDIR$moddir/updates" 2>/dev/null || true
	if [ -n "$(find "$DESTDIR$moddir" -name '*.ko*' -print -quit 2>/dev/null)" ]; then
		run_depmod
	elif [ -n "$DESTDIR" ] && [ -d "$DESTDIR$moddir" ]; then
		# A staged root holds nothing but what install's depmod wrote.
		for f in $depmod_outputs; do
			rm -f "$DESTDIR$moddir/$f"
		done
		prune "$moddir"
	fi
}

case $mode in
install)
	install_files
	;;
uninstall)
	uninstall_files
	;;
list)
	{ kernel_files; shared_files; } | cut -d' ' -f3
	echo "$PREFIX/src/ketw"
	shared_links | cut -d' ' -f2
	;;
conf)
	gid=${KETW_USER_GID:?set KETW_USER_GID to the group that may open /dev/ketw_user}
	[[ $gid =~ ^[0-9]+$ ]] || gid=$(getent group "$gid" | cut -d: -f3)
	[ -n "$gid" ] || die "no group $KETW_USER_GID"
	echo "  INSTALL $conf (user_gid=$gid)"
	mkdir -p "$DESTDIR/etc/modprobe.d"
	printf '%s\noptions ketw user_gid=%s\n' "$conf_mark" "$gid" >"$DESTDIR$conf"
	;;
*)
	die "unknown mode $mode"
	;;
esac
