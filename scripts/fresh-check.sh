#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Does ketw's CI pass on its first run on a fresh Debian 12 machine?
# A developer tool (root, debootstrap; not part of make check).
#
#   scripts/fresh-check.sh [COMMIT]      default: HEAD of this clone
#
# "Fresh" is debootstrap --variant=minbase bookworm plus git and
# ca-certificates (FRESH_INCLUDE): what a CI image such as debian:12 has
# once the CI system can clone, running as root with bash. No make, no
# compiler, no kernel: the project must install those itself. APT uses
# the host's sources (bookworm, bookworm-updates, bookworm-security from
# /etc/apt/sources.list.d/debian.sources) and the host's Acquire::
# Check-Valid-Until/Check-Date/Proxy settings, so the same package
# versions resolve; the image is upgraded and its package lists removed.
#
# The image is cached as $FRESH_CACHE/base-<UTC date>-<hash of the
# recipe>.tar; each step unpacks a pristine copy into $FRESH_CACHE/run/:
#   check   git clone, check out COMMIT, "bash .ci/run" twice (the first
#           run installs every package; the second is the warm run)
#   demo    a second pristine copy: git clone, the README's demo command
#           "scripts/deps.sh && make demo" (FRESH_DEMO_CMD) as the first
#           command; FRESH_DEMO_PREINSTALL names packages to install
#           before it (default none).
# Each command's output goes to $FRESH_CACHE/logs/<time>-<commit>/; its
# last lines and a table end the output: exit code, wall time and the
# host's 1-minute load average before and after (on a shared host other
# QEMU guests slow these down). A new image deletes the older ones.
# Mounts (proc, sys, dev, dev/pts, the repository read-only) and the
# copies are removed on exit, also on failure or ^C.
#
# Knobs: FRESH_STEPS ("check demo"), FRESH_CACHE (/var/tmp/ketw-fresh),
# FRESH_MIRROR (the host's first Debian URI), FRESH_INCLUDE
# (git,ca-certificates), FRESH_DEMO_CMD ("scripts/deps.sh && make demo"),
# FRESH_DEMO_PREINSTALL (empty), FRESH_KEEP=1 (keep the copies, unmounted),
# FRESH_VERBOSE=1 (echo every command's output), FRESH_REBUILD=1 (ignore
# a cached image), FRESH_REPO (the repository to clone: this one).
# Exit status: 0 when every command passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
repo=${FRESH_REPO:-$top}
cache=${FRESH_CACHE:-/var/tmp/ketw-fresh}
steps=${FRESH_STEPS:-check demo}
include=${FRESH_INCLUDE:-git,ca-certificates}
demo_cmd=${FRESH_DEMO_CMD:-scripts/deps.sh && make demo}
demo_pre=${FRESH_DEMO_PREINSTALL-}
host_sources=/etc/apt/sources.list.d/debian.sources

die() { echo "fresh-check: $*" >&2; exit 1; }
say() { echo "== $*"; }

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null || die "no debootstrap: apt-get install debootstrap"

gitdir=$(git -C "$repo" rev-parse --path-format=absolute --git-common-dir) ||
	die "$repo is not a git repository"
commit=$(git -C "$repo" rev-parse --verify "${1:-HEAD}^{commit}") ||
	die "no commit ${1:-HEAD} in $repo"
short=${commit:0:12}

mirror=${FRESH_MIRROR:-}
if [ -z "$mirror" ] && [ -r "$host_sources" ]; then
	mirror=$(sed -n 's/^URIs:[[:space:]]*//p' "$host_sources" | head -n1)
fi
mirror=${mirror:-http://deb.debian.org/debian}

# APT settings that describe the host's network, not its packages.
apt_host=$(apt-config dump 2>/dev/null |
	grep -E '^Acquire::(Check-Valid-Until|Check-Date|https?::Proxy) ' || true)

if [ -r "$host_sources" ] && [ -z "${FRESH_MIRROR:-}" ]; then
	sources=$(cat "$host_sources")
else
	sources="Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
fi

recipe="v1 minbase bookworm $mirror $include
$sources
$apt_host"
key=$(date -u +%Y%m%d)-$(sha256sum <<<"$recipe" | cut -c1-12)
base=$cache/base-$key.tar
logs=$cache/logs/$(date -u +%Y%m%dT%H%M%S)-$short
case $cache in *[[:space:]]*) die "FRESH_CACHE must not contain spaces" ;; esac
mkdir -p "$cache/run" "$logs"

# ---- mounts and cleanup ----------------------------------------------------
roots=()	# every copy this run made: the trap unmounts and removes them

# Mount points at or below $1, deepest first.
mounts_under() {
	awk -v r="$1" '$5 == r || index($5, r "/") == 1 { print $5 }' \
		/proc/self/mountinfo | sort -r
}

# Stop what still runs inside the copy (a qemu after ^C), then unmount.
unmount_root() {
	local root=$1 p sig m
	for sig in TERM KILL; do
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] &&
				kill -s $sig "${p#/proc/}" 2>/dev/null
		done
		[ $sig = KILL ] || sleep 1
	done
	for m in $(mounts_under "$root"); do
		umount "$m" 2>/dev/null || umount -l "$m" || true
	done
	[ -z "$(mounts_under "$root")" ]
}

remove_root() {
	local root=$1
	[ -d "$root" ] || return 0
	if ! unmount_root "$root"; then
		echo "fresh-check: still mounted, not removed:" \
			"$(mounts_under "$root" | tr '\n' ' ')" >&2
	elif [ "${FRESH_KEEP:-0}" = 1 ]; then
		echo "fresh-check: kept $root (mount it again to chroot into it)"
	else
		rm -rf --one-file-system "$root"
	fi
}

