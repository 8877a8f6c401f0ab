# carouseld: build and install (see docs/SERVICE.md).
#
#   make                      release build (static Swift runtime when the toolchain has it)
#   make man                  man pages into .build/man, after make (txt2man, lowdown, help2man; docs/PACKAGING.md)
#   sudo make install         binaries, systemd units, udev rule, sysusers entry, config, man pages,
#                             the reference pages (docs/, in DOCDIR), the web display bridge
#                             (carouseld-web, web/ page, its unit and user) and the kiosk
#                             (carouseld-kiosk, its unit, user, PAM file; docs/KIOSK.md)
#   make install DESTDIR=/tmp/stage PREFIX=/usr    staged install for packaging (debian/rules)
#   sudo make uninstall       removes what install put in place, except the configuration
#   make clean                removes the man pages; SwiftPM's .build is kept (swift package clean)
#
# Variables: PREFIX (default /usr/local), DESTDIR (staging root), SYSCONFDIR (/etc),
# BUILDDIR (where the built binaries are, default .build/release), MANBINDIR (where `make man`
# runs them, default BUILDDIR), NO_BUILD=1 to install
# binaries already built in BUILDDIR without building, NO_MAN=1 to install without man pages,
# STATIC_STDLIB=yes to fail rather than fall back to a dynamically linked Swift runtime,
# SWIFT (the toolchain's swift, default from PATH), SWIFT_BUILD_FLAGS (extra swift build flags,
# e.g. -j N or --swift-sdk NAME), UNITDIR, UDEVRULESDIR, SYSUSERSDIR, MANDIR, LIBEXECDIR, DOCDIR (the
# reference pages, default PREFIX/share/doc/carouseld; the man pages name it, so give the same
# PREFIX or DOCDIR to `make man` and `make install`).

PREFIX      ?= /usr/local
SYSCONFDIR  ?= /etc
DESTDIR     ?=
BINDIR      := $(PREFIX)/bin
# Programs only units run (carouseld-kiosk-touch).
LIBEXECDIR  ?= $(PREFIX)/libexec
UNITDIR     ?= $(PREFIX)/lib/systemd/system
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MANDIR      ?= $(PREFIX)/share/man
DBUSSYSTEMDIR ?= $(PREFIX)/share/dbus-1/system.d
PAMDIR      ?= $(SYSCONFDIR)/pam.d
CONFDIR     := $(SYSCONFDIR)/carouseld
WEBDIR      := $(PREFIX)/share/carouseld/web
# The reference pages (README.md and docs/*.md, gzip-compressed as Debian policy asks of
# documentation over 4 kB) and the scenario examples; the man pages point here.
DOCDIR      ?= $(PREFIX)/share/doc/carouseld
# The scripts' help texts name the reference pages where the Debian package installs them;
# install-web and install-kiosk write DOCDIR in their place. (The Swift programs find DOCDIR
# beside themselves: ReferencePages in Sources/CarouselService.)
DOCREFS      = -e 's|/usr/share/doc/carouseld/|$(DOCDIR)/|g'
# The release, for carouseld-web --version (the Swift programs have it compiled in).
RELEASE     := $(shell sed -n 's/^public let carouseldRelease = "\(.*\)"$$/\1/p' Sources/CarouselProtocol/Release.swift)
BUILDDIR    ?= .build/release
# Where `make man` runs carouseld and carousel-mqtt for their --help and --version: BUILDDIR,
# or for a cross build a directory of wrappers that run BUILDDIR's programs under qemu-user
# (scripts/cross/build-arm64).
MANBINDIR   ?= $(BUILDDIR)
MANBUILDDIR ?= .build/man
SWIFT       ?= swift
SWIFT_BUILD_FLAGS ?=
STATIC_STDLIB ?= auto
# Full RELRO and immediate binding, as Debian's hardening flags give C programs (the Swift
# compiler does not read dpkg-buildflags); no $$ORIGIN RUNPATH (the binaries load no library
# from beside themselves). A GNU build ID, which dh_strip needs to put the debug symbols in the
# -dbgsym packages: swift.org's toolchains ask the linker for one, Debian 13's swiftlang does not.
RELEASE_LINK_FLAGS := -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now -Xlinker --build-id=sha1 --disable-local-rpath
# Debian 13's swiftlang (its swift in /usr/libexec/swift) links with GNU ld, whose output with
# the static Swift runtime has no PT_GNU_RELRO segment despite -z relro (lintian:
# hardening-no-relro); the lld it ships keeps it. swift.org's toolchains are left as they are.
ifneq ($(filter /usr/libexec/swift/%,$(realpath $(shell command -v $(SWIFT) 2>/dev/null))),)
RELEASE_LINK_FLAGS += -Xswiftc -use-ld=lld
endif
INSTALL     ?= install
# The date in the man pages' footer: SOURCE_DATE_EPOCH (dpkg-buildpackage sets it from
# debian/changelog) for reproducible pages, else today.
MANDATE     ?= $(shell date -u -d "@$${SOURCE_DATE_EPOCH:-$$(date +%s)}" +%Y-%m-%d)

