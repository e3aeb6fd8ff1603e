#!/usr/bin/env bash
# Builds dist/ (tsc -p tsconfig.build.json) unless it is current: newer than
# every source and build setting. The one freshness rule, for `npm run demo`
# and the test suite's global setup, so neither reruns a build nothing needs.
# --emit-on-type-errors: tsc exits 2 on a type error but still writes dist/;
# accept that (the test command typechecks strictly before), and do not mark
# the build current, so the next call builds again.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/with-progress.sh

stamp=dist/.build-stamp
inputs=(src tsconfig.json tsconfig.build.json package.json)
if [[ -f "$stamp" ]] && [[ -z "$(find "${inputs[@]}" -newer "$stamp" -print -quit)" ]]; then
  echo "== build is current (dist/ is newer than src/)"
  exit 0
fi
# Taken before tsc reads anything: a source saved during the build is newer than the stamp.
mkdir -p dist
started="$(mktemp dist/.build-started.XXXXXX)"
trap 'rm -f "$started"' EXIT
status=0
with_progress "building (tsc -p tsconfig.build.json)" npx tsc -p tsconfig.build.json || status=$?
if [[ $status -eq 0 ]]; then
  mv "$started" "$stamp"
elif [[ $status -eq 2 && "${1:-}" == "--emit-on-type-errors" ]]; then
  rm -f "$stamp"
else
  exit "$status"
fi
