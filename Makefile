GO ?= go

.PHONY: run test build image image-smoke kube-walk migrate bench bench-http bench-decode-memory bench-scale bench-soak explain-scale fmt lint lint-api generate faults fuzz client client-check client-test goclients

# DEV_API_KEY is make run's service key (X-API-Key), for the routes that need one.
DEV_API_KEY ?= tandem-dev-key

# VERSION (git describe) and COMMIT (the commit, +dirty when files changed)
# are stamped into every binary make builds: `tandem version` prints them,
# where go run or a build without VCS data would say "dev" and "unknown".
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell c=$$(git rev-parse HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null && echo $$c || echo $$c+dirty; })
LDFLAGS = -X tandem/bootstrap.Version=$(VERSION) -X tandem/bootstrap.Commit=$(COMMIT)

run: ## start the service on the embedded default (SQLite, disk blobs, log mail and push), with a development service key
	@addr=$${TANDEM_ADDR:-:8080}; echo "tandem: http://localhost:$${addr##*:} (API docs at /docs); service key (X-API-Key): $${TANDEM_API_KEYS:-$(DEV_API_KEY)}"
	TANDEM_ENV=development TANDEM_API_KEYS=$${TANDEM_API_KEYS:-$(DEV_API_KEY)} $(GO) run -ldflags "$(LDFLAGS)" ./cmd/tandem serve

# GORACE: a race build otherwise sleeps a second at exit, per test binary.
RACE = -race
export GORACE ?= atexit_sleep_ms=0

test: ## vet, then every test with the race detector
	$(GO) vet ./...
	$(GO) test $(RACE) -count=1 -parallel 4 -timeout 20m $(GOTESTFLAGS) ./tests/ ./...

faults: ## the fault tests, long: a 15 s database cut (MySQL: set TANDEM_TEST_MYSQL_DSN), hangs, latency, drains, NATS outages
	TANDEM_TEST_FAULT_CUT=15s $(GO) test $(RACE) -count=1 -timeout 20m -v -run 'TestFault|TestDrain|TestReadyzIs503|TestAConnectionThatNeverSpoke|TestStopDrains|TestStreamSurvivesANATSOutage' ./tests/

BIN ?= bin/tandem

build: ## the binary, BIN (bin/tandem), stamped with VERSION (git describe) and COMMIT
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/tandem

IMAGE ?= tandem:dev

image: ## the container image IMAGE (FROM scratch: static binary, CA bundle, tzdata inside) with podman or docker
	IMAGE=$(IMAGE) GO=$(GO) VERSION=$(VERSION) COMMIT=$(COMMIT) bash scripts/image.sh

image-smoke: ## build IMAGE and walk it: sign-up, verification, a time zone, an upload (scripts/image-smoke.sh)
	IMAGE=$(IMAGE) GO=$(GO) VERSION=$(VERSION) COMMIT=$(COMMIT) bash scripts/image-smoke.sh

kube-walk: ## play deploy/kubernetes with podman kube play (MariaDB, NATS, SeaweedFS beside two replicas) and walk a couple through it (scripts/kube-walk.sh)
	GO=$(GO) bash scripts/kube-walk.sh

migrate:
	$(GO) run ./cmd/tandem migrate

bench: ## every Go benchmark, with allocations
	$(GO) test -run '^$$' -bench . -benchmem ./...

bench-http: ## wrk -t1 -c32 on get/list/create of calendar events, SQLite, memory and MySQL (bench/run.sh; BENCHMARKS.md)
	bash bench/run.sh

bench-decode-memory: ## four 49-megapixel PNG uploads at a time, repeated, against tandem serve: RSS during and 10/30/60 s after (bench/decode-memory.sh; BENCHMARKS.md)
	bash bench/decode-memory.sh

bench-scale: ## issue 36: prepare 1k/10k/100k couples on SQLite and MySQL, measure the mix, wrk, RSS, start, migrate, backup/restore, job passes (bench/scale.sh; BENCHMARKS.md)
	bash bench/scale.sh

bench-soak: ## one SQLite tandem serve under the 18-route mix, 32 clients and 32 live streams for DURATION (30m): req/s, p99 and server time per route each minute, RSS, FDs, WAL and DB sizes (bench/soak.sh; BENCHMARKS.md)
	bash bench/soak.sh

EXPLAIN_SQLITE ?= bench/out/scale/sqlite-100000/bench.db
EXPLAIN_MYSQL ?= root@tcp(127.0.0.1:3306)/tandem_scale
explain-scale: ## every repository statement EXPLAINed on the large sets too (after make bench-scale; EXPLAIN_SQLITE, EXPLAIN_MYSQL= to skip one)
	TANDEM_EXPLAIN_SQLITE='$(abspath $(EXPLAIN_SQLITE))' TANDEM_EXPLAIN_MYSQL='$(EXPLAIN_MYSQL)' TANDEM_TEST_MYSQL_DSN="$${TANDEM_TEST_MYSQL_DSN:-root@tcp(127.0.0.1:3306)/test}" \
		bash -o pipefail -c "$(GO) test -count=1 -v -run 'Test' ./adapters/sqlstore/ | grep -E '^(ok|FAIL|--- FAIL)|EXPLAINed on the large|in the large set|large set \(|full scan|SCAN '"

FUZZTIME ?= 30s

fuzz: ## every fuzz target for FUZZTIME each, one after another (make test runs their seed corpora)
	FUZZTIME=$(FUZZTIME) GO=$(GO) bash scripts/fuzz.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint: ## gofmt, go vet and staticcheck (pinned, run through go run)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: the files above need formatting"; exit 1; }
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

REDOCLY ?= @redocly/cli@2.77.0

SPECTRAL ?= @stoplight/spectral-cli@6.16.3

lint-api: ## lint the served OpenAPI document (tandem openapi) with Redocly's recommended rules (redocly.yaml) and Spectral's oas ruleset (.spectral.yaml); both pinned, run through npx
	@mkdir -p bin
	$(GO) run ./cmd/tandem openapi > bin/openapi.json
	npx --yes $(REDOCLY) lint --config redocly.yaml bin/openapi.json
	npx --yes $(SPECTRAL) lint --ruleset .spectral.yaml --fail-severity warn bin/openapi.json

generate: ## regenerate the gomock mocks (mockgen pinned in each go:generate line, which names the ports a test mocks)
	$(GO) generate ./...

client: ## regenerate the TypeScript client's types from tandem openapi (pinned openapi-typescript) and type-check them under strict (scripts/client.sh)
	GO=$(GO) bash scripts/client.sh

client-check: ## fail when clients/typescript/src/schema.ts drifted from the document, then type-check (scripts/client.sh --check)
	GO=$(GO) bash scripts/client.sh --check

client-test: ## the drift check, npm pack, a fresh app that installs the tarball and type-checks under strict, then the TypeScript client's tests from that app against a real tandem serve on the memory profile (scripts/client-test.sh)
	GO=$(GO) bash scripts/client-test.sh

goclients: ## Go clients from tandem openapi with oapi-codegen and ogen (pinned, go run in a module of their own under bin/goclients): every operation generated, nothing skipped, both build and vet (scripts/goclients.sh)
	GO=$(GO) bash scripts/goclients.sh