PRODUCTS := carouseld carouselctl carousel-mqtt

.PHONY: all build man clean install uninstall install-binaries install-data install-man install-web install-kiosk \
  install-doc

all: build

# Static Swift runtime where the toolchain ships it (smaller RSS, no libswiftCore.so on the
# target); otherwise a normal release build, unless STATIC_STDLIB=yes (packages: a dynamic
# runtime would depend on the toolchain's libswiftCore.so, which no Debian package ships).
build:
ifeq ($(NO_BUILD),)
	@command -v $(SWIFT) >/dev/null 2>&1 || { echo "make: no Swift toolchain: '$(SWIFT)' is not on PATH; install Swift 6 (swift.org) or give SWIFT=/path/to/usr/bin/swift" >&2; exit 1; }
	for p in $(PRODUCTS); do \
	  $(SWIFT) build -c release --static-swift-stdlib $(RELEASE_LINK_FLAGS) $(SWIFT_BUILD_FLAGS) --product $$p \
	  || { [ "$(STATIC_STDLIB)" != yes ] && $(SWIFT) build -c release $(RELEASE_LINK_FLAGS) $(SWIFT_BUILD_FLAGS) --product $$p; } || exit 1; \
	done
endif

# Man pages, each generated from one source (docs/PACKAGING.md): carouseld(8) from
# `carouseld --help` (laid out like a man page) with txt2man, whose tag lists need two spaces
# after the tag, hence the awk that adds them to a line followed by a more indented one;
# carouselctl(1) from docs/CLI.md and carouseld.conf(5) from docs/CONFIGURATION.md with lowdown
# (the first line, the page's title, goes to .TH; the developers' section is left out);
# carouseld-web(1) from `scripts/carouseld-web --help` (GNU-style) with help2man, and SEE ALSO
# from docs/carouseld-web.h2m.
# The Markdown and .h2m sources name the reference pages as the repository does
# (docs/PROTOCOL.md), the programs' --help texts as the Debian package installs them
# (/usr/share/doc/carouseld/PROTOCOL.md.gz); MANREFS rewrites both in each generated page to
# where install-doc puts them, DOCDIR (\% keeps groff from hyphenating the path).
MANPAGES := $(MANBUILDDIR)/carouseld.8 $(MANBUILDDIR)/carouselctl.1 $(MANBUILDDIR)/carouseld.conf.5 \
  $(MANBUILDDIR)/carouseld-web.1 $(MANBUILDDIR)/carouseld-kiosk.1 $(MANBUILDDIR)/carouseld-kiosk-touch.8 \
  $(MANBUILDDIR)/carouseld-kiosk-touch-pointer.8
