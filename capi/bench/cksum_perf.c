/*
 * fastpath against DPDK, in one C process, as DPDK's own checksum perf
 * autotest (app/test/test_cksum_perf.c) measures rte_raw_cksum: for each
 * block size and alignment, the TSC cycles of many calls, per block and
 * per byte; then the same for rte_ipv4_udptcp_cksum on UDP packets.
 *
 * Both sides are what a C user gets from the headers: DPDK's static inline
 * rte_raw_cksum and rte_ipv4_udptcp_cksum, and fastpath.h's fp_raw_cksum
 * and fp_ipv4_udptcp_cksum (the header's inline wrappers for short
 * buffers, a call into libfastpath for longer ones; the library for every
 * length with -DFP_NO_INLINE), i.e. the code of `s/rte_/fp_/`. Before
 * timing, each buffer's results are compared (and every length up to 2 KiB
 * at offsets 0..3): the program aborts on a difference.
 *
 * Each timed loop passes the buffer's pointer and length through an empty
 * asm every iteration (so the compiler can neither hoist the call out of
 * the loop nor fold the length into it) and consumes each result in
 * another (so the call cannot be deleted), identically for both sides. As
 * in DPDK's test, the calls are independent: the loop measures throughput.
 * A measurement is one timed loop of about 20M TSC cycles; every row is
 * measured once per round, the two implementations back to back (which
 * goes first alternating), for ROUNDS (15) rounds; the tables give the
 * median. Buffers stay in the cache, as in DPDK's test (one buffer per row
 * here, where DPDK's cycles through 10).
 *
 * Not part of CI: built and run by capi/bench/run.sh, or by hand:
 *
 *   cc -O3 $(pkg-config --cflags libdpdk) -DBUILD_FLAGS='"-march=corei7 -O3"' \
 *      cksum_perf.c $(pkg-config --static --cflags --libs fastpath)
 *   ./cksum_perf [rounds] [TSC cycles per measurement]
 */

/* rte_ipv4_udptcp_cksum_verify, to check the packets, is experimental. */
#define ALLOW_EXPERIMENTAL_API

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include <fastpath.h>

/* String literals from the build: -DBUILD_FLAGS='"-O3 -march=native"'. */
#ifndef BUILD_FLAGS
#define BUILD_FLAGS "unknown"
#endif
#ifndef FP_LINK
#define FP_LINK "unknown"
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

/* What the compiler was actually told to target (the last -march wins). */
#if defined(__AVX512BW__)
#define ISA "AVX-512BW"
#elif defined(__AVX2__)
#define ISA "AVX2"
#elif defined(__AVX__)
#define ISA "AVX"
#elif defined(__SSE4_2__)
#define ISA "SSE4.2"
#else
#define ISA "SSE2"
#endif

#ifdef FP_NO_INLINE
#define FP_PATH "library call for every length (FP_NO_INLINE)"
#else
#define FP_PATH "header's inline path up to " STR(FP_INLINE_MAX) " B, library call above"
#endif

#define MAX_ROUNDS 101

static unsigned rounds = 15;
/* TSC cycles one measurement (one implementation, one round) should take. */
static uint64_t target_cycles = 20000000;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	/* xorshift64*: fixed seed, the same bytes every run. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void fill_random(void *buf, size_t len)
{
	unsigned char *p = buf;
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(rng() >> 56);
}

static void *alloc64(size_t len)
{
	/* Room for the +1 offset, rounded to the alignment aligned_alloc wants. */
	size_t size = (len + 1 + 63) & ~(size_t)63;
	void *p = aligned_alloc(64, size);
	if (p == NULL) {
		perror("aligned_alloc");
		exit(1);
	}
	memset(p, 0, size);
	return p;
}

static inline uint64_t tsc(void)
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}

/*
 * One timed loop per implementation, each a function of its own (not
 * inlined into the driver, so both are compiled alike), with the checksum
 * inlined into the loop as in a user's code.
 */
#define DEFINE_RAW_TIMER(name, call)                                         \
	static __attribute__((noinline)) uint64_t name(const void *buf,         \
						       size_t len, uint64_t n)  \
	{                                                                     \
		uint64_t t0 = tsc();                                          \
		for (uint64_t i = 0; i < n; i++) {                            \
			const void *p = buf;                                  \
			size_t l = len;                                       \
			__asm__ volatile("" : "+r"(p), "+r"(l));              \
			uint16_t r = call(p, l);                              \
			__asm__ volatile("" : : "r"(r));                      \
		}                                                             \
		return tsc() - t0;                                            \
	}

DEFINE_RAW_TIMER(time_rte_raw, rte_raw_cksum)
DEFINE_RAW_TIMER(time_fp_raw, fp_raw_cksum)

