# SPDX-License-Identifier: Apache-2.0
# bench/dma/dma.gp: draws bench_dma's dma.dat (blocks: copy efficiency quiet, copy efficiency
# with random stalls, preemption latency, submit-to-fence latency, simulation speed).
#   gnuplot -e "datafile='build/bench/dma.dat'; outfile='build/bench/dma.png'" bench/dma/dma.gp
if (!exists("datafile")) datafile = 'build/bench/dma.dat'
if (!exists("outfile")) outfile = 'build/bench/dma.png'
set terminal pngcairo size 1500,1500 font ",10" noenhanced
set output outfile
set grid
set multiplot layout 3,2 title "gpuref DMA engine: command path in simulated cycles (gpu_core under Verilator)"

set logscale x 2
set xtics ("64 B" 64, "256 B" 256, "1 KiB" 1024, "4 KiB" 4096, "16 KiB" 16384, "64 KiB" 65536, "256 KiB" 262144, "1 MiB" 1048576, "4 MiB" 4194304)
set xlabel "copy size (bytes)"
set ylabel "% of 8 B/cycle"
set yrange [0:105]
set key bottom right
set title "copy efficiency, bus models quiet"
plot for [i=2:10] datafile index 0 using 1:i with linespoints title columnheader(i)
set title "copy efficiency, default random stalls (model ceiling: 75%)"
plot for [i=2:10] datafile index 1 using 1:i with linespoints title columnheader(i)
unset logscale x
set xtics auto
set yrange [0:*]

set title "preemption latency: PREEMPT write to IRQ (cycles)"
set xlabel ""
set ylabel "cycles"
set style fill solid 0.5 border -1
set boxwidth 0.6
set xtics rotate by -30
set key top left
plot datafile index 2 using 0:3:xtic(1) with boxes title "median", \
     '' index 2 using 0:3:2:4 with yerrorbars lw 2 pt 0 title "min..max"

set title "submit to fence / completion (median cycles)"
set style data histograms
set style histogram clustered gap 1
set boxwidth 0.9
titles = "bare-fence-quiet bare-IRQ-quiet miniport-completed-quiet bare-fence-random bare-IRQ-random miniport-completed-random"
plot for [i=2:7] datafile index 3 using i:xtic(1) title word(titles, i - 1)

set title "simulation speed (simulated cycles per wall second)"
set style data boxes
set boxwidth 0.6
set logscale y
set yrange [1000:*]
set ylabel "cycles/s"
set xtics norotate
unset key
plot datafile index 4 using 0:2:xtic(1) with boxes
unset multiplot