MANREFS = sed -i -e 's|/usr/share/doc/carouseld/|\\%$(DOCDIR)/|g' -e 's|docs/examples/|\\%$(DOCDIR)/examples/|g' -e 's|docs/\([A-Z][A-Z]*\)\.md|\\%$(DOCDIR)/\1.md.gz|g'
LOWDOWN_MAN = lowdown -s -Tman -M shiftheadinglevelby=-1 -M date=$(MANDATE) \
  -M "source=carouseld $$($(MANBINDIR)/carouseld --version | cut -d' ' -f2)"
# The pages with tables: '\" t on the first line tells man to run them through tbl (groff 1.23,
# Debian 13, needs it: without it "table(s) likely not rendered", which lintian reports), and
# scripts/man-fit-tables.awk (after MANREFS, which lengthens the paths) gives their columns
# widths that fit 80 columns, so that neither
# groff 1.22 (Debian 12) nor 1.23 warns about lines it cannot break or adjust.
TBL_LINE = printf '%s\n' "'\\\" t"
FIT_TABLES = LC_ALL=C awk -f scripts/man-fit-tables.awk

man: $(MANPAGES)

# The man pages read the built programs' --help and --version, so `make man` needs them built:
# say so rather than make's "No rule to make target".
$(BUILDDIR)/carouseld $(BUILDDIR)/carousel-mqtt:
	@echo "make: $@ is not built: run 'make' first (the man pages come from its --help), or after 'swift build' give BUILDDIR=.build/debug" >&2; exit 1

$(MANBUILDDIR)/.tools:
	@for t in txt2man lowdown help2man; do command -v $$t >/dev/null 2>&1 || { echo "make: $$t not found: apt-get install txt2man lowdown help2man (or NO_MAN=1 to install without man pages)" >&2; exit 1; }; done
	mkdir -p $(MANBUILDDIR) && touch $@

$(MANBUILDDIR)/carouseld.8: $(BUILDDIR)/carouseld $(MANBUILDDIR)/.tools
	$(MANBINDIR)/carouseld --help \
	  | awk 'function ind(l) { match(l, /^ */); return RLENGTH } \
	         NR > 1 { print prev ((prev ~ /[^ ]/ && $$0 ~ /[^ ]/ && ind($$0) > ind(prev)) ? "  " : "") } \
	         { prev = $$0 } END { print prev }' \
	  | txt2man -t carouseld -s 8 -v "System Administration" -d $(MANDATE) \
	    -r "carouseld $$($(MANBINDIR)/carouseld --version | cut -d' ' -f2)" > $@.tmp && $(MANREFS) $@.tmp && mv $@.tmp $@

$(MANBUILDDIR)/carouselctl.1: docs/CLI.md scripts/man-fit-tables.awk $(BUILDDIR)/carouseld $(MANBUILDDIR)/.tools
	{ $(TBL_LINE); sed 1d docs/CLI.md | $(LOWDOWN_MAN) -M title=carouselctl -M section=1; } > $@.tmp && $(MANREFS) $@.tmp \
	  && $(FIT_TABLES) $@.tmp > $@.fit && rm $@.tmp && mv $@.fit $@

$(MANBUILDDIR)/carouseld.conf.5: docs/CONFIGURATION.md scripts/man-fit-tables.awk $(BUILDDIR)/carouseld $(MANBUILDDIR)/.tools
	{ $(TBL_LINE); { printf '## NAME\n\ncarouseld.conf - configuration file of carouseld(8)\n\n## DESCRIPTION\n\n'; \
	  sed -e 1d -e '/^## For developers/,$$d' docs/CONFIGURATION.md; } \
	  | $(LOWDOWN_MAN) -M title=carouseld.conf -M section=5; } > $@.tmp && $(MANREFS) $@.tmp \
	  && $(FIT_TABLES) $@.tmp > $@.fit && rm $@.tmp && mv $@.fit $@

