#!/usr/bin/env bash
# The suite (or some of its files) as if run on another day: `bash scripts/test-on.sh 2026-11-28 [files…]`.
#
# Business days decide when a boleto settles, when a withdrawal leaves and when a boleto falls due
# (docs/calendar.md), so a test that assumes "tomorrow is a business day" passes on most days and fails on
# a Friday, a weekend or the eve of a holiday. This runs the suite under libfaketime (Debian's `faketime`)
# at 14:00 UTC (11:00 in São Paulo) of the date given; the service, its children and PostgreSQL see that
# day, with time running on from there (docs/development.md "On another day").
set -euo pipefail
day="${1:?usage: scripts/test-on.sh YYYY-MM-DD [test files…]}"
shift
command -v faketime >/dev/null || { echo "faketime is missing: apt-get install -y faketime" >&2; exit 1; }
cd "$(dirname "$0")/.."
# The spawned processes' build is made on the real clock first: its lock compares the faked clock with
# the file system's times, which faketime leaves real (test/support/compiled.ts).
npx tsx -e 'import("./test/support/compiled.ts").then((m) => m.serviceEntry())'
# Monotonic clocks stay real: timers and time-outs measure real time.
FAKETIME_DONT_FAKE_MONOTONIC=1 exec faketime "$day 14:00:00" npx vitest run "$@"
