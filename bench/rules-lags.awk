# fencerule's events for fixsim walks through the centre of a 100 m fence (--route
# -300,0:300,0, from 09:00:00): prints the share of the n walks with exactly an enter then an
# exit, in per cent, and over those walks the mean lags in metres past the true edge of the
# enter (x + 100) and of the exit (x - 100), the walk being at x = -300 + v t.
#   awk -v v=SPEED -v n=WALKS -f rules-lags.awk
{
    match($0, /"trace":"[^"]*"/); tr = substr($0, RSTART + 9, RLENGTH - 10)
    match($0, /"event":"[a-z]*"/); ev = substr($0, RSTART + 9, RLENGTH - 10)
    match($0, /"time":"[^"]*"/); ts = substr($0, RSTART + 8, RLENGTH - 9)
    t = (substr(ts, 12, 2) - 9) * 3600 + substr(ts, 15, 2) * 60 + substr(ts, 18, 6)
    seq[tr] = seq[tr] " " ev
    if (ev == "enter") te[tr] = t; else tx[tr] = t
}
END {
    for (tr in seq) if (seq[tr] == " enter exit") { k++; se += v * te[tr] - 200; sx += v * tx[tr] - 400 }
    if (k) printf "%.1f %.1f %.1f\n", 100 * k / n, se / k, sx / k
    else printf "0.0 - -\n"
}
