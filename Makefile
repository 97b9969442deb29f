# FixKit: build, test, install. Needs a Swift 6 toolchain and libxml2 (see README.md).
#
#   make                          release build in .build
#   make test                     swift test
#   make install PREFIX=~/.local  binaries to PREFIX/bin, man pages to PREFIX/share/man,
#                                 bash, zsh and fish completions under PREFIX/share
#   make lint-man                 check the man pages with mandoc -Tlint
#
# SCRATCH is SwiftPM's scratch path (.build, as `swift build` uses by default); BUILD_DIR is
# where the release binaries are, $(SCRATCH)/release unless given. To build and install from
# another scratch path: make build install SCRATCH=/tmp/fk-build PREFIX=/tmp/fk-inst

PREFIX   ?= /usr/local
DESTDIR  ?=
SCRATCH  ?= .build
BUILD_DIR ?= $(SCRATCH)/release
BINDIR   = $(DESTDIR)$(PREFIX)/bin
MANDIR   = $(DESTDIR)$(PREFIX)/share/man
# Completions, each made by the built tool from its option table (TOOL --completions SHELL),
# where bash-completion, zsh and fish look for them under a prefix.
BASHCOMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHCOMPDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

SWIFT    ?= swift
MANDOC   ?= mandoc
INSTALL  ?= install

TOOLS    = gpx2fix fix2gpx fixfilter fencerule fixsim visits fixplot fixstats
MAN1     = man/gpx2fix.1 man/fix2gpx.1 man/fixfilter.1 man/fencerule.1 man/fixsim.1 man/visits.1 man/fixplot.1 man/fixstats.1
MAN5     = man/fix.5

.PHONY: all build test install uninstall lint-man clean

all: build

# On Linux the Swift runtime is linked statically (the tools do not use Foundation), so that
# an installed tool runs on a machine without the toolchain, starts in half the time (3.0 ms
# against 6.5 ms for a one-point GPX, hyperfine, 1,000 runs) and takes 13.6 MiB instead of
# 20 MiB; bench/startup.sh measures it against xmllint --stream. macOS has
# the runtime in the OS and no static stdlib. STATIC= turns it off.
#
# The static runtime's link arguments export every symbol of the executable (-export-dynamic,
# for code that looks the program's own symbols up by name; the tools never do): 2,127 dynamic
# symbols, whose hash table the loader searched first for each of the libraries' 2,200
# relocations, over a third of its time at start-up (LD_DEBUG=statistics: 870,000 cycles,
# 540,000 without). So they export nothing of their own (270 symbols, all imports).
STATIC   ?= $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib -Xlinker --no-export-dynamic,)
# No $ORIGIN (@loader_path) in the rpath: the tools load no library of their own, and with
# it the loader first looks for each of the seven shared libraries next to the binary, in
# every hwcaps and tls subdirectory (33 failed openat and stat calls at each start, about
# 0.1 ms of a one-point run). RPATH= puts it back.
RPATH    ?= --disable-local-rpath
# Position-dependent executables on Linux (-no-pie; the code is still compiled position
# independent): a PIE's 28,000 relative relocations, mostly the static runtime's metadata,
# are applied at every start and copy every page they write (gpx2fix on a one-point GPX:
# 340 page faults and 2.9 ms of CPU, against 297 and 2.3 ms; xmllint --stream 2.3-2.6 ms;
# perf stat, 300 runs each, interleaved). The cost is that the executable itself is not
# loaded at a random address (its libraries, stack and heap still are); the tools' parsers
# are Swift, bounds-checked but for fuzzed buffer code. PIE= builds position-independent
# executables again.
PIE      ?= $(if $(filter Linux,$(shell uname -s)),-Xswiftc -Xclang-linker -Xswiftc -no-pie,)

build:
	$(SWIFT) build -c release $(STATIC) $(PIE) $(RPATH) --scratch-path $(SCRATCH)

test:
	$(SWIFT) test

# Installs what `make build` made; it does not build, so that `sudo make install` never
# runs the compiler as root.
install:
	@for t in $(TOOLS); do \
	    test -x $(BUILD_DIR)/$$t || { echo "make: $(BUILD_DIR)/$$t is missing: run 'make build' first" >&2; exit 1; }; \
	done
	$(INSTALL) -d $(BINDIR) $(MANDIR)/man1 $(MANDIR)/man5
	for t in $(TOOLS); do $(INSTALL) -m 755 $(BUILD_DIR)/$$t $(BINDIR)/$$t; done
	$(INSTALL) -m 644 $(MAN1) $(MANDIR)/man1/
	$(INSTALL) -m 644 $(MAN5) $(MANDIR)/man5/
	$(INSTALL) -d $(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCOMPDIR)
	for t in $(TOOLS); do \
	    $(BUILD_DIR)/$$t --completions bash > $(BASHCOMPDIR)/$$t && \
	    $(BUILD_DIR)/$$t --completions zsh > $(ZSHCOMPDIR)/_$$t && \
	    $(BUILD_DIR)/$$t --completions fish > $(FISHCOMPDIR)/$$t.fish && \
	    chmod 644 $(BASHCOMPDIR)/$$t $(ZSHCOMPDIR)/_$$t $(FISHCOMPDIR)/$$t.fish || exit 1; \
	done

uninstall:
	for t in $(TOOLS); do rm -f $(BINDIR)/$$t; done
	for m in $(MAN1); do rm -f $(MANDIR)/man1/$${m#man/}; done
	for m in $(MAN5); do rm -f $(MANDIR)/man5/$${m#man/}; done
	for t in $(TOOLS); do rm -f $(BASHCOMPDIR)/$$t $(ZSHCOMPDIR)/_$$t $(FISHCOMPDIR)/$$t.fish; done

# mandoc -Tlint on every page. The pages refer to each other with .Xr, and mandoc looks for
# those only among the manuals installed in the base system, so until FixKit is installed
# there it says "referenced manual not found" for our own pages: those notes are dropped,
# anything else fails the target.
lint-man:
	@out=$$($(MANDOC) -Tlint $(MAN1) $(MAN5) 2>&1 | \
	    grep -v -E 'referenced manual not found: Xr (gpx2fix 1|fix2gpx 1|fixfilter 1|fencerule 1|fixsim 1|visits 1|fixplot 1|fixstats 1|fix 5)'); \
	if [ -n "$$out" ]; then echo "$$out"; exit 1; fi; \
	echo "man pages: clean under mandoc -Tlint"

clean:
	rm -rf $(SCRATCH)
