#!/usr/bin/env bash
# golden: every link of README.md into docs/ resolves: the file exists and, for a link with an
# anchor, the file has a heading that GitHub gives that anchor. The docs' links to each other
# and back to the README are checked the same way.
. "$(dirname "$0")/../boot/lib.sh"
plan 4
# links FILE: "target" for every markdown link [text](target) outside code blocks
links() {
	awk '/^```/ { f = !f; next } !f' "$1" | grep -o '\]([^)]*)' | sed 's/^](//; s/)$//'
}
# anchors FILE: GitHub's anchor of every heading (lowercase, punctuation dropped, spaces to -)
anchors() {
	awk '/^```/ { f = !f; next } !f && /^#+ /' "$1" | sed 's/^#* //' |
		tr 'A-Z' 'a-z' | sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}
# check FILE: every relative link of FILE resolves; prints the ones that do not
check() {
	local file=$1 dir l path frag bad=0
	dir=$(dirname "$file")
	while read -r l; do
		case "$l" in http*|mailto:*|'') continue ;; esac
		path=${l%%#*}
		frag=${l#"$path"}
		frag=${frag#\#}
		[ -n "$path" ] || path=$(basename "$file")
		if [ ! -e "$dir/$path" ]; then
			echo "#   $file: $l: no such file"; bad=1
		elif [ -n "$frag" ] && ! anchors "$dir/$path" | grep -qx -- "$frag"; then
			echo "#   $file: $l: no heading with that anchor"; bad=1
		fi
	done < <(links "$file")
	return $bad
}

n=$(links "$ROOT/README.md" | grep -c '^docs/')
[ "$n" -ge 10 ]
ok $? "README links into docs/ ($n links)"
check "$ROOT/README.md"
ok $? "every README link resolves (files and anchors)"
fails=0
for f in "$ROOT"/docs/*.md; do
	check "$f" || fails=1
done
ok $fails "every link of docs/*.md resolves"
# and the checker itself catches a missing file and a missing anchor, and passes a good one
f=$(basename "$(ls "$ROOT"/docs/*.md | head -1)")
mkdir -p "$WORK/docs" && cp "$ROOT/docs/$f" "$WORK/docs/"
printf '[a](docs/nonexistent.md)\n[b](docs/%s#no-such-heading)\n[c](docs/%s#%s)\n' "$f" "$f" \
	"$(anchors "$WORK/docs/$f" | head -1)" >"$WORK/R.md"
out=$(check "$WORK/R.md")
rc=$?
[ $rc -eq 1 ] && [ "$(grep -c 'no such file\|no heading' <<<"$out")" = 2 ]
ok $? "the checker reports a missing file and a missing anchor, not a good link"
done_testing