# help2man takes the date from SOURCE_DATE_EPOCH and the version from --version.
$(MANBUILDDIR)/carouseld-web.1: scripts/carouseld-web docs/carouseld-web.h2m Sources/CarouselProtocol/Release.swift $(MANBUILDDIR)/.tools
	help2man -N -s 1 -n "web display bridge of carouseld (python3-websockets)" -i docs/carouseld-web.h2m -o $@.tmp scripts/carouseld-web && $(MANREFS) $@.tmp && mv $@.tmp $@

$(MANBUILDDIR)/carouseld-kiosk.1: scripts/carouseld-kiosk Sources/CarouselProtocol/Release.swift $(MANBUILDDIR)/.tools
	help2man -N -s 1 -n "carouseld's page full screen at boot (cage with Chromium or Cog)" -o $@.tmp scripts/carouseld-kiosk && $(MANREFS) $@.tmp && mv $@.tmp $@
$(MANBUILDDIR)/carouseld-kiosk-touch.8: scripts/carouseld-kiosk-touch Sources/CarouselProtocol/Release.swift $(MANBUILDDIR)/.tools
	help2man -N -s 8 -n "turn the touchscreens with carouseld-kiosk's picture (libinput calibration through udev)" -o $@.tmp scripts/carouseld-kiosk-touch && $(MANREFS) $@.tmp && mv $@.tmp $@
$(MANBUILDDIR)/carouseld-kiosk-touch-pointer.8: scripts/carouseld-kiosk-touch-pointer Sources/CarouselProtocol/Release.swift $(MANBUILDDIR)/.tools
	help2man -N -s 8 -n "touchscreens as a pointer for a cage without touch frames (Debian 12's)" -o $@.tmp scripts/carouseld-kiosk-touch-pointer && $(MANREFS) $@.tmp && mv $@.tmp $@

clean:
	rm -rf $(MANBUILDDIR)

# carousel-mqtt(1) from `carousel-mqtt --help` (GNU-style: Usage, Options) with help2man, which
# takes the date from SOURCE_DATE_EPOCH; the version is the release alone, without the
# libmosquitto version --version adds. docs/carousel-mqtt.h2m adds FILES and SEE ALSO, which
# the help does not have.
man: $(MANBUILDDIR)/carousel-mqtt.1
$(MANBUILDDIR)/carousel-mqtt.1: $(BUILDDIR)/carousel-mqtt docs/carousel-mqtt.h2m $(MANBUILDDIR)/.tools
	help2man -N -s 1 -n "MQTT bridge of carouseld, with Home Assistant discovery" -i docs/carousel-mqtt.h2m \
	  --version-string="$$($(MANBINDIR)/carousel-mqtt --version | cut -d' ' -f2)" \
	  -o $@.tmp $(MANBINDIR)/carousel-mqtt && $(MANREFS) $@.tmp && mv $@.tmp $@

install: build install-binaries install-data install-web install-kiosk install-doc $(if $(NO_MAN),,install-man)
ifeq ($(DESTDIR),)
	# Live install: create the users, load the rule and units (each step optional).
	-command -v systemd-sysusers >/dev/null && systemd-sysusers $(SYSUSERSDIR)/carouseld.conf $(SYSUSERSDIR)/carouseld-web.conf $(SYSUSERSDIR)/carousel-mqtt.conf $(SYSUSERSDIR)/carouseld-kiosk.conf
	-command -v udevadm >/dev/null && udevadm control --reload && udevadm trigger --subsystem-match=iio --action=change
	-command -v systemctl >/dev/null && [ -d /run/systemd/system ] && systemctl daemon-reload
endif

install-binaries:
	$(INSTALL) -d $(DESTDIR)$(BINDIR)
	for p in $(PRODUCTS); do $(INSTALL) -m 0755 $(BUILDDIR)/$$p $(DESTDIR)$(BINDIR)/$$p || exit 1; done

