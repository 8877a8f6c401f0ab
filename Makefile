# carouseld: build and install (see docs/SERVICE.md).
#
#   make                      release build (static Swift runtime when the toolchain has it)
#   sudo make install         binaries, systemd units, udev rule, sysusers entry, config
#   make install DESTDIR=/tmp/stage PREFIX=/usr    staged install for packaging
#   sudo make uninstall       removes what install put in place, except the configuration
#
# Variables: PREFIX (default /usr/local), DESTDIR (staging root), SYSCONFDIR (/etc),
# BUILDDIR (where the built binaries are, default .build/release), NO_BUILD=1 to install
# binaries already built in BUILDDIR without building.

PREFIX      ?= /usr/local
SYSCONFDIR  ?= /etc
DESTDIR     ?=
BINDIR      := $(PREFIX)/bin
UNITDIR     := $(PREFIX)/lib/systemd/system
UDEVRULESDIR := $(PREFIX)/lib/udev/rules.d
SYSUSERSDIR := $(PREFIX)/lib/sysusers.d
CONFDIR     := $(SYSCONFDIR)/carouseld
BUILDDIR    ?= .build/release
SWIFT       ?= swift
INSTALL     ?= install

PRODUCTS := carouseld carouselctl carousel-mqtt

.PHONY: all build install uninstall install-binaries install-data

all: build

# Static Swift runtime where the toolchain ships it (smaller RSS, no libswiftCore.so on the
# target); otherwise a normal release build.
build:
ifeq ($(NO_BUILD),)
	for p in $(PRODUCTS); do \
	  $(SWIFT) build -c release --static-swift-stdlib --product $$p \
	  || $(SWIFT) build -c release --product $$p || exit 1; \
	done
endif

install: build install-binaries install-data
ifeq ($(DESTDIR),)
	# Live install: create the user, load the rule and units (each step optional).
	-command -v systemd-sysusers >/dev/null && systemd-sysusers $(SYSUSERSDIR)/carouseld.conf $(SYSUSERSDIR)/carousel-mqtt.conf
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

uninstall:
	for p in $(PRODUCTS); do rm -f $(DESTDIR)$(BINDIR)/$$p; done
	rm -f $(DESTDIR)$(UNITDIR)/carouseld.service $(DESTDIR)$(UNITDIR)/carouseld.socket
	rm -f $(DESTDIR)$(UNITDIR)/carousel-mqtt.service $(DESTDIR)$(SYSUSERSDIR)/carousel-mqtt.conf
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-carouseld.rules $(DESTDIR)$(SYSUSERSDIR)/carouseld.conf
	# The configuration ($(CONFDIR)) and state (/var/lib/carouseld) are kept.
	@echo "kept $(DESTDIR)$(CONFDIR) and /var/lib/carouseld; remove them by hand if wanted"
