# Spotter: set-up and the main jobs. Each target first installs what a fresh Debian machine
# lacks, through apt-get, only when it is missing: OpenBLAS, SQLite and libpq (found by
# pkg-config) to build; for the tests also the sqlite3 program, PostgreSQL, HAProxy and stunnel,
# which the history's and the fleet's tests start in folders of their own (never as system
# services), openssl and iproute2's ip, which give the fleet check a certificate and hosts,
# espeak-ng, which speaks the cues (also for demo-speech), Python's venv and opencv-doc's
# videos for spotter video (also for make video), and ffmpeg, which serves a video as a live
# stream (also for make live and live-check).

SWIFT ?= swift
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
RELEASE_BIN = .build/release

FOLD_TARGETS = fold-0 fold-1 fold-2 fold-3 fold-4

.PHONY: all deps test-deps speech-deps build demo demo-speech video live live-check test lint bench \
	eval eval-real folds proxy calibrate format clean tiny-weights libspotter weights report-check \
	fleet-check soak peers release-spotter $(FOLD_TARGETS)

all: build

# One apt-get update, then one install of whatever is missing.
define install_missing
	@missing=""; \
	for pair in $(1); do \
	  test="$${pair%%=*}"; package="$${pair#*=}"; \
	  sh -c "$$test" >/dev/null 2>&1 || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing$$missing with apt-get..."; \
	  $(SUDO) apt-get update && $(SUDO) apt-get install -y $$missing; \
	fi
endef

BUILD_DEPS = "command -v pkg-config=pkg-config" "pkg-config --exists openblas=libopenblas-dev" \
	"pkg-config --exists sqlite3=libsqlite3-dev" "pkg-config --exists libpq=libpq-dev"
SPEECH_DEPS = "command -v espeak-ng=espeak-ng"
# spotter video sets up its detector with Python's venv and pip (python3-venv brings both);
# OpenCV's example videos (people walking past a camera) are in Debian's opencv-doc.
PYTHON_DEPS = "python3 -c 'import venv, ensurepip'=python3-venv"
OPENCV_DOC_DEPS = "dpkg -L opencv-doc=opencv-doc"
# Debian's ffmpeg serves a video as a live stream on loopback, standing in for a camera.
FFMPEG_DEPS = "command -v ffmpeg=ffmpeg"
TEST_DEPS = $(BUILD_DEPS) "command -v sqlite3=sqlite3" "command -v psql=postgresql-client" \
	"ls /usr/lib/postgresql/*/bin/initdb=postgresql" \
	"test -x /usr/sbin/haproxy || command -v haproxy=haproxy" "command -v stunnel4=stunnel4" \
	"command -v openssl=openssl" "command -v ip=iproute2" $(SPEECH_DEPS) $(PYTHON_DEPS) \
	$(OPENCV_DOC_DEPS) $(FFMPEG_DEPS)

deps:
	$(call install_missing,$(BUILD_DEPS))

test-deps:
	$(call install_missing,$(TEST_DEPS))

# espeak-ng says --speak and writes --speak-to (README, "Spoken cues"), and the tests use it.
speech-deps:
	$(call install_missing,$(SPEECH_DEPS))

build: deps
	$(SWIFT) build

# The main job on the built-in default: a synthetic workout through the whole runtime.
demo: release-spotter
	$(RELEASE_BIN)/spotter demo --report $(RELEASE_BIN)/demo-report.html

# A video through the whole of Spotter (README, "Videos"): BlazePose's poses, the classifier,
# the rep engines, and the report with the video's frames in it. VIDEO=FILE, else OpenCV's
# vtest.avi (people walking past a camera, from Debian's opencv-doc, found with dpkg -L). The
# first run sets the detector up: about 410 MB from PyPI, in ~/.cache/spotter.
video: release-spotter
	$(call install_missing,$(PYTHON_DEPS) $(if $(VIDEO),,$(OPENCV_DOC_DEPS)))
	@video="$(VIDEO)"; [ -n "$$video" ] || video=$$(dpkg -L opencv-doc | grep '/vtest\.avi$$'); \
	  $(RELEASE_BIN)/spotter video --report $(RELEASE_BIN)/video-report.html "$$video"

