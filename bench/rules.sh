#!/usr/bin/env bash
# The fence rules under correlated GPS error: the table in README.md and fencerule(1), made
# with nothing but fixsim and fencerule, every cell by the command lines printed with it.
#
#   bench/rules.sh                          # 50 hours and 1000 walks a cell, about 5 minutes
#   HOURS=10 WALKS=200 bench/rules.sh       # a quicker, rougher run
#   FIXSIM=/path/to/fixsim FENCERULE=/path/to/fencerule bench/rules.sh   # no build
#   BUILD_DIR=/tmp/bench-build bench/rules.sh
#
# Environment:
#   HOURS      hours standing still per cell (default 50), each hour its own trace
#   WALKS      walks per cell of skirting and crossing (default 1000)
#   TAUS       the true time constants of the error, seconds (default "0 10 30 60")
#   RULES      the rules (default "naive confident adaptive steady"), each with its defaults
#   FIXSIM, FENCERULE  binaries to use; no build is done when both are given
#   BUILD_DIR  SwiftPM scratch path for the release build (default <repo>/.build)
#
# The fence: 100 m around 51.5,-0.12. The fixes: fixsim's defaults, one a second, 8 m of
# error per axis, hacc 8, a Doppler speed with 0.1 m/s of noise, and the error a first-order
# Gauss-Markov process with time constant tau (--noise-tau; 0 is fresh noise every fix).
#
#   standing   an hour at d = 90, 95, 100, 105, 110 m east of the centre; transitions (enter or
#              exit events) per hour. Each hour starts outside, so at 90 and 95 m the first
#              enter is one of them. "no speed": the same fixes with the speed member removed.
#   skirting   walks of 600 m at 1.4 m/s along a line 95 m from the centre, 5 m inside the edge;
#              transitions per walk.
#   crossing   walks of 600 m through the centre at 1.4 and 15 m/s, also with 2% of the fixes
#              thrown 200 m (--outliers 0.02 --outlier-size 200): the share of walks with
#              exactly an enter then an exit, and over those walks the mean lags, metres past
#              the true edge where the enter and the exit are written (from the event's time:
#              the walk is at -300 + v t).
#
# Output: the table in Markdown on standard output and in bench/out/rules.md, a plain-text copy
# for the man page in bench/out/rules.txt, and the issue-12 targets checked (bench/out/rules-
# checks.txt). Exit 0 even when a target fails: the table says it.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
HOURS=${HOURS:-50}
WALKS=${WALKS:-1000}
TAUS=${TAUS:-0 10 30 60}
RULES=${RULES:-naive confident adaptive steady}
check_whole_number HOURS 1 hours
check_whole_number WALKS 1 walks

binaries_from_env_or_build "set FIXSIM and FENCERULE to the binaries" FIXSIM fixsim FENCERULE fencerule

fence="$out/rules-fence.json"
printf '[{"id":"fence","lat":51.5,"lon":-0.12,"radius":100}]\n' > "$fence"

# --- one cell each, as the docs show them ---------------------------------------------------
# standing D TAU RULE [nospeed]: transitions per hour
standing() {
    local strip=(cat)
    [ "${4:-}" = nospeed ] && strip=(sed 's/"speed":[^,]*,//')
    "$fixsim" --origin 51.5,-0.12 --route "$1,0" --pause 3600 --noise-tau "$2" --traces "$HOURS" |
        "${strip[@]}" | "$fencerule" --fences "$fence" --rule "$3" |
        awk -v n="$HOURS" 'END { printf "%.2f\n", NR / n }'
}
# skirting TAU RULE: transitions per walk
skirting() {
    "$fixsim" --origin 51.5,-0.12 --route -300,95:300,95 --noise-tau "$1" --traces "$WALKS" |
        "$fencerule" --fences "$fence" --rule "$2" |
        awk -v n="$WALKS" 'END { printf "%.3f\n", NR / n }'
}
# crossing SPEED TAU RULE [OUTLIERS]: "share-of-walks-with-exactly-2 enter-lag exit-lag"
crossing() {
    "$fixsim" --origin 51.5,-0.12 --route -300,0:300,0 --speed "$1" --noise-tau "$2" --traces "$WALKS" \
        --outliers "${4:-0}" --outlier-size 200 |
        "$fencerule" --fences "$fence" --rule "$3" |
        awk -v v="$1" -v n="$WALKS" -f "$here/rules-lags.awk"
}

# --- the runs --------------------------------------------------------------------------------
declare -A cell
started=$SECONDS
for tau in $TAUS; do
    for d in 90 95 100 105 110; do
        for rule in $RULES; do cell["stand $d $tau $rule"]=$(standing "$d" "$tau" "$rule"); done
        cell["stand $d $tau nospeed"]=$(standing "$d" "$tau" steady nospeed)
    done
    for rule in $RULES; do
        cell["skirt $tau $rule"]=$(skirting "$tau" "$rule")
        for v in 1.4 15; do
            cell["cross $v $tau $rule"]=$(crossing "$v" "$tau" "$rule")
            cell["outl $v $tau $rule"]=$(crossing "$v" "$tau" "$rule" 0.02)
        done
    done
    echo "$me: tau = $tau s done ($((SECONDS - started)) s)" >&2
