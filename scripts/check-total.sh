#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The last line of make check: the guest runs' counts added up.
#
#   scripts/check-total.sh VM_DIR...
#
# Each VM_DIR holds the "passed failed skipped" that scripts/run-vm.sh
# wrote as its result; a run without one counts as a failure.
set -euo pipefail

p=0 f=0 s=0 parts=()
for d in "$@"; do
	if read -r a b c <"$d/result" 2>/dev/null; then
		p=$((p + a)) f=$((f + b)) s=$((s + c))
		parts+=("${d##*/}: $a/$b/$c")
	else
		f=$((f + 1))
		parts+=("${d##*/}: no result")
	fi
done
echo "check total (${parts[*]}):"
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
