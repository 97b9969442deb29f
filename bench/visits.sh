#!/usr/bin/env bash
# Benchmark visits (NDJSON fixes in, one record per stay out) on a simulated month of fixes at
# 1 Hz, about 2.6 million, and show that its memory is bounded by the longest stay, not by
# the length of the log.
#
#   bench/visits.sh                       # 30 days, release build in .build
#   DAYS=7 RUNS=2 bench/visits.sh         # a smaller, quicker run
#   BUILD_DIR=/tmp/bench-build bench/visits.sh
#   VISITS=/path/to/visits FIXSIM=/path/to/fixsim bench/visits.sh
#
# Environment:
#   DAYS       days in the big log (default 30, at least 8); days 2 to 8 (Tuesday to Monday)
#              make the week log, which holds the month's longest stay whole
#   RUNS       timed runs of each command, after one warm-up run (default 3)
#   PAIRS      rounds of the two commands run in turn (bench/cpu_pairs.py; default RUNS,
#              at least 9)
#   VISITS, FIXSIM, FIXFILTER  binaries to use; no build is done when all three are given
#              (fixfilter is timed on the month too: the target is visits within 1.5x of it,
#              in CPU time with the two run in turn for PAIRS rounds by bench/cpu_pairs.py,
#              whose median ratio decides)
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#
# The log is made with fixsim, one day at a time (seed = day number), the days concatenated
# as one trace "sim" around a point in London. Weekdays: home until 08:00, a cafe, work, lunch,
# work, a shop, home from about 18:20; Saturdays a park and a market; Sundays at home all day,
# so the longest stay runs from Saturday afternoon to Monday 08:00 (42 hours, 150,000 fixes).
# Peak memory follows the longest stay, so the week log is Tuesday to Monday, to hold one
# whole: the month's peak should then be the week's. Every day ends a few minutes before midnight: the gap to the next day's first fix is
# bridged, as a phone that slept a while.
#
# Output (bench/out/, git-ignored): visits-day-*.ndjson, visits-week.ndjson,
# visits-month.ndjson (visits-month-DAYS.ndjson for another DAYS), visits-stay.ndjson, hyperfine's
# visits.md and visits.json, visits-pairs.json (bench/cpu_pairs.py's rounds), and
# visits-summary.txt with everything printed after the build.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
DAYS=${DAYS:-30}
RUNS=${RUNS:-3}

check_whole_number DAYS 8 days
check_whole_number RUNS 2
require_python3 "to compute dates and figures"
require_hyperfine
check_gnu_time

binaries_from_env_or_build "set VISITS, FIXSIM and FIXFILTER to the binaries" VISITS visits FIXSIM fixsim FIXFILTER fixfilter

# --- the log ----------------------------------------------------------------------------------
# Places in metres east,north of home; fixsim stands --pause (30 minutes) at every waypoint
# between the first and the last, so a place repeated n times is a stay of n half hours.
origin=51.5,-0.12
pause=1800
rep() { local i s=""; for ((i = 0; i < $2; i++)); do s+=":$1"; done; printf '%s' "$s"; }
home=0,0 cafe=600,200 work=1500,900 lunch=1700,850 shop=900,-300 park=-800,1200 market=-300,600
route_weekday="$home$(rep $home 16)$(rep $cafe 1)$(rep $work 8)$(rep $lunch 2)$(rep $work 7)$(rep $shop 1)$(rep $home 12)"
route_saturday="$home$(rep $home 20)$(rep $park 4)$(rep $market 2)$(rep $home 21)"
route_sunday="$home$(rep $home 47):$home"
first_day=2026-03-02 # a Monday

day_file() { echo "$out/visits-day-$1.ndjson"; }
make_day() { # day number from 0: writes its file unless it is there
    local k=$1 f start route
    f=$(day_file "$k")
    [[ -s $f ]] && return 0
    start=$(python3 -c "import datetime, sys; d = datetime.date.fromisoformat(sys.argv[1]) + datetime.timedelta(days=int(sys.argv[2])); print(f'{d}T00:00:00Z')" "$first_day" "$k")
    case $((k % 7)) in
    5) route=$route_saturday ;;
    6) route=$route_sunday ;;
    *) route=$route_weekday ;;
    esac
    "$fixsim" --origin "$origin" --route "$route" --pause "$pause" --start "$start" --seed $((k + 1)) >"$f.tmp" ||
        die "fixsim could not write $f"
    mv "$f.tmp" "$f"
}
month=$out/visits-month.ndjson
[[ $DAYS == 30 ]] || month=$out/visits-month-$DAYS.ndjson
week=$out/visits-week.ndjson
stay=$out/visits-stay.ndjson
if [[ ! -s $month || ! -s $week ]]; then
    echo "== generating $DAYS days with fixsim" >&2
    for ((k = 0; k < DAYS; k++)); do make_day "$k"; done
    for ((k = 1; k <= 7; k++)); do cat "$(day_file "$k")"; done >"$week.tmp" && mv "$week.tmp" "$week"
    for ((k = 0; k < DAYS; k++)); do cat "$(day_file "$k")"; done >"$month.tmp" && mv "$month.tmp" "$month"
