#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The ketw demo, run by /init inside the QEMU guest (make demo): trace
# 20 events of the sample provider into a session, save them to a file
# and print them.
set -eu

KETW=/ketw/ketw

run() {
	echo "\$ $*"
	"$@"
}

run $KETW start -s demo
echo '$ echo 20 > /sys/module/ketw_sample/parameters/emit'
echo 20 >/sys/module/ketw_sample/parameters/emit
run $KETW stop -s demo
run $KETW extract -s demo -o /tmp/demo.ketw
run ls -l /tmp/demo.ketw
run $KETW report /tmp/demo.ketw
run $KETW reset -s demo
