#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of the kernel choice (scripts/kernel.sh and the Makefile that
# calls it), against a fake root whose /lib/modules and /boot start empty
# and are filled by a fake deps step, as on a fresh machine where
# scripts/deps.sh installs the kernel during the first make check.
# Run by make check (make scripts-test); prints "ok"/"not ok" per case
# and exits non-zero on any failure.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root/lib/modules" "$root/boot"

. "$top/scripts/tap.sh"
# expect NAME WANT GOT
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1" "want: $2" "got:  $3"; fi
}

# make with the fake root; no environment kernel knobs of the caller's.
fmake() {
	env -u KDIR -u KVER -u VMLINUZ -u NO_DEPS MAKEFLAGS= \
		make --no-print-directory -C "$top" KETW_SYSROOT="$root" \
		DEPS_SCRIPT="$tmp/fake-deps.sh" "$@"
}

# A kernel as Debian's packages leave it: headers (a build tree with a
# Makefile) and an image. $1 version, $2 "headers", "image" or "both".
install_kernel() {
	case $2 in headers | both)
		mkdir -p "$root/lib/modules/$1/build"
		echo "# fake kbuild" >"$root/lib/modules/$1/build/Makefile" ;;
	esac
	case $2 in image | both)
		echo "fake image $1" >"$root/boot/vmlinuz-$1" ;;
	esac
}

# The fake deps step installs what linux-image-amd64 and
# linux-headers-amd64 would, plus distractors: an older kernel, and a
# newer one with headers only, which cannot boot in the guest.
cat >"$tmp/fake-deps.sh" <<EOF
#!/usr/bin/env bash
set -e
root='$root'
$(declare -f install_kernel)
install_kernel 6.1.0-9-amd64 both
install_kernel 6.1.0-56-amd64 both
install_kernel 6.1.0-100-amd64 headers
echo "  DEPS    fake: three kernels installed"
EOF
chmod +x "$tmp/fake-deps.sh"

# 1. Nothing installed and no deps: one line naming what is missing.
out=$(fmake kver 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ "$(grep -c '^kernel: ' <<<"$out")" = 1 ] &&
	grep -q 'linux-headers-amd64' <<<"$out"; then
	ok "no kernel: make kver fails with one line naming the packages"
else
	notok "no kernel: make kver fails with one line naming the packages" \
		"rc=$rc" "$out"
fi

# 2. The first run on a fresh machine: deps installs the kernel, then the
#    same make run chooses it (the choice must not be made at parse time).
out=$(fmake deps kver 2>&1)
expect "deps then kver in one make run: the newest bootable kernel" \
	"KVER=6.1.0-56-amd64 KDIR=$root/lib/modules/6.1.0-56-amd64/build VMLINUZ=$root/boot/vmlinuz-6.1.0-56-amd64" \
	"$(grep '^KVER=' <<<"$out")"

# 3. What the script itself prints for the Makefile's recipes.
out=$(env -u KDIR -u KVER -u VMLINUZ KETW_SYSROOT="$root" "$top/scripts/kernel.sh" --check 2>&1)
expect "kernel.sh --check: three assignments" \
	"KVER=6.1.0-56-amd64|KDIR=$root/lib/modules/6.1.0-56-amd64/build|VMLINUZ=$root/boot/vmlinuz-6.1.0-56-amd64" \
	"$(tr '\n' '|' <<<"$out" | sed 's/|$//')"

# 4. KVER picks another installed kernel.
out=$(fmake KVER=6.1.0-9-amd64 kver 2>&1)
expect "KVER= picks that kernel" \
	"KVER=6.1.0-9-amd64 KDIR=$root/lib/modules/6.1.0-9-amd64/build VMLINUZ=$root/boot/vmlinuz-6.1.0-9-amd64" \
	"$(grep '^KVER=' <<<"$out")"

# 5. KVER of a kernel with headers but no image: refused, naming it.
out=$(fmake KVER=6.1.0-100-amd64 kver 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "^kernel: cannot read the guest kernel $root/boot/vmlinuz-6.1.0-100-amd64" <<<"$out"; then
	ok "KVER without an image: refused, naming the image"
else
	notok "KVER without an image: refused, naming the image" "rc=$rc" "$out"
fi

# 6. KDIR of a built tree: its release and its bzImage.
kd=$tmp/linux
mkdir -p "$kd/include/config" "$kd/arch/x86/boot"
echo 6.1.999-debug >"$kd/include/config/kernel.release"
echo "# fake kbuild" >"$kd/Makefile"
echo "fake bzImage" >"$kd/arch/x86/boot/bzImage"
out=$(fmake KDIR="$kd" kver 2>&1)
expect "KDIR= of a built tree: its release and bzImage" \
	"KVER=6.1.999-debug KDIR=$kd VMLINUZ=$kd/arch/x86/boot/bzImage" \
	"$(grep '^KVER=' <<<"$out")"

# 7. VMLINUZ wins over the choice, from the command line or the
#    environment.
want="KVER=6.1.0-56-amd64 KDIR=$root/lib/modules/6.1.0-56-amd64/build VMLINUZ=$root/boot/vmlinuz-6.1.0-9-amd64"
out=$(fmake VMLINUZ="$root/boot/vmlinuz-6.1.0-9-amd64" kver 2>&1)
expect "VMLINUZ= on the command line wins" "$want" "$(grep '^KVER=' <<<"$out")"
out=$(env -u KDIR -u KVER MAKEFLAGS= VMLINUZ="$root/boot/vmlinuz-6.1.0-9-amd64" \
	make --no-print-directory -C "$top" KETW_SYSROOT="$root" kver 2>&1)
expect "VMLINUZ in the environment wins" "$want" "$(grep '^KVER=' <<<"$out")"

# 8. Headers only (the image package missing): says the image is missing.
rm -f "$root"/boot/vmlinuz-*
out=$(fmake kver 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ "$(grep -c '^kernel: ' <<<"$out")" = 1 ] &&
	grep -q 'no /boot/vmlinuz-<version>.*linux-image-amd64' <<<"$out"; then
	ok "headers without an image: one line naming linux-image-amd64"
else
	notok "headers without an image: one line naming linux-image-amd64" "rc=$rc" "$out"
fi

# 9. A KDIR that is not there.
out=$(fmake KDIR="$tmp/nope" kver 2>&1)
rc=$?
if [ $rc -ne 0 ] && grep -q "^kernel: KDIR=$tmp/nope is not a directory" <<<"$out"; then
	ok "KDIR that does not exist: refused, naming it"
else
	notok "KDIR that does not exist: refused, naming it" "rc=$rc" "$out"
fi

# 10. KDIR of Debian's headers: the release is UTS_RELEASE, which is what
#     modules are built for; their kernel.release is the upstream one.
kd=$tmp/headers
mkdir -p "$kd/include/config" "$kd/include/generated"
echo 6.1.192 >"$kd/include/config/kernel.release"
echo '#define UTS_RELEASE "6.1.0-56-amd64"' >"$kd/include/generated/utsrelease.h"
echo "# fake kbuild" >"$kd/Makefile"
echo "fake image" >"$kd/vmlinuz"
out=$(fmake KDIR="$kd" VMLINUZ="$kd/vmlinuz" kver 2>&1)
expect "KDIR= of Debian's headers: UTS_RELEASE, not kernel.release" \
	"KVER=6.1.0-56-amd64" "$(grep -o '^KVER=[^ ]*' <<<"$out")"

tap_end kernel-select
