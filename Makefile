# Two entry points for a fresh machine with only Python and make:
#   make demo   set up, generate small ERI, CRI, CII, PSI, IPI, GSI and DFA suites, evaluate the
#               baselines (CRI with its counterfactual tiers), write the HTML report runs/report.html
#   make test   set up with the dev tools and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
DEMO   := suites/demo-ERI-easy
DEMO_DFA := suites/demo-DFA
DEMO_CRI := suites/demo-CRI-hard
DEMO_CII := suites/demo-CII-hard
DEMO_PSI := suites/demo-PSI-hard
DEMO_IPI := suites/demo-IPI-hard
DEMO_GSI := suites/demo-GSI-easy

.PHONY: demo test lint check bench clean

# The demo needs the package only; the tests, linters and benchmarks also need the dev
# tools and the optional extras (Ray, Inspect AI), which are installed on top of it.
DEV := $(VENV)/.dev-installed

$(BIN)/oracle-gen: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(DEV): $(BIN)/oracle-gen
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

demo: $(BIN)/oracle-gen
	$(BIN)/oracle-gen --category ERI --level easy -n 12 --seed 0 --out $(DEMO)
	$(BIN)/oracle-eval 10@1 --suite $(DEMO)
	$(BIN)/oracle-gen --category CRI --level hard -n 8 --seed 0 --out $(DEMO_CRI)
	$(BIN)/oracle-eval 10@1 --suite $(DEMO_CRI) --counterfactual
	$(BIN)/oracle-gen --category CII --level hard -n 8 --seed 0 --out $(DEMO_CII)
	$(BIN)/oracle-eval 2@1 --suite $(DEMO_CII)
	$(BIN)/oracle-gen --category PSI --level hard -n 8 --seed 0 --out $(DEMO_PSI)
	$(BIN)/oracle-eval 2@1 --suite $(DEMO_PSI)
	$(BIN)/oracle-gen --category IPI --level hard -n 8 --seed 0 --out $(DEMO_IPI)
	$(BIN)/oracle-eval 5@1 --suite $(DEMO_IPI)
	$(BIN)/oracle-gen --category GSI --level easy -n 8 --seed 0 --out $(DEMO_GSI)
	$(BIN)/oracle-eval 1@1 --suite $(DEMO_GSI)
	$(BIN)/oracle-gen --category DFA --states 2-9 -n 16 --seed 0 --out $(DEMO_DFA)
	$(BIN)/oracle-eval --suite $(DEMO_DFA) --agent lstar --agent kv --agent ttt --agent random --agent fixed
	@# PSI is left out of the demo's report: measuring its bits takes minutes (see README)
	$(BIN)/oracle-eval report runs/ERI-*/*/ runs/CRI-*/*/ runs/CII-*/*/ runs/IPI-*/*/ \
	    runs/GSI-*/*/ runs/DFA-*/*/ --html runs/report.html
	@echo
	@echo "Done. The tools are in $(VENV)/bin; put them on your PATH with"
	@echo "    source $(VENV)/bin/activate"
	@echo "then try:"
	@echo "    oracle-eval 10@1 --suite $(DEMO) --feedback deferred   # ORACLE's blind setting"
	@echo "    oracle-gen --category ERI --level hard -n 8            # a secret-seed suite"
	@echo "    oracle-play 10@1 --suite $(DEMO) --box ERI-easy-0000   # play a box yourself"
	@echo "    oracle-eval report runs/<folder>/<run>                 # recompute a run's tables"
	@echo "and open runs/report.html in a browser: every run's tables, figures, tiers and episodes."

# Two worker processes (the CI machines have 2 cores), each test file whole on one of
# them, so a module's fixtures (a Ray head, a generated suite) are built once.
test: $(DEV)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

check: lint test

bench: $(DEV)
	$(BIN)/python benchmarks/sandbox/bench_roundtrip.py
	$(BIN)/python benchmarks/dfa/bench_sampler.py
	$(BIN)/python benchmarks/dfa/bench_learners.py
	$(BIN)/python benchmarks/dfa/bench_similarity.py
	$(BIN)/python benchmarks/dfa/bench_episode.py
	$(BIN)/python benchmarks/llm/bench_llm.py
	$(BIN)/python benchmarks/eval/bench_concurrency.py
	$(BIN)/python benchmarks/eval/bench_ray.py
	$(BIN)/python benchmarks/llm/bench_inspect.py
	$(BIN)/python benchmarks/eval/bench_spaces.py
	$(BIN)/python benchmarks/cli/bench_startup.py
	$(BIN)/python benchmarks/serve/bench_served.py

clean:
	rm -rf $(VENV) suites runs .pytest_cache .mypy_cache .ruff_cache