# Live (README, "Live"): spotter video on a live source with its page at LIVE_VIEW. LIVE=/dev/video0
# (or an index, or an rtsp://, http://, udp:// URL) for a real camera; by default OpenCV's
# vtest.avi at 30 frames a second, three times over, served by ffmpeg on loopback as a camera
# would serve it (made once into .build/live). Ctrl-C ends the session with its summary.
LIVE_VIEW ?= 127.0.0.1:8090
LIVE_STREAM_PORT ?= 8091
LIVE_DIR = .build/live
live: release-spotter
	$(call install_missing,$(PYTHON_DEPS) $(if $(LIVE),,$(OPENCV_DOC_DEPS) $(FFMPEG_DEPS)))
	@mkdir -p $(LIVE_DIR)
	@if [ -n "$(LIVE)" ]; then \
	  echo "Open http://$(LIVE_VIEW)/ in a browser."; \
	  exec $(RELEASE_BIN)/spotter video --view $(LIVE_VIEW) "$(LIVE)"; \
	fi; \
	video=$$(dpkg -L opencv-doc | grep '/vtest\.avi$$'); \
	[ -s $(LIVE_DIR)/vtest30.ts ] || ffmpeg -y -hide_banner -loglevel error -r 30 -i "$$video" \
	  -c:v mpeg2video -q:v 2 -f mpegts $(LIVE_DIR)/vtest30.ts; \
	ffmpeg -hide_banner -loglevel quiet -re -stream_loop 2 -i $(LIVE_DIR)/vtest30.ts -c copy \
	  -f mpegts -listen 1 http://127.0.0.1:$(LIVE_STREAM_PORT) & sender=$$!; \
	trap 'kill $$sender 2>/dev/null' EXIT INT TERM; sleep 0.5; \
	echo "Open http://$(LIVE_VIEW)/ in a browser."; \
	$(RELEASE_BIN)/spotter video --no-history --view $(LIVE_VIEW) http://127.0.0.1:$(LIVE_STREAM_PORT)

# The live stream measured and looked at (Benchmarks/live/check.sh): the detector's rate, the
# capture-to-event latency and frames dropped from vtest.avi served at 30 frames a second by
# ffmpeg, then with the detector slowed to half that, and screenshots of the live page in
# headless Chromium (installed when missing) during the stream (and a footballer's photograph
# as a stream) and with synthetic squats' count: .build/live-check/*.png. About four minutes;
# not part of `make test`.
live-check: release-spotter
	$(call install_missing,$(PYTHON_DEPS) $(OPENCV_DOC_DEPS) $(FFMPEG_DEPS) "command -v chromium=chromium")
	Benchmarks/live/check.sh $(RELEASE_BIN)/spotter "$$(dpkg -L opencv-doc | grep '/vtest\.avi$$')" \
	  .build/live-check

# The demo's spoken counts and cues as a soundtrack of the workout: .build/demo-speech.wav.
demo-speech: release-spotter speech-deps
	$(RELEASE_BIN)/spotter demo --no-history --speak-to .build/demo-speech.wav

# The suite runs optimised (with testing enabled), as Spotter runs: the per-frame allocation
# tests only mean something there, and the rest runs faster.
test: test-deps
	$(SWIFT) test -c release -Xswiftc -enable-testing

# The fleet recipe (README, "A fleet"), checked at full size: three daemons behind HAProxy,
# which terminates TLS, share one PostgreSQL; 300 clients stream through the balancer over TLS;
# PostgreSQL is stopped for 30 s while sessions end, and one daemon is SIGKILLed half-way through
# the workouts and started again, its clients resuming through the balancer; one client in ten
# also reconnects while its old connection is still open; every session must be stored once, and
# 99% of the resumed clients end with an uninterrupted run's counts. As root,
# each part runs on a host of its own (network namespaces, removed at the end). About 90 s;
# `make test` runs the same check with a few clients and a 4 s pause.
fleet-check: test-deps release-spotter
	$(SWIFT) build -c release --product spotter-bench
	$(RELEASE_BIN)/spotter-bench fleet --clients 300 --daemons 3 --postgres-pause 30 \
	  --kill-daemon 0.5

# The daemon over a long run: 500 clients each keep one session open for 20 minutes while the
# daemon's resident memory, open descriptors and frame-to-event p99 are taken every minute. Fails
# unless memory at minute 20 is within 10% of minute 2's, descriptors stay flat and every
# minute's p99 is within 1.5 times minute 2's (README, "Serving many streams"). About 23
# minutes, so never part of `make test`.
soak: release-spotter
	$(SWIFT) build -c release --product spotter-bench
	$(RELEASE_BIN)/spotter-bench serve --minutes 20 --clients 500

# The house format (.swift-format): what `make format` writes, checked without writing; and
# every import of one of the package's modules declared in Package.swift (.ci/check-imports).
LINT_DEPS = "command -v python3=python3"
lint:
	$(call install_missing,$(LINT_DEPS))
	$(SWIFT) format lint --strict -r Package.swift Sources Tests Benchmarks
	SWIFT=$(SWIFT) .ci/check-imports

