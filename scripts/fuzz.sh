#!/usr/bin/env bash
# fuzz.sh runs every fuzz target of the module, one after the other, for a
# given time each, and prints per target the executions, the new corpus
# entries and whether it found a failing input.
#
#   scripts/fuzz.sh            # 30s per target
#   scripts/fuzz.sh 5m         # any -fuzztime value: 10s, 5m, 100000x
#   scripts/fuzz.sh 10s ./args ./adapters/...   # only these packages
#
# Targets are discovered with `go test -list '^Fuzz'`. A finding is written
# by Go to the package's testdata/fuzz/<Target>/ (commit it once fixed: it
# becomes a seed that `go test` replays). Exit status: 0 when no target
# found anything, 1 on a finding or a target that failed to run, 2 on bad
# usage. A target that found nothing but was failed by Go's coordinator as
# -fuzztime ended ("context deadline exceeded": go.dev/issue/75804, fixed
# in Go 1.27) is counted apart and does not fail the run.
#
# Each input that widens coverage is minimized for at most FUZZ_MINIMIZE
# (a -fuzzminimizetime value, default 200x: 200 executions). Go's own
# default, 60 s an input, made a short run of a target whose inputs are
# large spend all its time minimizing (FuzzDecodeToolSpec: 21 executions in
# 10 s).
set -uo pipefail

usage() {
	echo "usage: $0 [fuzztime] [packages...]   (fuzztime: a go test -fuzztime value, default 30s)" >&2
	exit 2
}

fuzztime="${1:-30s}"
[[ "$fuzztime" =~ ^[0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h|x)$ ]] || usage
shift || true
pkgs=("$@")
[ ${#pkgs[@]} -eq 0 ] && pkgs=(./...)

cd "$(dirname "$0")/.." || exit 2

# Discover "package target" pairs: go test -list prints a package's
# matching names, then its "ok <package>" line.
list=$(go test -list '^Fuzz' "${pkgs[@]}" 2>&1) || {
	echo "$list" >&2
	echo "fuzz.sh: listing the fuzz targets failed" >&2
	exit 1
}
targets=()
pending=()
while IFS= read -r line; do
	case "$line" in
	Fuzz*) pending+=("$line") ;;
	ok*)
		pkg=$(awk '{print $2}' <<<"$line")
		for t in "${pending[@]}"; do targets+=("$pkg $t"); done
		pending=()
		;;
	*) pending=() ;;
	esac
done <<<"$list"

if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz.sh: no fuzz targets in ${pkgs[*]}" >&2
	exit 1
fi

echo "fuzzing ${#targets[@]} targets for $fuzztime each"
printf '%-52s %-26s %12s %8s  %s\n' PACKAGE TARGET EXECS NEW RESULT
findings=0
failed=0
raced=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for entry in "${targets[@]}"; do
	pkg=${entry% *}
	target=${entry#* }
	go test -run='^$' -fuzz="^${target}\$" -fuzztime="$fuzztime" -fuzzminimizetime="${FUZZ_MINIMIZE:-200x}" "$pkg" >"$log" 2>&1
	status=$?
	# The last progress line holds the totals:
	# "fuzz: elapsed: 10s, execs: 123456 (12345/sec), new interesting: 7 (total: 20)"
	last=$(grep -E '^fuzz: elapsed: .*execs: [0-9]+' "$log" | tail -n 1)
	execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
	new=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
	result=ok
	if [ $status -ne 0 ]; then
		input=$(grep -oE 'testdata/fuzz/[^ ]+' "$log" | head -n 1)
		if [ -n "$input" ]; then
			result="FINDING: $pkg/$input"
			findings=$((findings + 1))
		elif [ "$(grep -cvE '^(fuzz: |--- FAIL: |    context deadline exceeded$|FAIL|exit status 1$)' "$log")" -eq 0 ]; then
			# Go's coordinator can fail a target that found nothing as
			# -fuzztime ends ("context deadline exceeded", no input
			# written): go.dev/issue/75804, fixed in Go 1.27.
			result="ok (ended by Go's -fuzztime race, go.dev/issue/75804)"
			raced=$((raced + 1))
			printf '%-52s %-26s %12s %8s  %s\n' "${pkg#github.com/toolpack-go/toolpack/}" "$target" "${execs:--}" "${new:--}" "$result"
			continue
		else
			result="FAILED to run (exit $status)"
			failed=$((failed + 1))
		fi
		sed 's/^/    /' "$log" | tail -n 30
	fi
	printf '%-52s %-26s %12s %8s  %s\n' "${pkg#github.com/toolpack-go/toolpack/}" "$target" "${execs:--}" "${new:--}" "$result"
done
echo "targets: ${#targets[@]}, findings: $findings, failed to run: $failed, ended by Go's -fuzztime race: $raced"
[ $findings -eq 0 ] && [ $failed -eq 0 ]
