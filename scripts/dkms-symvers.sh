#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DKMS's POST_BUILD for ketw (dkms.conf), run in DKMS's build directory
# before DKMS deletes it: keep ketw's lines of Module.symvers in DIR,
# DKMS's directory for this kernel, so that providers built against this
# kernel's ketw find its symbol versions (KBUILD_EXTRA_SYMBOLS=DIR/Module.symvers,
# Documentation/ketw-providers.rst). "dkms remove" removes DIR.
#
#   dkms-symvers.sh DIR
set -eu

dir=${1:?usage: $0 DIR}
mkdir -p "$dir"
awk -F'\t' 'BEGIN { OFS = "\t" }
	$3 ~ /(^|\/)module\/ketw$/ { $3 = "ketw"; print; n++ }
	END { exit n ? 0 : 1 }' Module.symvers >"$dir/Module.symvers"
