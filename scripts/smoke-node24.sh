#!/usr/bin/env bash
# Runs scripts/smoke.ts under Node 24 from the npm `node` package (no machine-wide install needed).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
npm install --no-save --no-audit --no-fund --prefix "$prefix" node@24 >/dev/null
"$prefix/node_modules/.bin/node" --import tsx scripts/smoke.ts
