#!/usr/bin/env bash
# The main job: install, build, and show skillhost working on examples/skills.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/with-progress.sh

if [[ ! -d node_modules ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  with_progress "installing packages (npm ci)" npm ci --no-audit --no-fund --loglevel=error
fi
bash scripts/build-dist.sh
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