# How well the shipped model and the rep engines do on synthetic people (Benchmarks/eval):
# minutes, not seconds, so never part of `make test`.
eval: release-spotter
	Benchmarks/eval/synthetic.sh $(RELEASE_BIN)/spotter

# How Spotter does on the real recordings in ../shared/data (Benchmarks/eval/real.sh); says so
# and succeeds when they are absent.
DATA ?= ../shared/data
eval-real: release-spotter
	Benchmarks/eval/real.sh $(RELEASE_BIN)/spotter $(DATA)

# Cross-validation models for eval-real: the shipped recipe five times, each leaving one fold
# of the real clips out (clip n is in fold n mod 5). Each fold is its own target, so
# `make -j2 folds` trains two at once, each with the shipped recipe's memory (time and memory:
# Weights/MODEL_CARD.md).
folds: $(FOLD_TARGETS)
$(FOLD_TARGETS): release-spotter
	mkdir -p .build/folds
	$(TRAIN_ENV) $(RELEASE_BIN)/spotter train $(WEIGHTS_RECIPE) --fold $(@:fold-%=%)/5 \
	  --annotations $(PENN) --annotations $(COUNTIX) --output .build/folds/$@.spotter

# The shipped model's confidence made honest (Weights/MODEL_CARD.md, "Confidence"): its
# temperatures fitted on the fold models' held-out windows (make folds first) and written into
# Weights/default.spotter.
calibrate: release-spotter
	$(RELEASE_BIN)/spotter calibrate --annotations $(PENN) --annotations $(COUNTIX) \
	  $(foreach fold,$(FOLD_TARGETS),--fold-weights .build/folds/$(fold).spotter) \
	  --write Weights/default.spotter

# The release build of the command line, which most targets run.
release-spotter: deps
	$(SWIFT) build -c release --product spotter

# Release-build benchmarks (never part of `make test`).
bench: deps
	$(SWIFT) build -c release --product spotter-bench
	$(RELEASE_BIN)/spotter-bench

format:
	$(SWIFT) format -i -r Package.swift Sources Tests Benchmarks

clean:
	rm -rf .build

# The tiny deterministic model the tests use (Weights/FORMAT.md).
tiny-weights: deps
	$(SWIFT) build --product spotter
	.build/debug/spotter init-weights --architecture tiny --seed 7 --output Weights/tiny.spotter

# libspotter.so: the C interface (Sources/LibSpotter/spotter.h), release build: the product
# LibSpotter, which SwiftPM writes as libLibSpotter.so, under the name C programs link with.
libspotter: deps
	$(SWIFT) build -c release --product LibSpotter
	ln -sf libLibSpotter.so $(RELEASE_BIN)/libspotter.so
	@echo "Built $(RELEASE_BIN)/libspotter.so; header: Sources/LibSpotter/spotter.h"

# Spotter beside ONNX Runtime and PyTorch, one thread each (Benchmarks/peers): a virtual
# environment in .build/peers-venv with CPU-only torch and onnxruntime from PyPI, libspotter,
# then the paired ratios, each line naming the CPU it was measured on.
PEERS_VENV = .build/peers-venv
peers: libspotter
	@test -x $(PEERS_VENV)/bin/python || python3 -m venv $(PEERS_VENV) || \
	  { $(SUDO) apt-get update && $(SUDO) apt-get install -y python3-venv && python3 -m venv $(PEERS_VENV); }
	@$(PEERS_VENV)/bin/python -c "import torch, onnxruntime, onnx, numpy" 2>/dev/null || \
	  $(PEERS_VENV)/bin/pip install torch==2.13.0+cpu onnxruntime onnx numpy || \
	  $(PEERS_VENV)/bin/pip install --extra-index-url https://download.pytorch.org/whl/cpu \
	    torch==2.13.0+cpu onnxruntime onnx numpy
	$(PEERS_VENV)/bin/python Benchmarks/peers/peers.py

