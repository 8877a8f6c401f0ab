# carouseld: build and install (see docs/SERVICE.md).
#
#   make                      release build (static Swift runtime when the toolchain has it)
#   sudo make install         binaries, systemd units, udev rule, sysusers entry, config, and the
#                             web display bridge (carouseld-web, web/ page, its unit and user)
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
WEBDIR      := $(PREFIX)/share/carouseld/web
BUILDDIR    ?= .build/release
SWIFT       ?= swift
INSTALL     ?= install

PRODUCTS := carouseld carouselctl

.PHONY: all build install uninstall install-binaries install-data install-web

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

install: build install-binaries install-data install-web
ifeq ($(DESTDIR),)
	# Live install: create the users, load the rule and units (each step optional).
	-command -v systemd-sysusers >/dev/null && systemd-sysusers $(SYSUSERSDIR)/carouseld.conf $(SYSUSERSDIR)/carouseld-web.conf
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
	$(INSTALL) -m 0644 systemd/60-carouseld.rules $(DESTDIR)$(UDEVRULESDIR)/60-carouseld.rules
	$(INSTALL) -m 0644 systemd/sysusers.d/carouseld.conf $(DESTDIR)$(SYSUSERSDIR)/carouseld.conf
	# Never overwrite an operator's configuration.
	if [ -e $(DESTDIR)$(CONFDIR)/carouseld.conf ]; then \
	  echo "keeping existing $(DESTDIR)$(CONFDIR)/carouseld.conf"; \
	else \
	  $(INSTALL) -m 0644 configs/carouseld.conf $(DESTDIR)$(CONFDIR)/carouseld.conf; \
	fi

# The web display bridge (docs/WEB.md): the websocketd command-line script, the page, its unit
# and its user. Needs no build.
install-web:
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(WEBDIR)/demo $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR)
	$(INSTALL) -m 0755 scripts/carouseld-web $(DESTDIR)$(BINDIR)/carouseld-web
	$(INSTALL) -m 0644 web/*.html web/*.js web/*.css web/*.json $(DESTDIR)$(WEBDIR)/
	$(INSTALL) -m 0644 web/demo/* $(DESTDIR)$(WEBDIR)/demo/
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

uninstall:
	for p in $(PRODUCTS) carouseld-web; do rm -f $(DESTDIR)$(BINDIR)/$$p; done
	rm -rf $(DESTDIR)$(WEBDIR)
	rm -f $(DESTDIR)$(UNITDIR)/carouseld-web.service $(DESTDIR)$(SYSUSERSDIR)/carouseld-web.conf
	rm -f $(DESTDIR)$(UNITDIR)/carouseld.service $(DESTDIR)$(UNITDIR)/carouseld.socket
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-carouseld.rules $(DESTDIR)$(SYSUSERSDIR)/carouseld.conf
	# The configuration ($(CONFDIR)) and state (/var/lib/carouseld) are kept.
	@echo "kept $(DESTDIR)$(CONFDIR) and /var/lib/carouseld; remove them by hand if wanted"
