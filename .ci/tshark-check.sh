#!/usr/bin/env bash
# Cross-checks `fastpath pcap verify` against tshark's checksum validation
# on the test captures (every link type, VLAN stacks, options, extension
# headers, fragments, UDP's zero, snap lengths, padding, tunnels, pcap and
# pcapng in both byte orders), then checks that tshark finds no bad checksum
# in the captures `fastpath pcap fix` wrote.
#
# The verdicts must be equal, frame by frame and protocol by protocol, each
# occurrence in order (a tunnel's inner headers after the outer ones):
#
#   fastpath    tshark (*.checksum.status)
#   good        1 Good
#   bad         0 Bad
#   unverified  2 Unverified
#   absent      3 Not present   (UDP over IPv4 with checksum 0)
#   illegal     4 Illegal       (UDP over IPv6 with checksum 0)
#
# tshark runs with IP reassembly off (ip.defragment, ipv6.defragment):
# fastpath does not reassemble, so a first fragment's upper-layer checksum
# is unverified in both; with reassembly on, tshark would verify it on the
# frame of the last fragment instead. Frames tshark has no field for and
# fastpath prints no line for (later fragments, headers cut before their
# checksum field) compare equal.
#
# Usage: .ci/tshark-check.sh [DIR]   (DIR: where to write the captures)
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

if ! command -v tshark >/dev/null; then
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends tshark >/dev/null
fi
tshark --version 2>/dev/null | head -1

dir=${1:-$(mktemp -d)}
mkdir -p "$dir"
# The tests write every sample capture and its fixed copy into $dir.
FASTPATH_PCAP_SAMPLES="$dir" cargo test --locked -q -p fastpath-cli --test pcap \
  fix_changes_only_checksums_and_then_verify_finds_none_bad >/dev/null
cargo build --locked -q -p fastpath-cli --release
fastpath=$(cargo metadata --format-version 1 --no-deps | sed -E 's/.*"target_directory":"([^"]*)".*/\1/')/release/fastpath

tshark_verdicts() {
  # One line per frame and protocol: "frame proto status,status,...".
  tshark -n -r "$1" \
    -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE -o udp.check_checksum:TRUE \
    -o udplite.check_checksum:TRUE -o ip.defragment:FALSE -o ipv6.defragment:FALSE \
    -T fields -E occurrence=a -E aggregator=, -e frame.number \
    -e ip.checksum.status -e tcp.checksum.status -e udp.checksum.status \
    -e icmp.checksum.status -e icmpv6.checksum.status 2>/dev/null |
    awk -F'\t' 'BEGIN { split("ipv4 tcp udp icmp icmpv6", name, " ") }
      { for (i = 2; i <= 6; i++) if ($i != "") print $1, name[i - 1], $i }'
}

fastpath_verdicts() {
  # tshark reports UDP-Lite's checksum in udp.checksum.status.
  "$fastpath" pcap verify --json "$1" |
    sed -E 's/.*"frame": ([0-9]+), "depth": ([0-9]+), "proto": "([a-z0-9]+)", "status": "([a-z]+)".*/\1 \3 \4/' |
    sed -E 's/ udplite / udp /' |
    awk 'BEGIN { code["bad"] = 0; code["good"] = 1; code["unverified"] = 2; code["absent"] = 3; code["illegal"] = 4 }
      { key = $1 " " $2; if (!(key in seen)) { order[++n] = key; seen[key] = code[$3] } else seen[key] = seen[key] "," code[$3] }
      END { for (i = 1; i <= n; i++) print order[i], seen[order[i]] }'
}

failed=0
files=0
for capture in "$dir"/*.pcap "$dir"/*.pcapng; do
  files=$((files + 1))
  if ! diff <(tshark_verdicts "$capture" | sort) <(fastpath_verdicts "$capture" | sort) \
      > "$dir/diff.txt"; then
    echo "DIFFERENT: $capture (< tshark, > fastpath)"
    cat "$dir/diff.txt"
    failed=1
  fi
  case "$(basename "$capture")" in
    fixed-*)
      if tshark_verdicts "$capture" | grep -E ' (0|4)(,|$)|,(0|4)(,|$)'; then
        echo "BAD AFTER FIX: $capture"
        failed=1
      fi ;;
  esac
done
echo "tshark-check: $files captures compared"
if [ "$failed" = 1 ]; then
  echo "tshark-check: FAILED"
  exit 1
fi
echo "tshark-check: fastpath and tshark agree; no bad checksum after fix"