done

# --- the table -------------------------------------------------------------------------------
# A crossing cell "share lagE lagX" as "99.9% (14 / 9 m)".
show_cross() {
    set -- $1
    printf '%s%% (%s / %s m)' "$1" "$2" "$3"
}
table() { # md|txt
    local fmt=$1 rows=() row tau d rule v
    local head="scenario | τ | ${RULES// / | } | steady, no speed"
    rows+=("$head")
    for d in 90 95 100 105 110; do
        for tau in $TAUS; do
            row="standing at $d m, transitions/hour | $tau"
            for rule in $RULES; do row+=" | ${cell["stand $d $tau $rule"]}"; done
            rows+=("$row | ${cell["stand $d $tau nospeed"]}")
        done
    done
    for tau in $TAUS; do
        row="skirting at 95 m, transitions/walk | $tau"
        for rule in $RULES; do row+=" | ${cell["skirt $tau $rule"]}"; done
        rows+=("$row | ")
    done
    for kind in cross outl; do
        for v in 1.4 15; do
            for tau in $TAUS; do
                if [ $kind = cross ]; then row="crossing at $v m/s, exactly 2 (lags) | $tau"
                else row="crossing at $v m/s, 2% outliers, exactly 2 (lags) | $tau"; fi
                for rule in $RULES; do row+=" | $(show_cross "${cell["$kind $v $tau $rule"]}")"; done
                rows+=("$row | ")
            done
        done
    done
    if [ "$fmt" = md ]; then
        local sep="|---|--:" r
        for rule in $RULES; do sep+="|--:"; done
        printf '| %s |\n' "${rows[0]}"
        printf '%s|--:|\n' "$sep"
        for r in "${rows[@]:1}"; do printf '| %s |\n' "$r"; done
    else
        # Short enough for a man page: "stand 90", "cross 1.4", a crossing cell as
        # "share enter/exit".
        printf '%s\n' "${rows[@]}" | python3 -c '
import re, sys
rows = [[c.strip() for c in l.rstrip("\n").split("|")] for l in sys.stdin]
rows[0] = ["", "tau"] + [c.replace("steady, no speed", "no speed") for c in rows[0][2:]]
def short(c):
    c = re.sub(r"standing at (\d+) m, transitions/hour", r"stand \1", c)
    c = re.sub(r"skirting at 95 m, transitions/walk", "skirt 95", c)
    c = re.sub(r"crossing at ([\d.]+) m/s, 2% outliers, exactly 2 \(lags\)", r"outl \1", c)
    c = re.sub(r"crossing at ([\d.]+) m/s, exactly 2 \(lags\)", r"cross \1", c)
    return re.sub(r"([\d.]+)% \((\S+) / (\S+) m\)", r"\1 \2/\3", c)
rows = [[short(c) for c in r] for r in rows]
w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
for r in rows:
    print(" ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(r)).rstrip())
'
    fi
}
table md | tee "$out/rules.md"
table txt > "$out/rules.txt"

# --- the targets (issue 12) ------------------------------------------------------------------
{
    echo "== targets for the steady rule (HOURS=$HOURS, WALKS=$WALKS)"
    awk_check() { awk "BEGIN { exit !($1) }"; }
    verdict() { if awk_check "$2"; then echo "ok    $1"; else echo "FAIL  $1"; fi; }
    for tau in $TAUS; do
        for d in 90 95 100 105 110; do
            verdict "standing $d m tau $tau: ${cell["stand $d $tau steady"]}/h with speed <= 1" \
                "${cell["stand $d $tau steady"]} <= 1"
            verdict "standing $d m tau $tau: ${cell["stand $d $tau nospeed"]}/h without speed <= 2" \
                "${cell["stand $d $tau nospeed"]} <= 2"
        done
        verdict "skirting tau $tau: steady ${cell["skirt $tau steady"]} <= confident ${cell["skirt $tau confident"]}" \
            "${cell["skirt $tau steady"]} <= ${cell["skirt $tau confident"]}"
        for kind in cross outl; do
            for v in 1.4 15; do
                set -- ${cell["$kind $v $tau steady"]}
                verdict "$kind $v m/s tau $tau: exactly 2 in $1% >= 99%" "$1 >= 99"
            done
        done
        set -- ${cell["cross 1.4 $tau steady"]}
        # shellcheck disable=SC2086
        c0=(${cell["cross 1.4 0 confident"]})
        verdict "1.4 m/s tau $tau: lags $2 / $3 m <= 1.25 x confident's at tau 0 (${c0[1]} / ${c0[2]})" \
            "$2 <= 1.25 * ${c0[1]} && $3 <= 1.25 * ${c0[2]}"
        # shellcheck disable=SC2086
        a=(${cell["cross 15 $tau adaptive"]})
        set -- ${cell["cross 15 $tau steady"]}
        verdict "15 m/s tau $tau: lags $2 / $3 m <= adaptive's (${a[1]} / ${a[2]})" "$2 <= ${a[1]} && $3 <= ${a[2]}"
    done
    echo "$((SECONDS - started)) s"
} | tee "$out/rules-checks.txt" >&2
