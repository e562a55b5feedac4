#!/usr/bin/env bash
# scale.sh — the whole-process scale figures of docs/performance.md
# ("Scale"). It generates n one-tool plugins at run time (nothing generated
# is committed), builds crystal-star and rawstar (the raw go.starlark.net
# program that reads and executes the same files and calls the same tool),
# and times `crystal-star --dev DIR call TOOL JSON` against
# `rawstar DIR TOOL JSON`, interleaved run by run, reporting the median of
# each and their ratio.
#
#   internal/scalegen/scale.sh [N...]     # default: 100 1000
#   RUNS=21 internal/scalegen/scale.sh 1000 10000
#
# Then the library figures (Start, Close, heap, reload) in one run:
#   CRYSTAL_SCALE=100,1000,10000 go test ./starhost -run '^$' -bench BenchmarkScale -benchtime 3x
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
runs=${RUNS:-11}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/crystal-star" ./cmd/crystal-star
go build -o "$work/rawstar" ./internal/scalegen/rawstar

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '%-8s %-14s %-14s %s\n' plugins call-ms raw-ms ratio
for n in "${sizes[@]}"; do
	dir="$work/p$n"
	go run ./internal/scalegen/genplugins -n "$n" "$dir"
	tool="echo_$((n / 2))"
	args='{"text": "hello"}'
	home="$work/home" ws="$work/ws"
	mkdir -p "$home" "$ws"
	# warm the page cache and check both answer the same
	a=$("$work/crystal-star" --home "$home" --workspace "$ws" --dev "$dir" call "$tool" "$args" 2>/dev/null)
	b=$("$work/rawstar" "$dir" "$tool" "$args")
	[ "$a" = "$b" ] || { echo "crystal-star said '$a', rawstar '$b'" >&2; exit 1; }
	: >"$work/host" && : >"$work/raw"
	for _ in $(seq "$runs"); do
		t=$(now); "$work/crystal-star" --home "$home" --workspace "$ws" --dev "$dir" call "$tool" "$args" >/dev/null 2>&1; echo $(($(now) - t)) >>"$work/host"
		t=$(now); "$work/rawstar" "$dir" "$tool" "$args" >/dev/null; echo $(($(now) - t)) >>"$work/raw"
	done
	h=$(median <"$work/host") r=$(median <"$work/raw")
	awk -v n="$n" -v h="$h" -v r="$r" 'BEGIN {printf "%-8d %-14.1f %-14.1f %.2f\n", n, h/1e6, r/1e6, h/r}'
done
