#!/usr/bin/env bash
# Checks that every relative link in README.md and docs/**/*.md points at a file or
# folder of the repository and, with #anchor, at a heading of that Markdown file.
# Links inside code (fenced blocks, `spans`) are not links; http(s)/mailto are skipped.
# Usage: tests/docs/check_links.sh [REPOSITORY_ROOT]   (default: two folders up)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root"

# The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces to '-'.
anchors() {
  sed '/^[[:space:]]*```/,/^[[:space:]]*```/d' "$1" | grep -E '^#{1,6} ' | sed -E 's/^#+ +//; s/ +#+ *$//' |
    sed -E 's/`//g; s/\[([^]]*)\]\([^)]*\)/\1/g' | tr '[:upper:]' '[:lower:]' |
    sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}

bad=0
checked=0
files=(README.md)
while IFS= read -r f; do files+=("$f"); done < <(find docs -name '*.md' -type f | sort)
for file in "${files[@]}"; do
  dir=$(dirname "$file")
  # Drop fenced code blocks and inline code, then take every ](target).
  links=$(sed '/^[[:space:]]*```/,/^[[:space:]]*```/d' "$file" | sed 's/`[^`]*`//g' |
            grep -oE '\]\([^)[:space:]]+\)' | sed -E 's/^\]\(//; s/\)$//' || true)
  for link in $links; do
    case "$link" in http://*|https://*|mailto:*) continue ;; esac
    checked=$((checked + 1))
    path=${link%%#*}
    anchor=
    [[ "$link" == *"#"* ]] && anchor=${link#*#}
    if [[ -z "$path" ]]; then
      target=$file
    else
      target=$dir/$path
      if [[ ! -e "$target" ]]; then
        echo "$file: link '$link': $target does not exist"
        bad=$((bad + 1))
        continue
      fi
    fi
    if [[ -n "$anchor" ]]; then
      if [[ "$target" != *.md || ! -f "$target" ]]; then
        echo "$file: link '$link': an anchor into something that is not a Markdown file"
        bad=$((bad + 1))
      elif ! anchors "$target" | grep -qxF -- "$anchor"; then
        echo "$file: link '$link': no heading '#$anchor' in $target"
        bad=$((bad + 1))
      fi
    fi
  done
done
echo "check_links: ${#files[@]} files, $checked relative links, $bad broken"
[[ $bad -eq 0 ]]