# The shipped model (Weights/MODEL_CARD.md): synthetic workouts, plus the real recordings
# (Penn Action train split, Countix-Fitness) when ../shared/data is present. Windows are drawn
# from a compact store of the recordings as training needs them (peak memory: the model card).
PENN ?= $(DATA)/penn-action-train/annotations.json
COUNTIX ?= $(DATA)/countix-fitness-test/annotations.json
# Real windows are drawn 4 times as often as synthetic ones of their class, so that about a
# third of the draws are real (without it, 12%). Fed view-robust features; cameras from every
# angle, the floor included; 15% of workouts done as rehab does them; the wide other movement;
# real clips mirrored for real, a quarter of their copies framed tighter (Weights/MODEL_CARD.md).
WEIGHTS_RECIPE = --synthetic 2400 --epochs 16 --windows-per-epoch 60000 --seed 1 \
	--recorded-weight 4 --features view-robust --cameras every-angle --rehab 0.15 \
	--others wide --crop 0.25 --reflect
# Training's matrix products are OpenBLAS's, and Debian's OpenBLAS 0.3.21 falls back to its
# SSE3 kernels on CPUs it does not recognise (the Xeon of the README's figures), 3 times slower.
# The training targets name the kernels after the instruction sets in /proc/cpuinfo, unless
# OPENBLAS_CORETYPE is set. Kernels change the weights' rounding: the same kernels on the same
# data give the same bytes.
ifndef OPENBLAS_CORETYPE
OPENBLAS_CORETYPE := $(shell grep -qw avx512bw /proc/cpuinfo 2>/dev/null && echo SkylakeX || \
	{ grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo && echo Haswell; })
endif
TRAIN_ENV = $(if $(OPENBLAS_CORETYPE),OPENBLAS_CORETYPE=$(OPENBLAS_CORETYPE))
weights: release-spotter
	$(TRAIN_ENV) $(RELEASE_BIN)/spotter train $(WEIGHTS_RECIPE) \
	  $(foreach set,$(wildcard $(PENN) $(COUNTIX)),--annotations $(set)) \
	  --output Weights/default.spotter

# A quick proxy for `make folds` + `make eval-real`, to try recipe ideas in minutes: fold
# PROXY_FOLD of 5 only, trained with a smaller recipe (a third of the shipped recipe's synthetic
# workouts and windows; all of the fold's real clips, drawn a third as often per window, so they
# keep the shipped recipe's share of the draws), then the held-out clips scored: Penn
# Action overall and by `view`, the same clips mirrored (filmed from the other side), Countix,
# and synthetic clips by camera (Benchmarks/eval/proxy.sh; time and figures:
# Weights/MODEL_CARD.md). Try another recipe with
# `make proxy PROXY_RECIPE="..."` (give it the whole recipe: it replaces this one); the model is
# .build/proxy/fold-PROXY_FOLD.spotter.
PROXY_RECIPE = --synthetic 800 --epochs 8 --windows-per-epoch 40000 --seed 1 \
	--recorded-weight 1.333 --features view-robust --cameras every-angle --rehab 0.15 \
	--others wide --crop 0.25 --reflect
PROXY_FOLD ?= 0
proxy: release-spotter
	$(TRAIN_ENV) Benchmarks/eval/proxy.sh $(RELEASE_BIN)/spotter $(DATA) $(PROXY_FOLD) \
	  .build/proxy/fold-$(PROXY_FOLD).spotter $(PROXY_RECIPE)

# The report page in a real browser: `spotter report` on a synthetic everyday workout (three
# sets, shallow reps, movements not counted), then
# headless Chromium (Debian's chromium, installed with apt-get when missing) renders it to a
# PNG to look at and prints it to a PDF. Not part of `make test`: CI starts no browser.
REPORT_CHECK = .build/report-check
REPORT_HEIGHT ?= 6000
report-check: release-spotter
	@command -v chromium >/dev/null 2>&1 || { echo "Installing Chromium with apt-get..."; \
	  $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }
	rm -rf $(REPORT_CHECK) && mkdir -p $(REPORT_CHECK)
	$(RELEASE_BIN)/spotter synth --workout random --realism everyday --seed 10 --fps 30 \
	  --output $(REPORT_CHECK)/poses > /dev/null
	$(RELEASE_BIN)/spotter report $(REPORT_CHECK)/poses/synth-000010.jsonl --json \
	  --output $(REPORT_CHECK)/report.html
	cd $(REPORT_CHECK) && chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
	  --window-size=1024,$(REPORT_HEIGHT) --screenshot=report.png file://$$PWD/report.html
	cd $(REPORT_CHECK) && chromium --headless --no-sandbox --disable-gpu \
	  --no-pdf-header-footer --print-to-pdf=report.pdf file://$$PWD/report.html
	@test -s $(REPORT_CHECK)/report.png && test -s $(REPORT_CHECK)/report.pdf
	@echo "Look at $(REPORT_CHECK)/report.png (and report.pdf, the page as printed)."
