#!/usr/bin/env bash
# Builds .build-install/vidorient_VERSION_ARCH.deb from what `make` built: the release binary
# (stripped), its man pages and its bash, zsh and fish completions, installed under /usr.
# Depends is derived from the binary by dpkg-shlibdeps (runtime libraries, never -dev packages),
# so a new C library the code links is picked up without editing this file; the libraries the
# binary opens with dlopen on first use (FFmpeg, libheif, libjpeg-turbo, libwebp, FreeType,
# SQLite: OPENED below) are added from their packages' shlibs entries, since no linker records
# them. The version comes from `git describe`: vX.Y.Z tags give X.Y.Z (X.Y.Z+N.gHASH after them);
# without a tag, the binary's own version ~gitN.gHASH, so a later tagged release sorts above it.
# Run `make deb` (or `make` first, then this script).
set -euo pipefail
cd "$(dirname "$0")/.."

out=.build-install
binary=.build/release/vidorient
if [ ! -x "$binary" ] || [ ! -f "$out/man/vidorient.1" ] || [ ! -f "$out/completions/vidorient" ]; then
  echo "build-deb: run 'make' first (no release binary, man pages or completions yet)" >&2
  exit 1
fi

base=$("$binary" --version)
if described=$(git describe --tags --long --match 'v[0-9]*' 2>/dev/null); then
  # v1.2.0-3-gabc1234: tag, commits since, hash.
  hash=${described##*-}
  rest=${described%-*}
  count=${rest##*-}
  tag=${rest%-*}
  tag=${tag#v}
  if [ "$count" = 0 ]; then version=$tag; else version="$tag+$count.$hash"; fi
elif hash=$(git describe --always --abbrev=7 2>/dev/null); then
  version="$base~git$(git rev-list --count HEAD).g$hash"
else
  version=$base  # not a git checkout (a source tarball): the binary's own version
fi
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then version="$version.dirty"; fi
arch=$(dpkg --print-architecture)

root="$out/deb/root"
rm -rf "$out/deb"
mkdir -p "$root/DEBIAN"
make --no-print-directory install DESTDIR="$root" PREFIX=/usr >/dev/null
strip --strip-unneeded "$root/usr/bin/vidorient" "$root/usr/lib/vidorient/libVidorientContentEngine.so"
gzip -9n "$root"/usr/share/man/man1/*.1

# dpkg-shlibdeps reads debian/control from the directory it runs in: give it a minimal one.
shlib="$out/deb/shlibdeps"
mkdir -p "$shlib/debian"
printf 'Source: vidorient\n\nPackage: vidorient\nArchitecture: any\n' > "$shlib/debian/control"
depends=$(cd "$shlib" && dpkg-shlibdeps -O "$OLDPWD/$root/usr/bin/vidorient" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
if [ -z "$depends" ]; then
  echo "build-deb: dpkg-shlibdeps found no dependencies for the binary" >&2
  exit 1
fi

# FFmpeg, libheif, libjpeg-turbo, libpng, libwebp (and libwebpdemux), FreeType and SQLite are not linked but opened on first
# use (Sources/CLibraryLoader), by the sonames their headers named at build time, which the binary
# holds as strings. Each becomes the dependency its package declares in its shlibs file, as
# dpkg-shlibdeps would have written it.
OPENED=(libavformat libavcodec libavutil libswscale libheif libturbojpeg libpng16 libwebp libwebpdemux libfreetype libsqlite3)
for library in "${OPENED[@]}"; do
  soname=$(strings -n 8 "$root/usr/bin/vidorient" | grep -E -x "$library\.so\.[0-9]+" | sort -u)
  if [ "$(printf '%s\n' "$soname" | grep -c .)" != 1 ]; then
    echo "build-deb: the binary names ${soname:-no} soname for $library (expected one $library.so.N)" >&2
    exit 1
  fi
  package=$(dpkg -S "*/$soname" 2>/dev/null | grep -E "^[^:]+:$arch: " | head -1 | cut -d: -f1-2)
  entry=$(dpkg-query --control-show "$package" shlibs 2>/dev/null \
    | awk -v name="$library" -v major="${soname##*.so.}" '$1 == name && $2 == major { $1 = $2 = ""; sub(/^ +/, ""); print; exit }')
  if [ -z "$package" ] || [ -z "$entry" ]; then
    echo "build-deb: no installed package declares $soname (dpkg -S, shlibs)" >&2
    exit 1
  fi
  depends="$depends, $entry"
done

# The content engine links dlib and OpenCV; it is opened only for --content, so its libraries are
# recommended, not required: without them --content says so in one line and nothing else changes.
# It opens Tesseract itself (dlopen, for the text signal; no shlibs entry), so that is named by hand.
recommends=$(cd "$shlib" && dpkg-shlibdeps -O "$OLDPWD/$root/usr/lib/vidorient/libVidorientContentEngine.so" 2>/dev/null \
  | sed -n 's/^shlibs:Depends=//p' | tr ',' '\n' | sed 's/^ *//' | grep -v -E '^(libc6|libgcc-s1|libstdc\+\+6)( |$)' \
  | paste -sd, - | sed 's/,/, /g')
if [ -z "$recommends" ]; then
  echo "build-deb: dpkg-shlibdeps found no libraries for the content engine" >&2
  exit 1
fi

maintainer=$(git log -1 --format='%an <%ae>' 2>/dev/null || echo "vidorient maintainers <root@localhost>")
cat > "$root/DEBIAN/control" <<CONTROL
Package: vidorient
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Recommends: fonts-dejavu-core, $recommends, libtesseract5, tesseract-ocr-osd, tesseract-ocr-eng
Section: video
Priority: optional
Description: tell which way is up for any video or photo, and act on it
 vidorient reads the display matrix of MP4/QuickTime videos and the EXIF
 orientation of photos, names which of the eight orientations applies (mirrors
 included), writes upright thumbnails and contact sheets, fixes the matrix in
 place without re-encoding, and audits whole libraries.
CONTROL

deb="$out/vidorient_${version}_${arch}.deb"
rm -f "$out"/vidorient_*.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