#define DEFINE_UDP_TIMER(name, call)                                         \
	static __attribute__((noinline)) uint64_t name(const void *ip,          \
						       const void *l4,          \
						       uint64_t n)              \
	{                                                                     \
		uint64_t t0 = tsc();                                          \
		for (uint64_t i = 0; i < n; i++) {                            \
			const void *h = ip;                                   \
			const void *u = l4;                                   \
			__asm__ volatile("" : "+r"(h), "+r"(u));              \
			uint16_t r = call(h, u);                              \
			__asm__ volatile("" : : "r"(r));                      \
		}                                                             \
		return tsc() - t0;                                            \
	}

DEFINE_UDP_TIMER(time_rte_udp, rte_ipv4_udptcp_cksum)
DEFINE_UDP_TIMER(time_fp_udp, fp_ipv4_udptcp_cksum)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static double median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2;
}

static void fail(const char *what, size_t len, unsigned off, unsigned rte, unsigned fp)
{
	fprintf(stderr, "MISMATCH %s: len %zu at +%u: rte 0x%04x, fp 0x%04x\n",
		what, len, off, rte, fp);
	abort();
}

/* Every length up to 2 KiB at offsets 0..3 from a 64-byte boundary. */
static void self_check(void)
{
	const size_t max = 2048;
	unsigned char *base = alloc64(max + 3);
	fill_random(base, max + 3);
	for (unsigned off = 0; off < 4; off++) {
		for (size_t len = 0; len <= max; len++) {
			const unsigned char *p = base + off;
			uint16_t want = rte_raw_cksum(p, len);
			uint16_t got = fp_raw_cksum(p, len);
			if (got != want)
				fail("fp_raw_cksum (as compiled)", len, off, want, got);
			got = (fp_raw_cksum)(p, len);
			if (got != want)
				fail("(fp_raw_cksum) library", len, off, want, got);
		}
	}
	free(base);
}

static const size_t block_sizes[] = { 20, 21, 100, 101, 1500, 1501, 9000, 9001, 65536, 65537 };
static const size_t packet_lengths[] = { 64, 576, 1500, 9000 };
#define N_BLOCKS (sizeof(block_sizes) / sizeof(block_sizes[0]))
#define N_PACKETS (sizeof(packet_lengths) / sizeof(packet_lengths[0]))
#define N_ROWS (2 * N_BLOCKS + N_PACKETS)

/* One row of a table: a block (raw) or a packet (udp), and its times. */
struct row {
	bool udp;
	bool aligned;
	size_t len;		/* block size, or the packet's IP total length */
	unsigned char *base;	/* the allocation */
	const void *buf;	/* the block, or the IPv4 header */
	const void *l4;		/* the UDP header */
	uint64_t n;		/* calls per measurement */
	uint64_t rte[MAX_ROUNDS], fp[MAX_ROUNDS];
};

static uint64_t time_rte(const struct row *r, uint64_t n)
{
	return r->udp ? time_rte_udp(r->buf, r->l4, n) : time_rte_raw(r->buf, r->len, n);
}

static uint64_t time_fp(const struct row *r, uint64_t n)
{
	return r->udp ? time_fp_udp(r->buf, r->l4, n) : time_fp_raw(r->buf, r->len, n);
}

/* Calls per measurement: about target_cycles, from a short trial. */
static void calibrate(struct row *r)
{
	time_rte(r, 1000); /* warm up: caches, the library's tier choice */
	time_fp(r, 1000);
	double per_call = (double)time_rte(r, 2000) / 2000;
	if (per_call < 1)
		per_call = 1;
	double n = (double)target_cycles / per_call;
	r->n = n < 100 ? 100 : n > 5e7 ? 50000000 : (uint64_t)n;
}

static void setup_block(struct row *r, size_t len, bool aligned)
{
	*r = (struct row){ .udp = false, .aligned = aligned, .len = len };
	r->base = alloc64(len);
	unsigned char *buf = aligned ? r->base : r->base + 1;
	fill_random(buf, len);
	r->buf = buf;

	uint16_t want = rte_raw_cksum(buf, len);
	uint16_t got = fp_raw_cksum(buf, len);
	if (got != want)
		fail("fp_raw_cksum", len, !aligned, want, got);
	got = (fp_raw_cksum)(buf, len);
	if (got != want)
		fail("(fp_raw_cksum)", len, !aligned, want, got);
}

/*
 * A UDP datagram in IPv4 (IHL 5) of `total` bytes, laid out as in an mbuf:
 * a 14-byte Ethernet header from a 64-byte boundary, the IPv4 header at
 * +14, the UDP header at +34. Random addresses, ports and payload; the
 * UDP checksum field zero.
 */