fi
# One stay of a week at home: what the memory bound is made of.
if [[ ! -s $stay ]]; then
    echo "== generating $stay (one stay of 7 days)" >&2
    "$fixsim" --origin "$origin" --route "$home$(rep $home 336):$home" --pause "$pause" \
        --start "${first_day}T00:00:00Z" --seed 99 >"$stay.tmp" || die "fixsim could not write $stay"
    mv "$stay.tmp" "$stay"
fi

start_summary "$out/visits-summary.txt"
lines() { wc -l <"$1" | tr -d ' '; }

n_month=$(lines "$month")
n_week=$(lines "$week")
n_stay=$(lines "$stay")
say_header "visits benchmark" 11
say "month:     $month: $DAYS days, $n_month fixes, $(file_mib "$month") MiB"
say "week:      $week: 7 days (Tuesday to Monday), $n_week fixes, $(file_mib "$week") MiB"
say "stay:      $stay: one stay of 7 days, $n_stay fixes, $(file_mib "$stay") MiB"
say "visits:    $visits ($("$visits" --version 2>&1 | head -1))"
"$visits" "$month" >"$out/visits-month.out"
summarize "$out/visits-month.out" <<'EOF'
from datetime import datetime
vs = [json.loads(l) for l in open(sys.argv[1])]
t = lambda s: datetime.fromisoformat(s.replace("Z", "+00:00"))
closed = [v for v in vs if v["arrival"] and v["departure"]]
longest = max(vs, key=lambda v: v["fixes"])
print(f"found:     {len(vs)} visits ({len(vs) - len(closed)} with an open end), "
      f"the longest {longest['fixes']:,} fixes"
      + (f", {(t(longest['departure']) - t(longest['arrival'])).total_seconds() / 3600:.1f} h"
         if longest in closed else ""))
EOF
say ""

# --- time: one hyperfine run ------------------------------------------------------------------
run_hyperfine visits -- \
    -n "visits, month" "$(q "$visits") $(q "$month") > /dev/null" \
    -n "visits, week" "$(q "$visits") $(q "$week") > /dev/null" \
    -n "fixfilter, month" "$(q "$fixfilter") $(q "$month") > /dev/null" \
    -n "cat, month" "cat $(q "$month") > /dev/null"
# fixfilter and visits in turn, round after round, which decide the 1.5x target.
pairs=$out/visits-pairs.json
run_pairs "fixfilter and visits on the month in turn" "$pairs" -- "$fixfilter" "$month" -- "$visits" "$month"

summarize "$out/visits.json" "$n_month" "$n_week" "$pairs" <<'EOF'
results = load_results(sys.argv[1])
fixes = {"visits, month": int(sys.argv[2]), "visits, week": int(sys.argv[3]), "fixfilter, month": int(sys.argv[2]),
         "cat, month": int(sys.argv[2])}
print_medians(results, 16)
for name in ("visits, month", "visits, week"):
    r = results[name]
    print(f"  {name}: {fixes[name] / r['median'] / 1e6:.2f} million fixes a second from the median, "
          f"{fixes[name] / (r['user'] + r['system']) / 1e6:.2f} from CPU time")
v, f = results["visits, month"]["median"], results["fixfilter, month"]["median"]
print("ratios (from the medians)")
print(f"  visits / fixfilter, month = {v / f:5.2f}x")
print_pairs(sys.argv[4], 1.5)
print_checks(results, [("visits, month", "fixfilter, month")], 2)
EOF
say ""

# --- peak memory ------------------------------------------------------------------------------
if ((have_time)); then
    peak_width=44
    say_peak_heading
    peak "visits, week ($n_week fixes)" "$visits" "$week"
    peak "visits, month ($n_month fixes)" "$visits" "$month"
    peak "visits, one stay of 7 days ($n_stay fixes)" "$visits" "$stay"
fi
echo "== written: $out/visits.md, $out/visits.json, $pairs, $summary" >&2
