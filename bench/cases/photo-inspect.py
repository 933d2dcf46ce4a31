# `vidorient inspect --json` on 12 MP HEIC photos beside `exiftool -j` (the photo issue): target at most
# 0.25x exiftool's wall time. The photos are made here (not committed): a 12 MP test pattern (with noise,
# so that it compresses like a photo) encoded by ffmpeg to JPEG, then by heif-enc to HEIC, with and
# without a 320 px thumbnail item; and ../shared/media's iPhone and Samsung HEICs when present.
# Run: python3 bench/run.py photo-inspect [--write | --quick]
NEEDS = ["ffmpeg", "heif-enc", "exiftool"]
JPEG = ("ffmpeg -nostdin -v error -y -f lavfi -i testsrc2=s=4032x3024,noise=alls=12 -frames:v 1 -q:v 2 {out}")
FILES = (made("photo-12mp.jpg", JPEG, label="12 MP JPEG (generated)")
         + made("photo-12mp-thumb.heic", "heif-enc -q 50 -t 320 {work}/photo-12mp.jpg -o {out}",
                label="12 MP HEIC with a 320 px thumbnail (generated)")
         + made("photo-12mp.heic", "heif-enc -q 50 {work}/photo-12mp.jpg -o {out}",
                label="12 MP HEIC, no thumbnail (generated)")
         + shared("IMG_2682.heic", "samsung-one-ui-6.heic"))
TOOLS = {"vidorient": "{vidorient} inspect --json {file}", "exiftool": "exiftool -j {file}"}
TARGETS = {"exiftool": 0.25}
REPEATS, WARMUP = 40, 3
