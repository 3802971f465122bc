# SPDX-License-Identifier: Apache-2.0
# bench/alloc/alloc.gp: draws bench_alloc's alloc.dat (four blocks: Mops/s, p99 ns,
# largest/free, fragmentation failures; one row per occupancy, one column per allocator).
#   gnuplot -e "datafile='build/bench/alloc.dat'; outfile='build/bench/alloc.png'" bench/alloc/alloc.gp
if (!exists("datafile")) datafile = 'build/bench/alloc.dat'
if (!exists("outfile")) outfile = 'build/bench/alloc.png'
set terminal pngcairo size 1400,1000 font ",11" noenhanced
set output outfile
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key outside right top vertical
set xlabel "target occupancy"
set multiplot layout 2,2 title "gpuref segment allocator vs Linux drm_mm and drm_buddy (same traces)"
set title "throughput (Mops/s, higher is better)"
set ylabel "Mops/s"
set logscale y
plot for [i=2:5] datafile index 0 using i:xtic(1) title columnheader(i)
set title "p99 latency per operation (ns, lower is better)"
set ylabel "ns"
plot for [i=2:5] datafile index 1 using i:xtic(1) title columnheader(i)
unset logscale y
set title "largest free range / total free (mean, higher is better)"
set ylabel "ratio"
set yrange [0:*]
plot for [i=2:5] datafile index 2 using i:xtic(1) title columnheader(i)
set title "allocations failed with enough free space in range (lower is better)"
set ylabel "failures"
plot for [i=2:5] datafile index 3 using i:xtic(1) title columnheader(i)
unset multiplot