static void setup_packet(struct row *r, size_t total)
{
	*r = (struct row){ .udp = true, .len = total };
	r->base = alloc64(14 + total);
	fill_random(r->base, 14 + total);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(r->base + 14);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(r->base + 14 + sizeof(*ip));
	ip->version_ihl = 0x45;
	ip->type_of_service = 0;
	ip->total_length = rte_cpu_to_be_16((uint16_t)total);
	ip->fragment_offset = 0;
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(total - sizeof(*ip)));
	udp->dgram_cksum = 0;
	r->buf = ip;
	r->l4 = udp;

	uint16_t want = rte_ipv4_udptcp_cksum(ip, udp);
	uint16_t got = fp_ipv4_udptcp_cksum(ip, udp);
	if (got != want)
		fail("fp_ipv4_udptcp_cksum", total, 14, want, got);
	got = (fp_ipv4_udptcp_cksum)(ip, udp);
	if (got != want)
		fail("(fp_ipv4_udptcp_cksum)", total, 14, want, got);
	/* And it is the right checksum. */
	udp->dgram_cksum = want;
	if (rte_ipv4_udptcp_cksum_verify(ip, udp) != 0)
		fail("rte_ipv4_udptcp_cksum_verify", total, 14, want, 0);
	udp->dgram_cksum = 0;
}

static struct row rows[N_ROWS];

int main(int argc, char **argv)
{
	if (argc > 1)
		rounds = (unsigned)strtoul(argv[1], NULL, 10);
	if (argc > 2)
		target_cycles = strtoull(argv[2], NULL, 10);
	if (rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "usage: %s [rounds 1..%d] [TSC cycles per measurement]\n",
			argv[0], MAX_ROUNDS);
		return 2;
	}

	self_check();
	size_t nrows = 0;
	for (int aligned = 1; aligned >= 0; aligned--)
		for (size_t i = 0; i < N_BLOCKS; i++)
			setup_block(&rows[nrows++], block_sizes[i], aligned);
	for (size_t i = 0; i < N_PACKETS; i++)
		setup_packet(&rows[nrows++], packet_lengths[i]);
	for (size_t i = 0; i < nrows; i++)
		calibrate(&rows[i]);

	/*
	 * Round after round over every row, so that a slow spell of the
	 * machine (another tenant of the VM's host, say) costs one round of
	 * many rows, which the median drops, rather than every round of one.
	 */
	for (unsigned round = 0; round < rounds; round++) {
		for (size_t i = 0; i < nrows; i++) {
			struct row *r = &rows[i];
			if ((round + i) % 2 == 0) {
				r->rte[round] = time_rte(r, r->n);
				r->fp[round] = time_fp(r, r->n);
			} else {
				r->fp[round] = time_fp(r, r->n);
				r->rte[round] = time_rte(r, r->n);
			}
		}
	}

	printf("== %s; compiled for %s; libfastpath %s; fp: %s; median of %u rounds ==\n",
	       BUILD_FLAGS, ISA, FP_LINK, FP_PATH, rounds);
	printf("rte_raw_cksum vs fp_raw_cksum (DPDK built with: %s; fastpath tier: %s)\n",
	       BUILD_FLAGS, fp_active_tier());
	printf("%-9s  %10s  %20s  %15s  %19s  %14s  %10s\n", "Alignment", "Block size",
	       "rte TSC cycles/block", "rte cycles/byte", "fp TSC cycles/block",
	       "fp cycles/byte", "fp speedup");
	for (size_t i = 0; i < nrows; i++) {
		struct row *r = &rows[i];
		double rte = median(r->rte, rounds) / r->n, fp = median(r->fp, rounds) / r->n;
		if (r->udp && !rows[i - 1].udp) {
			printf("\nrte_ipv4_udptcp_cksum vs fp_ipv4_udptcp_cksum: IPv4 (IHL 5) + UDP, "
			       "IP header at +14 (DPDK built with: %s; fastpath tier: %s)\n",
			       BUILD_FLAGS, fp_active_tier());
			printf("%-9s  %12s  %21s  %15s  %20s  %14s  %10s\n", "Packet",
			       "Total length", "rte TSC cycles/packet", "rte cycles/byte",
			       "fp TSC cycles/packet", "fp cycles/byte", "fp speedup");
		}
		if (r->udp)
			printf("%-9s  %12zu  %21.1f  %15.3f  %20.1f  %14.3f  %9.2fx\n", "UDP/IPv4",
			       r->len, rte, rte / r->len, fp, fp / r->len, rte / fp);
		else
			printf("%-9s  %10zu  %20.1f  %15.3f  %19.1f  %14.3f  %9.2fx\n",
			       r->aligned ? "Aligned" : "Unaligned", r->len, rte, rte / r->len,
			       fp, fp / r->len, rte / fp);
	}
	for (size_t i = 0; i < nrows; i++)
		free(rows[i].base);
	return 0;
}
