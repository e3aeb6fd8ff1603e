# Sourced by scripts/test.sh: colours only for a terminal. A log or a pipe gets
# plain text (NO_COLOR), even under CI, which turns vitest's colours on;
# FORCE_COLOR=1 keeps them in a pipe, and a NO_COLOR already set stays.
if [[ ! -t 1 && -z "${FORCE_COLOR:-}" ]]; then
  export NO_COLOR=1
fi
