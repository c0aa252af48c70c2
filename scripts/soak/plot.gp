# Plots scripts/soak.sh's CSV: RSS (MiB) and open fds against minutes. Called with -e "csv=...; png=...".
set datafile separator ","
set terminal pngcairo size 1000,500 noenhanced
set output png
set title "Breakwater soak: resident memory and open file descriptors"
set xlabel "minutes"
set ylabel "RSS (MiB)"
set y2label "open fds"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set key top left
set grid
plot csv using ($1/60):($2/1024) every ::1 with lines lw 2 title "RSS (MiB)", \
     csv using ($1/60):3 every ::1 axes x1y2 with lines lw 2 title "open fds", \
     csv using ($1/60):($8/1048576) every ::1 with lines lw 1 dt 2 title "cache bytes (MiB)"
