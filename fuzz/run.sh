#!/usr/bin/env bash
# Runs the differential fuzz targets, each for a while.
#
#   bash fuzz/run.sh                     # every target, 600 s each
#   bash fuzz/run.sh 60 packet           # one target, 60 s
#   bash fuzz/run.sh 0                   # only replay the committed seeds
#   FUZZ_JOBS=2 bash fuzz/run.sh 60      # two targets at a time
#
# Needs nightly and cargo-fuzz (`cargo install cargo-fuzz --locked`). New
# inputs go to fuzz/corpus/<target> (not committed); the committed seeds are
# read from fuzz/seeds/<target>; a failing input is saved in
# fuzz/artifacts/<target>, and the run exits non-zero. Each target's output
# goes to fuzz/logs/<target>.log; one line per target sums it up: its runs,
# and the coverage (libFuzzer's `cov`, edges, and `ft`, features) after the
# seeds and the corpus were loaded and at the end. Extra cargo-fuzz options
# (e.g. --target-dir DIR) in FUZZ_ARGS.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:-600}
shift || true
targets=("$@")
((${#targets[@]})) || mapfile -t targets < <(cargo +nightly fuzz list)
jobs=${FUZZ_JOBS:-1}
# shellcheck disable=SC2206 # word splitting wanted
extra=(${FUZZ_ARGS-})
mkdir -p logs

# Builds every target once, so that parallel runs do not wait on each other.
if ((${#targets[@]} == 1)); then
  cargo +nightly fuzz build "${extra[@]}" "${targets[0]}"
else
  cargo +nightly fuzz build "${extra[@]}"
fi

# One target, its output in logs/<target>.log (and on the terminal when the
# targets run one at a time).
fuzz() {
  local target=$1 log=logs/$1.log
  # An input that takes over 10 s, or makes the process hold over 512 MiB
  # (the pcap target: "bounded memory, no hang") or libFuzzer's default
  # 2 GiB (the others, whose sanitizer quarantine alone reached 497 MiB in a
  # 10-minute copy_checksum run), is a finding.
  local rss=2048
  [[ $target == pcap ]] && rss=512
  local limits=(-rss_limit_mb=$rss -timeout=10)
  mkdir -p "corpus/$target" "seeds/$target"
  local run
  if ((seconds == 0)); then
    run=(cargo +nightly fuzz run "${extra[@]}" "$target" "seeds/$target" -- -runs=0 "${limits[@]}")
  else
    run=(cargo +nightly fuzz run "${extra[@]}" "$target" "corpus/$target" "seeds/$target" --
      -max_total_time="$seconds" -print_final_stats=1 "${limits[@]}")
  fi
  if ((jobs == 1)); then
    "${run[@]}" 2>&1 | tee "$log"
    return "${PIPESTATUS[0]}"
  fi
  "${run[@]}" >"$log" 2>&1
}

# The line that sums up a target's log.
summary() {
  local target=$1 status=$2 log=logs/$1.log
  awk -v target="$target" -v status="$status" '
    /^#[0-9]+[ \t]+INITED / { for (i = 1; i < NF; i++) { if ($i == "cov:") c0 = $(i + 1); if ($i == "ft:") f0 = $(i + 1) } }
    /^#[0-9]+[ \t]+DONE / { for (i = 1; i < NF; i++) { if ($i == "cov:") c1 = $(i + 1); if ($i == "ft:") f1 = $(i + 1) } }
    /^Done [0-9]+ runs/ { runs = $2 }
    /^stat::number_of_executed_units:/ { runs = $2 }
    END {
      line = sprintf("fuzz: %-18s %s, %s runs", target, status ? "FAILED" : "ok", runs == "" ? "?" : runs)
      # An empty corpus starts with no coverage line.
      if (c1 != "" && c0 == "") { c0 = 0; f0 = 0 }
      if (c0 != "" && c1 != "")
        line = line sprintf(", cov %s -> %s (+%d), ft %s -> %s (+%d)", c0, c1, c1 - c0, f0, f1, f1 - f0)
      print line
    }' "$log"
}

failed=()
declare -A running=()
# Waits for one target to end and reports it.
reap() {
  local pid status=0
  wait -n -p pid "${!running[@]}" || status=$?
  local target=${running[$pid]}
  unset "running[$pid]"
  if ((status != 0)); then
    failed+=("$target")
    ((jobs == 1)) || { echo "--- $target: the end of its log"; tail -n 40 "logs/$target.log"; }
  fi
  summary "$target" "$status" | tee -a logs/summary
}

: >logs/summary
for target in "${targets[@]}"; do
  ((${#running[@]} < jobs)) || reap
  echo "--- $target: $( ((seconds == 0)) && echo "the seeds" || echo "${seconds}s")"
  fuzz "$target" &
  running[$!]=$target
done
while ((${#running[@]})); do reap; done

echo "--- summary"
cat logs/summary
if ((${#failed[@]})); then
  echo "fuzz: a finding in: ${failed[*]} (the input is in fuzz/artifacts/<target>/)"
  exit 1
fi
