#!/usr/bin/env bash
# Regenerates every file in vidorient's TestMedia/ folder, then writes
# manifest.json and checks every file against it (fails loudly on a mismatch).
# Needs ffmpeg/ffprobe (5.1, with libx264 and libx265), python3, cwebp and exiftool (for the photos),
# and for the HEIF files libheif's heif-enc/heif-convert/heif-info (1.15) and avifenc (0.11).
# Usage: bash TestMedia/generate.sh   (from any directory; overwrites its outputs)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

FPS=10
DUR=1

FF=(ffmpeg -nostdin -hide_banner -loglevel error -y)
# Reproducible output: no version strings or dates, no global metadata, one thread.
REPRO=(-fflags +bitexact -flags:v +bitexact -flags:a +bitexact -map_metadata -1 -threads 1)
# One keyframe per clip (10 frames), fixed encoder settings.
X264=(-c:v libx264 -preset medium -crf 20 -g 20 -keyint_min 20 -sc_threshold 0 -pix_fmt yuv420p)
X265=(-c:v libx265 -preset medium -crf 24 -pix_fmt yuv420p -tag:v hvc1
      -x265-params log-level=error:pools=none:frame-threads=1:keyint=20:min-keyint=20:scenecut=0)
AAC=(-c:a aac -b:a 32k -ac 1)
SINE=(-f lavfi -i "sine=frequency=440:sample_rate=44100:duration=$DUR")
JPEG=(-frames:v 1 -c:v mjpeg -q:v 2 -update 1)

# The upright picture, 160x96: red | green on top, blue | white below.
Q="s=80x48:r=$FPS:d=$DUR"
UPRIGHT="color=c=0xFF0000:$Q[tl];color=c=0x00FF00:$Q[tr];color=c=0x0000FF:$Q[bl];color=c=0xFFFFFF:$Q[br];"
UPRIGHT+="[tl][tr][bl][br]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0"

# The stored picture for EXIF orientation N is the inverse of N applied to the
# upright picture, so that applying N (mirror first, then rotate clockwise)
# gives the upright picture back.
stored() {
  case $1 in
    1) echo null ;;
    2) echo hflip ;;
    3) echo hflip,vflip ;;
    4) echo vflip ;;
    5) echo transpose=cclock_flip ;;  # transpose is its own inverse
    6) echo transpose=cclock ;;
    7) echo transpose=clock_flip ;;   # transverse is its own inverse
    8) echo transpose=clock ;;
  esac
}
stored_size() { if (($1 >= 5)); then echo "96 160"; else echo "160 96"; fi; }

py() { python3 tkhd.py "$@"; }
# orient FILE N W H [SCALE]: write orientation N's matrix (Apple translation for
# a W x H picture) into FILE's video tkhd. FFmpeg 5.1's CLI cannot write a
# mirrored matrix and its rotate metadata is unreliable, hence the patching.
orient() { py set "$1" $(py matrix "$2" "$3" "$4" "${5:-1}"); }

echo "orient-N.mp4 (H.264, faststart) and orient-N-hevc.mov (HEVC, moov after mdat)"
for n in 1 2 3 4 5 6 7 8; do
  "${FF[@]}" -filter_complex "$UPRIGHT,$(stored $n),format=yuv420p[v]" -map "[v]" \
    "${X264[@]}" "${REPRO[@]}" -movflags +faststart "orient-$n.mp4"
  "${FF[@]}" -filter_complex "$UPRIGHT,$(stored $n),format=yuv420p[v]" -map "[v]" \
    "${X265[@]}" "${REPRO[@]}" "orient-$n-hevc.mov"
  if ((n != 1)); then  # orientation 1 keeps the muxer's identity matrix
    orient "orient-$n.mp4" $n $(stored_size $n)
    orient "orient-$n-hevc.mov" $n $(stored_size $n)
  fi
done

echo "audio-first.mov (AAC is stream 0, H.264 stream 1, orientation 6)"
"${FF[@]}" "${SINE[@]}" -filter_complex "$UPRIGHT,$(stored 6),format=yuv420p[v]" \
  -map 0:a -map "[v]" "${AAC[@]}" "${X264[@]}" "${REPRO[@]}" -movflags +faststart audio-first.mov
orient audio-first.mov 6 96 160

echo "odd-angle-30.mp4 (stored upright, matrix rotates 30 degrees clockwise)"
"${FF[@]}" -filter_complex "$UPRIGHT,format=yuv420p[v]" -map "[v]" \
  "${X264[@]}" "${REPRO[@]}" -movflags +faststart odd-angle-30.mp4
# a = d = cos 30, b = sin 30, c = -sin 30, no translation
py set odd-angle-30.mp4 0.8660254037844386 0.5 0 -0.5 0.8660254037844386 0 0 0 1

echo "scaled-2x.mp4 (orientation 6 matrix times 2)"
"${FF[@]}" -filter_complex "$UPRIGHT,$(stored 6),format=yuv420p[v]" -map "[v]" \
  "${X264[@]}" "${REPRO[@]}" -movflags +faststart scaled-2x.mp4
orient scaled-2x.mp4 6 96 160 2

echo "sei-90.mp4 (identity tkhd, H.264 display orientation SEI)"
# h264_metadata's rotate is the SEI's anticlockwise_rotation: 270 anticlockwise
# is the 90 degrees clockwise that orientation 6 needs (see README.md).
"${FF[@]}" -filter_complex "$UPRIGHT,$(stored 6),format=yuv420p[v]" -map "[v]" \
  "${X264[@]}" -bsf:v h264_metadata=display_orientation=insert:rotate=270 \
  "${REPRO[@]}" -movflags +faststart sei-90.mp4

