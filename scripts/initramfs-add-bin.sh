#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Copy an executable into an initramfs staging tree together with the
# shared libraries and dynamic loader it needs (as ldd reports them).
#
#   scripts/initramfs-add-bin.sh ROOT BINARY [DEST]
#
# DEST is the path inside the guest (default: BINARY's own path).
# Libraries keep their host paths, which the loader searches by default.
set -euo pipefail

root=${1:?usage: $0 ROOT BINARY [DEST]}
bin=${2:?usage: $0 ROOT BINARY [DEST]}
dest=${3:-$bin}

[ -x "$bin" ] || { echo "initramfs-add-bin: $bin: not an executable" >&2; exit 1; }
install -D -m 0755 "$bin" "$root/$dest"

# Static binaries: ldd says "not a dynamic executable" and fails.
deps=$(ldd "$bin" 2>/dev/null || true)
if grep -q 'not found' <<<"$deps"; then
	echo "initramfs-add-bin: $bin: missing libraries:" >&2
	grep 'not found' <<<"$deps" >&2
	exit 1
fi
libs=$(grep -o '/[^ ]*' <<<"$deps" || true)
for lib in $libs; do
	[ -e "$root/$lib" ] && continue
	install -D -m 0755 "$(readlink -f "$lib")" "$root/$lib"
done
