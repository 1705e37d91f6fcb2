# Sourced by make-charts.sh and side-by-side.sh: the reference's SDR rendering of one of
# SDWebImage's TestHDR files (BT.2020 PQ).
#
# reference_tonemap FORMAT WORK: TestHDR.FORMAT (avif, heic or jxl) decoded to 16-bit RGB by its
# format's reference tool (avifdec, heif-convert, djxl), tone mapped by charts.py (colour-science),
# left as WORK/mapped.v (8-bit sRGB, full size).
reference_tonemap() {
    local format=$1 work=$2
    local source=Tests/Images/sdwebimage/TestHDR.$format
    case $format in
        avif) avifdec --depth 16 "$source" "$work/decoded.png" >/dev/null ;;
        heic) heif-convert "$source" "$work/decoded.png" >/dev/null ;;
        jxl) djxl "$source" "$work/decoded.png" --bits_per_sample=16 >/dev/null 2>&1 ;;
    esac
    local width height peak
    width=$(vipsheader -f width "$work/decoded.png")
    height=$(vipsheader -f height "$work/decoded.png")
    # JPEG XL states its peak (intensity_target, 2182 cd/m² here); AVIF and HEIC none: 1,000.
    peak=$([ "$format" = jxl ] && jxlinfo "$source" | sed -n 's/^intensity_target: \([0-9.]*\) nits$/\1/p' || echo 1000)
    vips rawsave "$work/decoded.png" "$work/decoded.raw16"
    python3 scripts/hdr/charts.py --tonemap "$work/decoded.raw16" "$width" "$height" pq "$peak" "$work/mapped.raw8"
    vips rawload "$work/mapped.raw8" "$work/mapped.v" "$width" "$height" 3 --interpretation srgb
}
