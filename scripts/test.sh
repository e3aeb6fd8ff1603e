#!/usr/bin/env bash
# The whole test suite, from a clean clone on a fresh Debian machine.
# Installs what the suite needs (bubblewrap, python3-pypdf and python3-venv,
# npm packages), then lints, typechecks, builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the suite needs, each installed only when missing:
# bubblewrap for the tier-3 sandbox, python3-pypdf for the pdf-form fixture
# skill's scripts (run by Debian's /usr/bin/python3, inside and outside the
# sandbox), and python3-venv where the system python3 cannot make a venv (the
# sandbox tests run a real venv interpreter), and postgresql for the
# skillhost/postgres tests (a private server per test file; nothing system-wide
# is started).
missing=()
if [[ "$(uname -s)" == "Linux" ]]; then
  command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
  /usr/bin/python3 -c 'import pypdf' >/dev/null 2>&1 || missing+=(python3-pypdf)
  venv_probe="$(mktemp -d)"
  if [[ -x /usr/bin/python3 ]] && ! /usr/bin/python3 -m venv --without-pip "$venv_probe/v" >/dev/null 2>&1; then
    missing+=(python3-venv)
  fi
  rm -rf "$venv_probe"
  # postgresql for the skillhost/postgres tests: each test file starts its own
  # throwaway server from Debian's binaries (scripts/postgres-server.mjs).
  compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
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

npx biome check .
npx tsc -p tsconfig.json --noEmit
npx tsc -p tsconfig.build.json
npx publint --strict
report="$(mktemp)"
status=0
npx vitest run --reporter=default --reporter=json --outputFile.json="$report" || status=$?
# One plain closing line that any CI reads the same way.
node -e '
  const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`)
' "$report" || true
rm -f "$report"
exit "$status"