cleanup() {
	local rc=$? r
	trap - EXIT INT TERM
	set +e
	for r in "${roots[@]}"; do remove_root "$r"; done
	rm -f "$base.tmp"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mount_root() {
	local root=$1
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mount --bind /dev "$root/dev"
	mount --bind /dev/pts "$root/dev/pts"
	cp /etc/resolv.conf "$root/etc/resolv.conf"
}

# in_root ROOT COMMAND: bash -c COMMAND as root in a clean environment.
in_root() {
	chroot "$1" /usr/bin/env -i HOME=/root USER=root LOGNAME=root \
		SHELL=/bin/bash TERM="${TERM:-dumb}" \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/bash -c "$2"
}

# ---- the base image --------------------------------------------------------
exec 9>"$cache/.image.lock"
flock 9
if [ ! -s "$base" ] || [ "${FRESH_REBUILD:-0}" = 1 ]; then
	say "debootstrap bookworm (minbase + $include) from $mirror"
	img=$cache/run/image-$$
	roots+=("$img")
	rm -rf "$img"
	t0=$(date +%s)
	debootstrap --variant=minbase --include="$include" bookworm "$img" \
		"$mirror" >"$logs/image.log" 2>&1 ||
		die "debootstrap failed, see $logs/image.log"
	rm -f "$img/etc/apt/sources.list"
	printf '%s\n' "$sources" >"$img/etc/apt/sources.list.d/debian.sources"
	[ -z "$apt_host" ] ||
		printf '%s\n' "$apt_host" >"$img/etc/apt/apt.conf.d/99host-network"
	printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost\n' >"$img/etc/hosts"
	echo fresh >"$img/etc/hostname"
	mount_root "$img"
	in_root "$img" 'export DEBIAN_FRONTEND=noninteractive
		apt-get update && apt-get -y upgrade && apt-get clean &&
		rm -rf /var/lib/apt/lists/*' >>"$logs/image.log" 2>&1 ||
		die "upgrading the image failed, see $logs/image.log"
	unmount_root "$img" || die "cannot unmount $img"
	: >"$img/etc/resolv.conf"
	tar -C "$img" --numeric-owner -cf "$base.tmp" .
	mv "$base.tmp" "$base"
	remove_root "$img"
	find "$cache" -maxdepth 1 -name 'base-*.tar' ! -name "${base##*/}" -delete
	say "image $base ($(du -h "$base" | cut -f1), $(($(date +%s) - t0))s)"
else
	say "image $base (cached)"
fi
exec 9>&-

# ---- the steps -------------------------------------------------------------
results=()
failed=0

# new_root NAME: a pristine copy with the mounts and a clone at COMMIT.
new_root() {
	root=$cache/run/$1-$$
	roots+=("$root")
	rm -rf "$root"
	mkdir -p "$root"
	tar -C "$root" -xf "$base"
	mount_root "$root"
	mkdir -p "$root/mnt/ketw.git"
	mount --bind "$gitdir" "$root/mnt/ketw.git"
	mount -o remount,bind,ro "$root/mnt/ketw.git"
	# A commit on no branch is not cloned: fetch it by name.
	in_root "$root" "git clone -q /mnt/ketw.git /root/ketw && cd /root/ketw &&
		{ git cat-file -e $commit 2>/dev/null || git fetch -q origin $commit; } &&
		git -c advice.detachedHead=false checkout -q $commit" ||
		die "cannot clone $commit"
}

# timed NAME COMMAND: run COMMAND in /root/ketw of $root, log and time it.
# In the background and waited for, so that a signal reaches the trap at
# once; the load average says how much else the host was running.
timed() {
	local name=$1 cmd=$2 log=$logs/$1.log rc=0 t0 secs pid load0 load1
	say "$name: $cmd (log $log)"
	read -r load0 _ </proc/loadavg
	t0=$(date +%s)
	in_root "$root" "cd /root/ketw && $cmd" >"$log" 2>&1 </dev/null &
	pid=$!
	[ "${FRESH_VERBOSE:-0}" != 1 ] || tail -n +1 -f --pid=$pid "$log" &
	wait $pid || rc=$?
	wait
	secs=$(($(date +%s) - t0))
	read -r load1 _ </proc/loadavg
	[ "${FRESH_VERBOSE:-0}" = 1 ] || tail -n 12 "$log" | sed 's/^/   | /'
	say "$name: exit $rc, ${secs}s"
	results+=("$(printf '%-8s %4s %6ss  %4s-%-4s  %s' "$name" "$rc" "$secs" \
		"$load0" "$load1" "$cmd")")
	[ $rc -eq 0 ] || failed=$((failed + 1))
}

say "commit $commit, logs in $logs"
for step in $steps; do
	case $step in
	check)
		new_root check
		timed check-1 'bash .ci/run'
		timed check-2 'bash .ci/run'
		;;
	demo)
		new_root demo
		if [ -n "$demo_pre" ]; then
			timed demo-pre "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $demo_pre"
		fi
		timed demo "$demo_cmd"
		;;
	*)
		die "unknown step $step (FRESH_STEPS: check demo)"
		;;
	esac
	remove_root "$root"
done

echo
say "fresh Debian 12 ($(basename "$base")), commit $short"
printf '   %-8s %4s %7s  %-9s  %s\n' step exit wall load command
printf '   %s\n' "${results[@]}"
[ $failed -eq 0 ]
