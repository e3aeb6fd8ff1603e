#!/bin/sh
# Usage: count.sh [--top N] [--lowercase] FILE
# Counts lines, words and characters; with --top, lists frequent words.
set -eu
# Relative paths name files of the skill, wherever the sandbox put it.
cd "$(dirname "$0")/.."
top=0
lower=0
file=''
while [ $# -gt 0 ]; do
  case "$1" in
    --top) top="$2"; shift 2 ;;
    --lowercase) lower=1; shift ;;
    --) shift; file="${1:-}"; break ;;
    *) file="$1"; shift ;;
  esac
done
if [ -z "$file" ]; then echo 'count.sh: a file is required' >&2; exit 2; fi
if [ ! -f "$file" ]; then echo "count.sh: no such file: $file" >&2; exit 2; fi
case "$top" in *[!0-9]*) echo 'count.sh: --top must be a whole number' >&2; exit 2 ;; esac
printf 'lines: %s\n' "$(wc -l < "$file" | tr -d ' ')"
printf 'words: %s\n' "$(wc -w < "$file" | tr -d ' ')"
printf 'chars: %s\n' "$(wc -m < "$file" | tr -d ' ')"
if [ "$top" -gt 0 ]; then
  if [ "$lower" -eq 1 ]; then fold='tr A-Z a-z'; else fold='cat'; fi
  tr -cs "A-Za-z0-9'" '\n' < "$file" | $fold | grep -v '^$' | sort | uniq -c | sort -k1,1nr -k2 | head -n "$top" |
    while read -r n w; do printf '%s %s\n' "$n" "$w"; done
fi