install-data:
	$(INSTALL) -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(CONFDIR)
	sed -e 's|/usr/local/bin/carouseld|$(BINDIR)/carouseld|g' -e 's|/etc/carouseld/|$(CONFDIR)/|g' \
	  systemd/carouseld.service > $(DESTDIR)$(UNITDIR)/carouseld.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/carouseld.service
	$(INSTALL) -m 0644 systemd/carouseld.socket $(DESTDIR)$(UNITDIR)/carouseld.socket
	sed -e 's|/usr/local/bin/carousel-mqtt|$(BINDIR)/carousel-mqtt|g' -e 's|/etc/carouseld/|$(CONFDIR)/|g' \
	  systemd/carousel-mqtt.service > $(DESTDIR)$(UNITDIR)/carousel-mqtt.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/carousel-mqtt.service
	$(INSTALL) -m 0644 systemd/60-carouseld.rules $(DESTDIR)$(UDEVRULESDIR)/60-carouseld.rules
	$(INSTALL) -m 0644 systemd/sysusers.d/carouseld.conf $(DESTDIR)$(SYSUSERSDIR)/carouseld.conf
	$(INSTALL) -m 0644 systemd/sysusers.d/carousel-mqtt.conf $(DESTDIR)$(SYSUSERSDIR)/carousel-mqtt.conf
	# [server] sensor_proxy: the bus policy, and the unit drop-in an operator links (docs/SERVICE.md).
	$(INSTALL) -d $(DESTDIR)$(DBUSSYSTEMDIR) $(DESTDIR)$(PREFIX)/share/carouseld
	$(INSTALL) -m 0644 systemd/carouseld-sensor-proxy.dbus.conf $(DESTDIR)$(DBUSSYSTEMDIR)/carouseld-sensor-proxy.conf
	$(INSTALL) -m 0644 systemd/carouseld-sensor-proxy.conf $(DESTDIR)$(PREFIX)/share/carouseld/sensor-proxy.conf
	# Never overwrite an operator's configuration.
	if [ -e $(DESTDIR)$(CONFDIR)/carouseld.conf ]; then \
	  echo "keeping existing $(DESTDIR)$(CONFDIR)/carouseld.conf"; \
	else \
	  $(INSTALL) -m 0644 configs/carouseld.conf $(DESTDIR)$(CONFDIR)/carouseld.conf; \
	fi
	if [ -e $(DESTDIR)$(CONFDIR)/carousel-mqtt.conf ]; then \
	  echo "keeping existing $(DESTDIR)$(CONFDIR)/carousel-mqtt.conf"; \
	else \
	  $(INSTALL) -m 0644 configs/carousel-mqtt.conf $(DESTDIR)$(CONFDIR)/carousel-mqtt.conf; \
	fi

