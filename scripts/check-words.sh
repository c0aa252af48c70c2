#!/usr/bin/env bash
# The repository speaks of the product only: its sources, tests, scripts and docs cite the
# repository's own docs (README sections, docs/*.md) or RFCs, never an outside contract, a
# tracker's numbers, a dated work log, a branch or who did what. History is what git is for.
# Usage: scripts/check-words.sh   (exit 1 and the offending lines when any is found)
set -uo pipefail
cd "$(dirname "$0")/.."

patterns=(
  '\bSPEC\b'                                                   # an outside specification
  '\b[Ii]ssues? #?[0-9]+'                                      # a tracker's numbers
  '\b([Ff]irst|[Ss]econd|[Tt]hird|[Ff]ourth|[Ff]ifth|[Ss]ixth|[Ss]eventh|[Ee]ighth|[Nn]inth|[Tt]enth|[Ee]leventh|[Tt]welfth|[Tt]his|[Ll]ast|[Pp]revious|[Nn]ext) (work )?session\b'
  '\b(sub-?agents?|the lead|ops engineer|other engineers)\b'   # team roles
  '\bwt-[a-z]+\b'                                              # work branches
  '`[A-Za-z0-9._-]+` branch\b'
)
found=0
for pattern in "${patterns[@]}"; do
  hits=$(git grep -nIE "$pattern" -- . ':!scripts/check-words.sh' 2>/dev/null)
  if [ -n "$hits" ]; then
    echo "check-words: lines matching /$pattern/:"
    echo "$hits" | head -20
    found=1
  fi
done
# A Markdown heading that carries a date is a work log's entry.
hits=$(git grep -nIE '^#+ .*\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b' -- '*.md' 2>/dev/null)
if [ -n "$hits" ]; then
  echo "check-words: dated headings (a work log; git keeps the history):"
  echo "$hits" | head -20
  found=1
fi
[ "$found" -eq 0 ] && echo "check-words: ok"
exit "$found"
