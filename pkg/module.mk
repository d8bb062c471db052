# pkg/: the Debian package (make deb) and the installed helper alone (make install-netem).
# The package holds the programs (/usr/bin), the helper with the group's policy
# (/usr/lib/gcbench/gcbench-netem, netem/policy.h), /etc/gcbench/netem.conf (the
# admin's allowlist, a conffile) and the runtime directories (tmpfiles.d); postinst
# makes the group gcbench and puts the capability on the helper, prerm restores every
# link it shaped, postrm --purge removes the group. docs/netem.md, "The package".
DEB_VERSION ?= $(shell git log -1 --format=0.1+%cd.%h --date=format:%Y%m%d 2>/dev/null || echo 0.1)
DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
DEB         := $(BUILD)/gcbench_$(DEB_VERSION)_$(DEB_ARCH).deb
DEB_ROOT    := $(BUILD)/deb-root
HELPER      := $(BUILD)/pkg/gcbench-netem

deb: $(DEB)
	@echo "deb: $(DEB) (install: sudo dpkg -i $(DEB); then an admin lists the data interfaces in /etc/gcbench/netem.conf and adds users: usermod -aG gcbench USER)"

$(DEB): all man $(HELPER) pkg/deb/control.in pkg/deb/postinst pkg/deb/prerm pkg/deb/postrm pkg/netem.conf pkg/tmpfiles.conf
	@command -v dpkg-deb >/dev/null || { echo "make deb needs dpkg-deb (apt-get install dpkg)" >&2; exit 1; }
	$(Q)rm -f $(BUILD)/gcbench_*.deb && rm -rf $(DEB_ROOT) && mkdir -p $(DEB_ROOT)/DEBIAN $(DEB_ROOT)/usr/bin $(DEB_ROOT)/usr/lib/gcbench \
	  $(DEB_ROOT)/etc/gcbench $(DEB_ROOT)/usr/lib/tmpfiles.d $(DEB_ROOT)/usr/share/man/man1 \
	  $(DEB_ROOT)/usr/share/gcbench/python
	$(Q)install -m 0755 $(BINS) $(DEB_ROOT)/usr/bin/
	$(Q)install -m 0750 $(HELPER) $(DEB_ROOT)/usr/lib/gcbench/gcbench-netem
	$(Q)install -m 0644 pkg/netem.conf $(DEB_ROOT)/etc/gcbench/netem.conf
	$(Q)install -m 0644 pkg/tmpfiles.conf $(DEB_ROOT)/usr/lib/tmpfiles.d/gcbench.conf
	$(Q)install -m 0644 $(wildcard $(BUILD)/man/*.1) $(DEB_ROOT)/usr/share/man/man1/
	$(Q)install -m 0644 python/gcbench_records.py $(DEB_ROOT)/usr/share/gcbench/python/
	$(Q)install -m 0755 pkg/deb/postinst pkg/deb/prerm pkg/deb/postrm $(DEB_ROOT)/DEBIAN/
	$(Q)echo /etc/gcbench/netem.conf >$(DEB_ROOT)/DEBIAN/conffiles
	$(Q)deps=$$(pkg/deb/depends.sh $(BINS) $(HELPER)) && \
	  sed -e 's/@VERSION@/$(DEB_VERSION)/' -e 's/@ARCH@/$(DEB_ARCH)/' -e "s/@DEPENDS@/$$deps/" \
	  pkg/deb/control.in >$(DEB_ROOT)/DEBIAN/control
	$(Q)dpkg-deb --root-owner-group --build $(DEB_ROOT) $@ >/dev/null
	$(Q)rm -rf $(DEB_ROOT)

# The helper alone, where the package puts it, with what postinst does (root).
install-netem: $(HELPER)
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -ne 0 ]; then echo "make install-netem needs root (the helper is root-owned with a capability): run 'sudo make install-netem'" >&2; exit 1; fi
	install -d $(DESTDIR)/usr/lib/gcbench $(DESTDIR)/etc/gcbench $(DESTDIR)/usr/lib/tmpfiles.d
	install -m 0750 $(HELPER) $(DESTDIR)/usr/lib/gcbench/gcbench-netem
	[ -e $(DESTDIR)/etc/gcbench/netem.conf ] || install -m 0644 pkg/netem.conf $(DESTDIR)/etc/gcbench/netem.conf
	install -m 0644 pkg/tmpfiles.conf $(DESTDIR)/usr/lib/tmpfiles.d/gcbench.conf
	$(if $(DESTDIR),,pkg/deb/postinst configure)

.PHONY: deb install-netem
INTEG_TESTS += tests/integration/test_schedule_user.sh
INTEG_TESTS += tests/integration/test_deb.sh
INTEG_TESTS += tests/integration/test_hostlock_users.sh