echo "anamorphic-6.mp4 (48x160 stored, SAR 2:1, orientation 6)"
"${FF[@]}" -filter_complex "$UPRIGHT,$(stored 6),scale=48:160:flags=neighbor,setsar=2/1,format=yuv420p[v]" \
  -map "[v]" "${X264[@]}" "${REPRO[@]}" -movflags +faststart anamorphic-6.mp4
# The matrix works in the tkhd's SAR-corrected 96x160 space.
orient anamorphic-6.mp4 6 96 160

echo "audio-only.m4a, cover-art.m4a"
"${FF[@]}" "${SINE[@]}" "${AAC[@]}" "${REPRO[@]}" -movflags +faststart audio-only.m4a
"${FF[@]}" "${SINE[@]}" -filter_complex "$UPRIGHT[v]" -map 0:a -map "[v]" "${AAC[@]}" \
  -frames:v 1 -c:v png -disposition:v attached_pic "${REPRO[@]}" -movflags +faststart cover-art.m4a

echo "orient-N.jpg (EXIF Orientation N), no-exif.jpg"
for n in 1 2 3 4 5 6 7 8; do
  "${FF[@]}" -filter_complex "$UPRIGHT,$(stored $n),format=yuvj420p[v]" -map "[v]" \
    "${JPEG[@]}" "${REPRO[@]}" "orient-$n.jpg"
  py exif "orient-$n.jpg" $n
done
"${FF[@]}" -filter_complex "$UPRIGHT,format=yuvj420p[v]" -map "[v]" "${JPEG[@]}" "${REPRO[@]}" no-exif.jpg

echo "photos: orient-N.png, orient-N-ii.tif, orient-N-mm.tif, orient-N.webp, variants (photos.py)"
python3 photos.py make
echo "orient-N.heic (HEVC, heif-enc) and orient-N.avif (AV1, avifenc): irot/imir of orientation N"
hp() { python3 heif.py "$@"; }
# Core's Orientation.heif for N: "irot imir" (- for none), irot first, then imir.
heif_props() { case $1 in 1) echo "0 -";; 2) echo "0 1";; 3) echo "2 -";; 4) echo "0 0";;
  5) echo "3 1";; 6) echo "3 -";; 7) echo "3 0";; 8) echo "1 -";; esac; }
HEIFTMP=$(mktemp -d)
trap 'rm -rf "$HEIFTMP"' EXIT
for n in 1 2 3 4 5 6 7 8; do
  "${FF[@]}" -filter_complex "$UPRIGHT,$(stored $n),format=rgb24[v]" -map "[v]" -frames:v 1 "$HEIFTMP/$n.png"
  heif-enc -q 90 "$HEIFTMP/$n.png" -o "orient-$n.heic" > /dev/null
  hp orient "orient-$n.heic" $n          # heif-enc 1.15 cannot write irot/imir itself
  read -r irot imir <<< "$(heif_props $n)"
  args=()
  ((irot)) && args+=(--irot "$irot")
  [[ $imir != - ]] && args+=(--imir "$imir")  # avifenc: 0 = top-to-bottom, 1 = left-to-right
  avifenc -s 6 -j 1 "${args[@]}" "$HEIFTMP/$n.png" "orient-$n.avif" > /dev/null
done

echo "heic-thumbnail-6.heic (primary and thumbnail item, each its own irot), heic-thumbnail-shared-5.heic"
heif-enc -q 90 -t 48 "$HEIFTMP/6.png" -o heic-thumbnail-6.heic > /dev/null
hp orient heic-thumbnail-6.heic 6 own
heif-enc -q 90 -t 48 "$HEIFTMP/5.png" -o heic-thumbnail-shared-5.heic > /dev/null
hp orient heic-thumbnail-shared-5.heic 5 shared

echo "heic-exif-conflict.heic (irot 3 = orientation 6, EXIF inside says 8), heic-meta-last.heic"
"${FF[@]}" -filter_complex "$UPRIGHT,$(stored 6),format=yuvj420p[v]" -map "[v]" \
  "${JPEG[@]}" "${REPRO[@]}" "$HEIFTMP/conflict.jpg"
py exif "$HEIFTMP/conflict.jpg" 8
heif-enc -q 90 "$HEIFTMP/conflict.jpg" -o heic-exif-conflict.heic > /dev/null  # copies the EXIF
hp orient heic-exif-conflict.heic 6
hp meta-last orient-6.heic heic-meta-last.heic

echo "bad-*.heic"
hp truncate-meta orient-6.heic bad-meta-truncated.heic
hp iloc-past-end orient-6.heic bad-iloc-past-end.heic

echo "bad-*.mp4"
: > bad-empty.mp4
py truncate orient-6.mp4 bad-truncated.mp4
py random bad-random.mp4 4096 vidorient
printf '%s\n' "This is not a video." "vidorient test file: plain text with an .mp4 name." \
  "A reader must report an error, not an orientation." > bad-text.mp4

echo "manifest.json"
py manifest

echo "checking every file against manifest.json"
py check
python3 photos.py check
hp check

echo "total: $(du -sh . | cut -f1) in $(ls | wc -l) files"
