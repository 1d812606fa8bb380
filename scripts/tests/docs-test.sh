#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every Documentation/*.rst parses as reStructuredText without a warning
# or an error (docutils, as the kernel's Sphinx build would complain).
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
# Debian's python3, which python3-docutils (deps.sh) is installed for.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
fail=0
for f in "$top"/Documentation/*.rst; do
	out=$("$py" - "$f" <<'PY'
import io, sys
import docutils.core
err = io.StringIO()
docutils.core.publish_doctree(open(sys.argv[1], encoding="utf-8").read(),
    source_path=sys.argv[1],
    settings_overrides={"report_level": 2, "halt_level": 5,
                        "warning_stream": err})
sys.stdout.write(err.getvalue())
PY
)
	if [ -n "$out" ]; then
		echo "docs-test: ${f#"$top"/}:"
		echo "$out" | sed 's/^/  /'
		fail=1
	fi
done
n=$(ls "$top"/Documentation/*.rst | wc -l)
[ "$fail" -eq 0 ] && echo "ok $n Documentation/*.rst parse cleanly" || exit 1
