# kbgp — the two commands a newcomer needs are `make lab` and `make test`; `make cluster`
# is the optional third: a real cluster on this machine (needs root).

GO             ?= go
CONTROLLER_GEN := $(GO) tool controller-gen
BIN            := bin

.PHONY: all
all: build

.PHONY: build
build: ## Build kbgp, kbgp-cni, kubectl-bgp and kbgp-lab into bin/.
	$(GO) build -o $(BIN)/kbgp ./cmd/kbgp
	$(GO) build -o $(BIN)/kbgp-cni ./cmd/kbgp-cni
	$(GO) build -o $(BIN)/kubectl-bgp ./cmd/kubectl-bgp
	$(GO) build -o $(BIN)/kbgp-lab ./cmd/kbgp-lab

.PHONY: generate
generate: ## Generate deepcopy code for the API types.
	$(CONTROLLER_GEN) object paths=./api/...

.PHONY: manifests
manifests: ## Generate the CRDs into config/crd/bases and RBAC into config/rbac.
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=config/crd/bases
	$(CONTROLLER_GEN) rbac:roleName=kbgp-operator paths=./internal/operator/... output:rbac:artifacts:config=config/rbac/operator
	$(CONTROLLER_GEN) rbac:roleName=kbgp-agent paths=./internal/agent/... output:rbac:artifacts:config=config/rbac/agent

.PHONY: verify
verify: ## Regenerate and fail if generated files were stale or third_party/gobgp is not GoBGP + hack/gobgp/patches.
	hack/verify-generated.sh
	hack/gobgp/rebuild.sh

.PHONY: lint
lint: ## gofmt, go vet (bench included) and the import boundaries (hack/importcheck).
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags bench ./bench/
	$(GO) run ./hack/importcheck

.PHONY: deps
deps: ## Install test dependencies and build the envtest assets (idempotent).
	hack/test-deps.sh

.PHONY: test
test: lint verify ## Everything that must pass: deps, lint, generated code, all test layers.
	KUBEBUILDER_ASSETS="$$(hack/test-deps.sh)" GO=$(GO) hack/go-test.sh

.PHONY: bench
bench: ## Slow benchmarks against the goals of docs/design/README.md (not in CI).
	KUBEBUILDER_ASSETS="$$(hack/test-deps.sh)" $(GO) test -tags bench -count=1 -v -timeout 60m ./bench/

.PHONY: lab
lab: build ## Run the whole system on this machine (kbgp-lab); Ctrl-C stops it.
	KUBEBUILDER_ASSETS="$$(hack/test-deps.sh --lab)" $(BIN)/kbgp-lab

.PHONY: cluster
cluster: ## A real 3-node cluster with kbgp from config/cluster-lab (root); Ctrl-C removes it.
	$(GO) build -o $(BIN)/kbgp-cluster ./test/cluster/cmd/kbgp-cluster
	$(BIN)/kbgp-cluster --repo . --assets "$$(hack/test-deps.sh --cluster)"

.PHONY: cluster-up
cluster-up: ## make cluster in the background; prints KUBECONFIG, ROUTER_NETNS, ROUTER_VTYSH, CLIENT_NETNS.
	hack/cluster.sh up

.PHONY: cluster-down
cluster-down: ## Stop what make cluster-up started and remove everything it made.
	hack/cluster.sh down

.PHONY: help
help:
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "%-10s %s\n", $$1, $$2}'
