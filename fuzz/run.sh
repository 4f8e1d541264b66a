#!/usr/bin/env bash
# Runs the differential fuzz targets, one after the other, each for a while.
#
#   bash fuzz/run.sh                     # every target, 600 s each
#   bash fuzz/run.sh 60 packet           # one target, 60 s
#   bash fuzz/run.sh 0                   # only replay the committed seeds
#
# Needs nightly and cargo-fuzz (`cargo install cargo-fuzz`). New inputs go to
# fuzz/corpus/<target> (not committed); the committed seeds are read from
# fuzz/seeds/<target>; a failing input is saved in fuzz/artifacts/<target>.
# Extra cargo-fuzz options (e.g. --target-dir DIR) in FUZZ_ARGS.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:-600}
shift || true
targets=("$@")
((${#targets[@]})) || mapfile -t targets < <(cargo +nightly fuzz list)
# shellcheck disable=SC2206 # word splitting wanted
extra=(${FUZZ_ARGS-})

for target in "${targets[@]}"; do
  # An input that takes over 10 s, or makes the process hold over 512 MiB
  # (the pcap target: "bounded memory, no hang") or libFuzzer's default
  # 2 GiB (the others, whose sanitizer quarantine alone reached 497 MiB in a
  # 10-minute copy_checksum run), is a finding.
  rss=2048
  [[ $target == pcap ]] && rss=512
  limits=(-rss_limit_mb=$rss -timeout=10)
  mkdir -p "corpus/$target" "seeds/$target"
  if ((seconds == 0)); then
    echo "--- $target: the seeds"
    cargo +nightly fuzz run "${extra[@]}" "$target" "seeds/$target" -- -runs=0 "${limits[@]}"
  else
    echo "--- $target: ${seconds}s"
    cargo +nightly fuzz run "${extra[@]}" "$target" "corpus/$target" "seeds/$target" -- \
      -max_total_time="$seconds" -print_final_stats=1 "${limits[@]}"
  fi
done
