#!/usr/bin/env bash
# The repository speaks of the product only: its sources, tests, scripts and docs cite the
# repository's own docs (README sections, docs/*.md) or RFCs, never an outside contract, a
# tracker's numbers, a dated work log, a branch or who did what. History is what git is for.
# It also checks that a comment citing a doc's section names one that exists.
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
# A comment that cites a section (README "Name", docs/X.md "Name") names a heading that exists.
while IFS= read -r cited; do
  file=$(printf '%s' "$cited" | sed -E 's/^(README|docs\/[A-Za-z]+\.md)[,:]? .*/\1/')
  [ "$file" = README ] && file=README.md
  section=$(printf '%s' "$cited" | sed -E 's/^[^"]*"([^"]+)".*/\1/')
  if ! grep -qE "^#+ (([0-9]+\. )?)$(printf '%s' "$section" | sed 's/[][\.*^$/()+?{}|]/\\&/g')( |,|$)" "$file" 2>/dev/null; then
    echo "check-words: $file has no section \"$section\" (cited in a comment)"
    found=1
  fi
done < <(git grep -hoIE '(README|docs/[A-Za-z]+\.md)[,]? "[^"]+"' -- Sources Tests | sort -u)
[ "$found" -eq 0 ] && echo "check-words: ok"
exit "$found"
