#!/usr/bin/env bash
# The liborc stress run (issue 13, item 6): concurrent libvips thumbnails and resizes, with the
# liborc programs libvips compiles and frees counted (scripts/orc-stress/orc_stress.c).
#   scripts/orc-stress.sh [THREADS [JOBS [SANITIZER]]]    SANITIZER: none (default), address, thread
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${1:-4}
jobs=${2:-1000}
sanitizer=${3:-none}
out=.build-orc
mkdir -p "$out"
flags=(-O1 -g)
[ "$sanitizer" != none ] && flags+=(-fsanitize="$sanitizer")
# The toolchain's TSan runtime intercepts libdispatch too: link the toolchain's.
swift_lib=$(dirname "$(dirname "$(command -v swift)")")/lib/swift/linux
[ "$sanitizer" = thread ] && flags+=(-L"$swift_lib" -Wl,-rpath,"$swift_lib" -ldispatch -lBlocksRuntime)
# shellcheck disable=SC2046
clang "${flags[@]}" scripts/orc-stress/orc_stress.c $(pkg-config --cflags --libs vips) -ldl -o "$out/orc-stress-$sanitizer"
images=(Tests/Images/photos/rocket.jpg Tests/Images/photos/astronaut.png Tests/Images/sdwebimage/TestImage.jpg
        Tests/Images/photos/retina.jpg Tests/Images/sdwebimage/TestImageStatic.webp Tests/Images/libjpeg-turbo/testorig.jpg)
"$out/orc-stress-$sanitizer" "$threads" "$jobs" "${images[@]}"
