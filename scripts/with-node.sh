#!/usr/bin/env bash
# Runs a command with Node <major> first in PATH (docs/development.md "Supported Node lines"): the
# machine's own node when it is already that line, otherwise the binary of the npm `node` package
# (node@<major>), installed once into a cache directory and reused. Nothing machine-wide is touched.
#   bash scripts/with-node.sh 26 npm test
set -euo pipefail
major=${1:?usage: scripts/with-node.sh <major> <command…>}
shift
if [ "$(node -p 'process.versions.node.split(".")[0]')" = "$major" ]; then
  exec "$@"
fi
cache=${NODE_LINES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/brazil-payment-gateway}/node-$major
if [ ! -x "$cache/node_modules/.bin/node" ]; then
  mkdir -p "$cache"
  npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$cache" "node@$major" >/dev/null
fi
# npm, npx and tsx start through `#!/usr/bin/env node`, and vitest forks its workers with
# process.execPath: with this bin first in PATH the whole command runs on that line.
export PATH="$cache/node_modules/.bin:$PATH"
echo "with-node: $(node --version) from $cache" >&2
exec "$@"
