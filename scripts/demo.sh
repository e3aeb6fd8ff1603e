#!/usr/bin/env bash
# The main job: install, build, and show skillhost working on examples/skills.
set -euo pipefail
cd "$(dirname "$0")/.."

# Runs "$@" under a label, saying every 10 s that it is still running: a fresh
# install and build take about a minute, and a silent minute looks hung.
with_progress() {
  local label=$1 started=$SECONDS pid ticks=0
  shift
  echo "== $label"
  "$@" &
  pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    sleep 1
    ticks=$((ticks + 1))
    if ((ticks % 10 == 0)) && kill -0 "$pid" 2>/dev/null; then
      echo "   ... still $label ($((SECONDS - started)) s)"
    fi
  done
  wait "$pid"
  echo "   done in $((SECONDS - started)) s"
}

if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  with_progress "installing packages (npm ci)" npm ci --no-audit --no-fund --loglevel=error
fi
# The build is skipped while dist/ is newer than every source and build setting:
# a second `npm run demo` starts at once instead of rerunning tsc.
build_inputs=(src tsconfig.json tsconfig.build.json package.json)
if [[ -f dist/cli/main.js ]] && [[ -z "$(find "${build_inputs[@]}" -newer dist/cli/main.js -print -quit)" ]]; then
  echo "== build is current (dist/ is newer than src/)"
else
  with_progress "building (tsc -p tsconfig.build.json)" npx tsc -p tsconfig.build.json
fi
echo
echo "== skillhost validate examples/skills"
node dist/cli/main.js validate examples/skills
echo
echo "== skillhost list examples/skills"
node dist/cli/main.js list examples/skills
echo
echo "== skillhost prompt examples/skills"
node dist/cli/main.js prompt examples/skills
echo
echo "== skillhost demo $* (a scripted model unless OPENAI_API_KEY or ANTHROPIC_API_KEY is set)"
# The demo's own flags (npm run demo -- --no-scripts) reach it.
node dist/cli/main.js demo "$@"
