#!/usr/bin/env bash
# workers.sh — the process-isolation scale figures of docs/performance.md
# (issue 26, point 2): for n generated one-tool plugins, the resident
# memory of the host and all its workers and the start time, in process
# isolation and — the baseline, in the same run — in process.
#
#   internal/scalegen/workers.sh [N...]      # default: 100 1000
#   WORKERS=0 internal/scalegen/workers.sh 100   # a worker per plugin
#
# RSS is the sum of VmRSS (/proc/PID/status) over the host and its worker
# processes, after Start and one call of every 10th tool; Pss
# (/proc/PID/smaps_rollup) is the same sum with shared pages divided
# among the processes that map them. Start is the median over RUNS of the
# one-shot `crystal-star call` (New, Start, one call, Close).
set -euo pipefail
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
runs=${RUNS:-5}
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 1000)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/crystal-star" ./cmd/crystal-star

now() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# sum FIELD FILE PID... sums a kB field over the processes.
sum() {
	local field=$1 file=$2 total=0 v
	shift 2
	for pid in "$@"; do
		v=$(awk -v f="$field:" '$1 == f {print $2}' "/proc/$pid/$file" 2>/dev/null || echo 0)
		total=$((total + ${v:-0}))
	done
	echo "$total"
}

printf '%-8s %-11s %-8s %-10s %-10s %-10s\n' plugins isolation workers rss-MB pss-MB call-ms
for n in "${sizes[@]}"; do
	dir="$work/p$n"
	go run ./internal/scalegen/genplugins -n "$n" "$dir"
	for mode in process in_process; do
		home="$work/home-$mode" ws="$work/ws"
		mkdir -p "$home" "$ws"
		{ echo "isolation = \"$mode\""; [ -z "${WORKERS:-}" ] || echo "workers = $WORKERS"; } >"$home/config.toml"
		fifo="$work/in" && rm -f "$fifo" && mkfifo "$fifo"
		"$work/crystal-star" --home "$home" --workspace "$ws" dev "$dir" <"$fifo" >"$work/out" 2>&1 &
		host=$!
		exec 3>"$fifo"
		until grep -q '^ready:' "$work/out"; do sleep 0.1; done
		for ((i = 0; i < n; i += 10)); do echo "/call echo_$i {\"text\": \"x$i\"}" >&3; done
		until grep -q "^x$(((n - 1) / 10 * 10))\$" "$work/out"; do sleep 0.1; done
		pids=("$host" $(pgrep -P "$host" || true))
		rss=$(sum VmRSS status "${pids[@]}") pss=$(sum Pss smaps_rollup "${pids[@]}")
		echo /quit >&3
		exec 3>&-
		wait "$host" || true
		: >"$work/t"
		for _ in $(seq "$runs"); do
			t=$(now)
			"$work/crystal-star" --home "$home" --workspace "$ws" --dev "$dir" call "echo_$((n / 2))" '{"text": "hi"}' >/dev/null
			echo $(($(now) - t)) >>"$work/t"
		done
		awk -v n="$n" -v m="$mode" -v w="$((${#pids[@]} - 1))" -v r="$rss" -v p="$pss" -v t="$(median <"$work/t")" \
			'BEGIN {printf "%-8d %-11s %-8d %-10.1f %-10.1f %-10.1f\n", n, m, w, r/1024, p/1024, t/1e6}'
	done
done
