GO ?= go

.PHONY: run test build migrate bench fmt lint

run: ## start the service on the embedded default (SQLite, disk blobs, log mail and push)
	$(GO) run ./cmd/tandem serve

test: ## vet, then every test with the race detector
	$(GO) vet ./...
	$(GO) test -race -count=1 $(GOTESTFLAGS) ./...

build:
	$(GO) build -o bin/tandem ./cmd/tandem

migrate:
	$(GO) run ./cmd/tandem migrate

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fmt:
	gofmt -w $$(git ls-files '*.go')