# The web display bridge (docs/WEB.md): the Python program (with the release written in, for
# --version, and its help's reference pages in DOCDIR), the page, the link to the owner's cards, its unit and its user. Needs no build.
install-web:
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(WEBDIR)/demo $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	sed -e 's|^RELEASE = None$$|RELEASE = "$(RELEASE)"|' $(DOCREFS) scripts/carouseld-web > $(DESTDIR)$(BINDIR)/carouseld-web
	chmod 0755 $(DESTDIR)$(BINDIR)/carouseld-web
	$(INSTALL) -m 0644 web/*.html web/*.js web/*.css web/*.json $(DESTDIR)$(WEBDIR)/
	$(INSTALL) -m 0644 web/demo/* $(DESTDIR)$(WEBDIR)/demo/
	# The owner's cards (docs/KIOSK.md): $(CONFDIR)/cards, served as /cards/ through this link,
	# kept on upgrades (the package ships the empty folder and the link, never the files).
	$(INSTALL) -d $(DESTDIR)$(CONFDIR)/cards
	ln -sfn $(CONFDIR)/cards $(DESTDIR)$(WEBDIR)/cards
	sed -e 's|/usr/local/bin/carouseld-web|$(BINDIR)/carouseld-web|g' -e 's|/etc/carouseld/|$(CONFDIR)/|g' \
	  systemd/carouseld-web.service > $(DESTDIR)$(UNITDIR)/carouseld-web.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/carouseld-web.service
	$(INSTALL) -m 0644 systemd/sysusers.d/carouseld-web.conf $(DESTDIR)$(SYSUSERSDIR)/carouseld-web.conf
	$(INSTALL) -d $(DESTDIR)$(CONFDIR)
	if [ -e $(DESTDIR)$(CONFDIR)/carouseld-web.env ]; then \
	  echo "keeping existing $(DESTDIR)$(CONFDIR)/carouseld-web.env"; \
	else \
	  $(INSTALL) -m 0644 configs/carouseld-web.env $(DESTDIR)$(CONFDIR)/carouseld-web.env; \
	fi

# The kiosk (docs/KIOSK.md): the script that starts cage and the browser (with the release
# and DOCDIR written in), its unit, its user, its PAM file and its environment file (both kept when
# present), the root helper that turns the touchscreens with the picture, with its path
# and service units, and the root helper that makes touchscreens a pointer for a cage without
# touch frames (Debian 12's), with its service.
install-kiosk:
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(CONFDIR) $(DESTDIR)$(PAMDIR)
	sed -e 's|^release=.*|release=$(RELEASE)|' $(DOCREFS) scripts/carouseld-kiosk > $(DESTDIR)$(BINDIR)/carouseld-kiosk
	sed -e 's|^release=.*|release=$(RELEASE)|' $(DOCREFS) scripts/carouseld-kiosk-touch > $(DESTDIR)$(LIBEXECDIR)/carouseld-kiosk-touch
	sed -e 's|^release = ""$$|release = "$(RELEASE)"|' $(DOCREFS) scripts/carouseld-kiosk-touch-pointer > $(DESTDIR)$(LIBEXECDIR)/carouseld-kiosk-touch-pointer
	chmod 0755 $(DESTDIR)$(BINDIR)/carouseld-kiosk $(DESTDIR)$(LIBEXECDIR)/carouseld-kiosk-touch $(DESTDIR)$(LIBEXECDIR)/carouseld-kiosk-touch-pointer
	for u in carouseld-kiosk.service carouseld-kiosk-touch.service carouseld-kiosk-touch.path carouseld-kiosk-touch-pointer.service; do \
	  sed -e 's|/usr/local/bin/carouseld-kiosk|$(BINDIR)/carouseld-kiosk|g' -e 's|/usr/local/libexec/|$(LIBEXECDIR)/|g' \
	    -e 's|/etc/carouseld/|$(CONFDIR)/|g' systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	$(INSTALL) -m 0644 systemd/sysusers.d/carouseld-kiosk.conf $(DESTDIR)$(SYSUSERSDIR)/carouseld-kiosk.conf
	for f in $(CONFDIR)/carouseld-kiosk.env:configs/carouseld-kiosk.env $(PAMDIR)/carouseld-kiosk:systemd/carouseld-kiosk.pam; do \
	  if [ -e $(DESTDIR)$${f%%:*} ]; then echo "keeping existing $(DESTDIR)$${f%%:*}"; \
	  else $(INSTALL) -m 0644 $${f#*:} $(DESTDIR)$${f%%:*} || exit 1; fi; \
	done

# The reference pages and examples (docs/), which the man pages cite by these paths.
install-doc:
	$(INSTALL) -d $(DESTDIR)$(DOCDIR)/examples
	for f in README.md docs/*.md; do gzip -9nc $$f > $(DESTDIR)$(DOCDIR)/$${f##*/}.gz && chmod 0644 $(DESTDIR)$(DOCDIR)/$${f##*/}.gz || exit 1; done
	$(INSTALL) -m 0644 docs/examples/*.json $(DESTDIR)$(DOCDIR)/examples/

install-man: man
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	$(INSTALL) -m 0644 $(MANBUILDDIR)/carouselctl.1 $(DESTDIR)$(MANDIR)/man1/carouselctl.1
	$(INSTALL) -m 0644 $(MANBUILDDIR)/carouseld-web.1 $(DESTDIR)$(MANDIR)/man1/carouseld-web.1
	$(INSTALL) -m 0644 $(MANBUILDDIR)/carouseld-kiosk.1 $(DESTDIR)$(MANDIR)/man1/carouseld-kiosk.1
	$(INSTALL) -m 0644 $(MANBUILDDIR)/carouseld-kiosk-touch.8 $(DESTDIR)$(MANDIR)/man8/carouseld-kiosk-touch.8
	$(INSTALL) -m 0644 $(MANBUILDDIR)/carouseld-kiosk-touch-pointer.8 $(DESTDIR)$(MANDIR)/man8/carouseld-kiosk-touch-pointer.8
	$(INSTALL) -m 0644 $(MANBUILDDIR)/carouseld.conf.5 $(DESTDIR)$(MANDIR)/man5/carouseld.conf.5
	$(INSTALL) -m 0644 $(MANBUILDDIR)/carouseld.8 $(DESTDIR)$(MANDIR)/man8/carouseld.8
	$(INSTALL) -m 0644 $(MANBUILDDIR)/carousel-mqtt.1 $(DESTDIR)$(MANDIR)/man1/carousel-mqtt.1

uninstall:
	for p in $(PRODUCTS) carouseld-web carouseld-kiosk; do rm -f $(DESTDIR)$(BINDIR)/$$p; done
	rm -f $(DESTDIR)$(UNITDIR)/carouseld-kiosk.service $(DESTDIR)$(SYSUSERSDIR)/carouseld-kiosk.conf $(DESTDIR)$(MANDIR)/man1/carouseld-kiosk.1
	rm -f $(DESTDIR)$(LIBEXECDIR)/carouseld-kiosk-touch $(DESTDIR)$(UNITDIR)/carouseld-kiosk-touch.service $(DESTDIR)$(UNITDIR)/carouseld-kiosk-touch.path \
	  $(DESTDIR)$(MANDIR)/man8/carouseld-kiosk-touch.8
	rm -f $(DESTDIR)$(LIBEXECDIR)/carouseld-kiosk-touch-pointer $(DESTDIR)$(UNITDIR)/carouseld-kiosk-touch-pointer.service \
	  $(DESTDIR)$(MANDIR)/man8/carouseld-kiosk-touch-pointer.8
	rm -f $(DESTDIR)$(MANDIR)/man1/carouselctl.1 $(DESTDIR)$(MANDIR)/man1/carouseld-web.1 $(DESTDIR)$(MANDIR)/man5/carouseld.conf.5 $(DESTDIR)$(MANDIR)/man8/carouseld.8
	rm -rf $(DESTDIR)$(WEBDIR) $(DESTDIR)$(DOCDIR)
	rm -f $(DESTDIR)$(UNITDIR)/carouseld-web.service $(DESTDIR)$(SYSUSERSDIR)/carouseld-web.conf
	rm -f $(DESTDIR)$(UNITDIR)/carouseld.service $(DESTDIR)$(UNITDIR)/carouseld.socket
	rm -f $(DESTDIR)$(UNITDIR)/carousel-mqtt.service $(DESTDIR)$(SYSUSERSDIR)/carousel-mqtt.conf
	rm -f $(DESTDIR)$(MANDIR)/man1/carousel-mqtt.1
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-carouseld.rules $(DESTDIR)$(SYSUSERSDIR)/carouseld.conf
	rm -f $(DESTDIR)$(DBUSSYSTEMDIR)/carouseld-sensor-proxy.conf $(DESTDIR)$(PREFIX)/share/carouseld/sensor-proxy.conf
	# The configuration ($(CONFDIR)) and state (/var/lib/carouseld) are kept.
	@echo "kept $(DESTDIR)$(CONFDIR) and /var/lib/carouseld; remove them by hand if wanted"
