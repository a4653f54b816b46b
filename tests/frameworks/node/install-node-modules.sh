#!/bin/sh
# Installs the Node frameworks pinned in package-lock.json (this directory) into DEST/node_modules,
# a folder of the test build, never the source tree or the product: `npm ci` from the npm
# registry, install scripts off (none of these packages needs one; msgpackr's optional native
# part falls back to JavaScript). Skipped when DEST already holds exactly this lock file.
# Run by ctest's set-up entry frameworks.node_modules; by hand:
#   tests/frameworks/node/install-node-modules.sh build/dev/frameworks-node
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: install-node-modules.sh DEST}
mkdir -p "$dest"
if [ -d "$dest/node_modules" ] && cmp -s "$here/package-lock.json" "$dest/installed-lock.json"; then
  echo "node modules up to date in $dest"
  exit 0
fi
cp "$here/package.json" "$here/package-lock.json" "$dest/"
rm -f "$dest/installed-lock.json"
(cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
cp "$here/package-lock.json" "$dest/installed-lock.json"
echo "installed into $dest/node_modules"
