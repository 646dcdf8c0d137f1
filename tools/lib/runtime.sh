# Shared by tools/test and tools/start (sourced, not run): the supported Node runtimes and the
# project's dependencies. Expects $root (the repository) and the functions step and fail.

# Each tools/node/<major>/package.json pins one release of the npm registry's `node` package,
# whose install step fetches that release's binary and headers (node-<platform>-<arch>).
runtime_bin() { printf '%s/tools/node/%s/node_modules/node/bin' "$root" "$1"; }

runtime_headers() {
  local dir
  for dir in "$root/tools/node/$1"/node_modules/node/node_modules/node-*; do
    [ -f "$dir/include/node/node_api.h" ] && { printf '%s' "$dir"; return 0; }
  done
  return 1
}

# Installs tools/node/<major> unless the pinned release is already there.
install_runtime() {
  local major=$1 want have=''
  want=$(sed -n 's/.*"node": "\([0-9.]*\)".*/\1/p' "$root/tools/node/$major/package.json")
  [ -x "$(runtime_bin "$major")/node" ] && have=$("$(runtime_bin "$major")/node" --version)
  if [ "$have" != "v$want" ] || ! runtime_headers "$major" >/dev/null; then
    step "Node $want into tools/node/$major (from the npm registry's node package)"
    (cd "$root/tools/node/$major" && npm ci --no-audit --no-fund --loglevel=error)
    [ "$("$(runtime_bin "$major")/node" --version)" = "v$want" ] || fail "Node $want did not install"
  fi
}

# Puts tools/node/<major> first on PATH; npm and everything it starts then run on it.
use_runtime() {
  PATH="$(runtime_bin "$1"):$PATH"
  export PATH
  # Native addons build against this runtime's headers, not the machine's (~/.npmrc may name
  # another Node's).
  npm_config_nodedir="$(runtime_headers "$1")"
  export npm_config_nodedir
  hash -r
}

# True when the Node on PATH is a supported line (22.19+ or 24+).
node_supported() {
  node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a >= 24 || (a === 22 && b >= 19) ? 0 : 1)' 2>/dev/null
}

# `npm ci` unless node_modules already holds what package-lock.json says (npm writes its hidden
# lockfile, node_modules/.package-lock.json, at the end of every install).
install_dependencies() {
  if [ ! "$root/node_modules/.package-lock.json" -nt "$root/package-lock.json" ]; then
    step "npm ci on Node $(node --version)"
    (cd "$root" && npm ci --no-audit --no-fund)
  fi
}
