# Spotter: set-up and the main jobs. Each target first installs what a fresh Debian machine
# lacks (OpenBLAS and pkg-config, through apt-get, only when pkg-config cannot find openblas).

SWIFT ?= swift
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
RELEASE_BIN = .build/release

.PHONY: all deps build demo test lint bench eval format clean tiny-weights libspotter weights peers

all: build

deps:
	@if ! pkg-config --exists openblas 2>/dev/null; then \
	  echo "Installing OpenBLAS (libopenblas-dev) and pkg-config with apt-get..."; \
	  $(SUDO) apt-get update && $(SUDO) apt-get install -y libopenblas-dev pkg-config; \
	fi

build: deps
	$(SWIFT) build

# The main job on the built-in default: a synthetic workout through the whole runtime.
demo: deps
	$(SWIFT) build -c release --product spotter
	$(RELEASE_BIN)/spotter demo

# The suite runs optimised (with testing enabled), as Spotter runs: the per-frame allocation
# tests only mean something there, and the rest runs faster.
test: deps
	$(SWIFT) test -c release -Xswiftc -enable-testing

# The house format (.swift-format): what `make format` writes, checked without writing.
lint:
	$(SWIFT) format lint --strict -r Package.swift Sources Tests Benchmarks

# How well the shipped model and the rep engines do on synthetic people (Benchmarks/eval):
# minutes, not seconds, so never part of `make test`.
eval: deps
	$(SWIFT) build -c release --product spotter
	Benchmarks/eval/synthetic.sh $(RELEASE_BIN)/spotter

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

# libspotter.so: the C interface (Sources/LibSpotter/spotter.h), release build.
libspotter: deps
	$(SWIFT) build -c release --product SpotterC
	ln -sf libSpotterC.so $(RELEASE_BIN)/libspotter.so
	@echo "Built $(RELEASE_BIN)/libspotter.so; header: Sources/LibSpotter/spotter.h"

# Spotter beside ONNX Runtime and PyTorch, one thread each (Benchmarks/peers): a virtual
# environment in .build/peers-venv with CPU-only torch and onnxruntime from PyPI, libspotter,
# then the paired ratios, each line naming the CPU it was measured on.
PEERS_VENV = .build/peers-venv
peers: libspotter
	@test -x $(PEERS_VENV)/bin/python || python3 -m venv $(PEERS_VENV) || \
	  { $(SUDO) apt-get install -y python3-venv && python3 -m venv $(PEERS_VENV); }
	@$(PEERS_VENV)/bin/python -c "import torch, onnxruntime, onnx, numpy" 2>/dev/null || \
	  $(PEERS_VENV)/bin/pip install torch==2.13.0+cpu onnxruntime onnx numpy
	$(PEERS_VENV)/bin/python Benchmarks/peers/peers.py

# The shipped model (Weights/MODEL_CARD.md): synthetic workouts, plus the Penn Action train
# split when ../shared/data is present. About 16 minutes on a 2-core machine, and about 19 GB
# of memory at the peak (every window is held in memory).
PENN ?= ../shared/data/penn-action-train/annotations.json
weights: deps
	$(SWIFT) build -c release --product spotter
	$(RELEASE_BIN)/spotter train --synthetic 2400 --epochs 16 --windows-per-epoch 60000 --seed 1 \
	  $(if $(wildcard $(PENN)),--annotations $(PENN)) --output Weights/default.spotter
