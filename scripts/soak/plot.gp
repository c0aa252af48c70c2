# Plots scripts/soak.sh's CSV: each proxy's RSS (MiB) and open fds against minutes (a takeover
# changes the pid, not the column). Called with -e "csv=...; png=...".
set datafile separator ","
set terminal pngcairo size 1000,500 noenhanced
set output png
set title "Breakwater soak, every fault at once: resident memory and open file descriptors of both proxies"
set xlabel "minutes"
set ylabel "RSS (MiB)"
set y2label "open fds"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set key bottom right
set grid
plot csv using ($1/60):($3/1024) every ::1 with lines lw 2 title "proxy A RSS (MiB)", \
     csv using ($1/60):($8/1024) every ::1 with lines lw 2 title "proxy B RSS (MiB)", \
     csv using ($1/60):4 every ::1 axes x1y2 with lines lw 1 dt 2 title "proxy A fds", \
     csv using ($1/60):9 every ::1 axes x1y2 with lines lw 1 dt 2 title "proxy B fds"
