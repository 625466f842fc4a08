# Shell helpers the bench scripts source (bench/script, bench/spe):
#   measure CMD...  runs CMD with output dropped; prints "wall cpu peak_rss_kB"
#                   (cpu = user + sys, from /usr/bin/time)
#   median          the median of the numbers on stdin, one a line
measure() {
	local t
	t=$(mktemp)
	/usr/bin/time -f "%e %U %S %M" -o "$t" "$@" >/dev/null 2>/dev/null || true
	tail -1 "$t" | awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}'
	rm -f "$t"
}

median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
