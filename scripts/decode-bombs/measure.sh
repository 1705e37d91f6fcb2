#!/bin/bash
# measure.sh BIN LABEL -- command args: prints wall, cpu, peak RSS, exit status, last line
bin=$1; label=$2; shift 2
/usr/bin/time -o ${BOMBS:-/tmp/bombs}/time.out -f "TIME %e %U %S %M %x" timeout ${TIMEOUT:-60} $bin "$@" > ${BOMBS:-/tmp/bombs}/last.out 2>&1
read _ wall user sys rss status <<< "$(grep TIME ${BOMBS:-/tmp/bombs}/time.out | tail -1)"
cpu=$(echo "$user + $sys" | bc)
printf "%-34s wall %6ss cpu %6ss peak %5d MB status %s | %s\n" "$label" "$wall" "$cpu" $((rss/1024)) "$status" "$(tail -c 120 ${BOMBS:-/tmp/bombs}/last.out | tr '\n' ' ')"
