#!/usr/bin/env bash
# docs that run as written: every command in a code block of README.md and docs/*.md (a line
# starting with kpair, harness/kpair or make, after an optional "$ ") is one of
#   - run here, as written (kpair -> harness/kpair, from the project root): it must exit 0, or
#     1 for a comparison that found a regression;
#   - in a block marked <!-- run by tests/.../t-NN.t -->: that test exists and holds the
#     command's paths, settings and options (its words with a '/', a '=' or a leading '--');
#   - in a block marked <!-- illustration: why -->: a synopsis with placeholders, or too long
#     to run here; every --option it names is one kpair help knows, every make target exists.
# So a page cannot drift from the code unseen. Runs last: it boots a few guests.
. "$(dirname "$0")/lib.sh"
need_kernel
cd "$ROOT" || exit 1
/usr/bin/python3 - README.md docs/*.md >"$WORK/cmds.tsv" <<'EOF'
import re, sys
for path in sys.argv[1:]:
    lines = open(path).read().split("\n")
    inblock, mark, i = False, "", 0
    while i < len(lines):
        l = lines[i]
        if l.startswith("```"):
            if not inblock:
                prev = next((p for p in reversed(lines[:i]) if p.strip()), "")
                m = re.match(r"<!-- (illustration|run by) ?:? ?(.*?) -->", prev.strip())
                mark = (m.group(1).replace(" ", "-") + "\x1f" + m.group(2)) if m else "run\x1f-"
            inblock = not inblock
            i += 1
            continue
        if inblock:
            start, cmd = i, re.sub(r"^\$ ", "", l)
            while cmd.endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd[:-1] + " " + lines[i].strip()
            if re.match(r"(harness/)?kpair |make ", cmd):
                cmd = re.sub(r"\s{2,}#.*$", "", cmd).strip()
                print(f"{path}:{start + 1}\x1f{mark}\x1f{cmd}")
        i += 1
EOF
n=$(wc -l <"$WORK/cmds.tsv")
plan $((n + 1))
[ "$n" -ge 40 ]
ok $? "$n commands in README.md and docs/ ($(cut -d$'\x1f' -f2 "$WORK/cmds.tsv" | sort | uniq -c | xargs))"
"$KPAIR" help >"$WORK/help.txt" 2>&1
ls results >"$WORK/results.before" 2>/dev/null
while IFS=$'\x1f' read -r at kind ref cmd; do
	case "$kind" in
	illustration)
		bad=""
		for w in $cmd; do
			case "$w" in
			--*) o=${w%%=*}; o=${o%]}; grep -q -- "$o\b" "$WORK/help.txt" || bad="$bad $o" ;;
			esac
		done
		[ "${cmd%% *}" != make ] || grep -q "^${cmd#make }:\|^${cmd#make } *:\|[ ]${cmd#make }[ :]" Makefile ||
			bad="$bad make-target"
		[ -z "$bad" ]
		ok $? "$at: an illustration ($ref)${bad:+; unknown:$bad}"
		;;
	run-by)
		bad=""
		[ -f "$ref" ] || bad=" (no $ref)"
		for w in ${cmd#* }; do	# its words after kpair itself
			w=${w//\"/}
			case "$w" in
			*/*|*=*|--*) [ -f "$ref" ] && ! grep -qF -- "$w" "$ref" && bad="$bad $w" ;;
			esac
		done
		[ -z "$bad" ]
		ok $? "$at: run by $ref${bad:+; not there:$bad}"
		;;
	*)
		run=${cmd/#kpair /$KPAIR }
		run=${run/#harness\/kpair /$KPAIR }
		t0=$(date +%s)
		eval "timeout 600 $run" >"$WORK/out" 2>&1
		rc=$?
		[ $rc = 0 ] || { [ $rc = 1 ] && [[ "$cmd" =~ kpair\ (ab|calibrate|compare) ]]; }
		ok $? "$at: runs as written (exit $rc, $(( $(date +%s) - t0 )) s): ${cmd:0:70}"
		[ $rc -le 1 ] || tail -3 "$WORK/out" | sed 's/^/#   /'
		;;
	esac
done <"$WORK/cmds.tsv"
# what the commands run here wrote under results/ goes again
ls results 2>/dev/null | grep -vxFf "$WORK/results.before" | while read -r d; do rm -rf "results/$d"; done
done_testing
