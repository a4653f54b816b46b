# The two set-up commands of the README. Both install missing Debian packages first.
#   make run   - Release build, then listd on 127.0.0.1:6379 in the foreground
#   make test  - build (RelWithDebInfo + an ASan/UBSan Debug build) and run every test
.PHONY: run test build deps bench clean

JOBS ?= $(shell nproc)

deps:
	./scripts/install-deps.sh

build: deps
	cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DLISTD_UNITY_BUILD=ON
	cmake --build build/release --target listd -j$(JOBS)

run: build
	./build/release/listd --port 6379 --bind 127.0.0.1

test: deps
	./scripts/run-tests.sh

bench: deps
	/usr/bin/python3 bench/side_by_side.py

clean:
	rm -rf build
