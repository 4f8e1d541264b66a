/*
 * dpdk_diff: fastpath's C interface against DPDK 22.11's checksums.
 *
 * Every DPDK drop-in of fastpath.h (fp_raw_cksum, fp_checksum,
 * fp_ipv4_cksum, the pseudo-header sums, the TCP/UDP checksums and their
 * verify forms, fp_raw_cksum_iov) is compared with the rte_ function it
 * stands for, value for value, both through the header's inline wrappers
 * (the function-like macros) and through the library's symbols (the name
 * in parentheses, which no function-like macro expands). The other
 * functions are compared with a plain C reference: RFC 1071's sum of
 * big-endian 16-bit words.
 *
 *   cc -O2 -std=c11 -Wall -Wextra -Werror -DALLOW_EXPERIMENTAL_API \
 *      $(pkg-config --cflags libdpdk) dpdk_diff.c \
 *      $(pkg-config --cflags --libs fastpath)
 *   ./a.out [SEED]
 *
 * FP_DIFF_QUICK=1 runs about a twentieth of the iterations (for valgrind).
 * Ends with "dpdk_diff: N passed, M failed"; exits 0 iff M is 0. No DPDK
 * library is linked: the functions compared are static inline, and the
 * mbufs are made by hand, without EAL.
 */
#define _GNU_SOURCE

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <rte_ip.h>
#include <rte_mbuf.h>

#include <fastpath.h>

_Static_assert(FP_TX_TCP_SEG == RTE_MBUF_F_TX_TCP_SEG,
	       "FP_TX_TCP_SEG must be DPDK's RTE_MBUF_F_TX_TCP_SEG");

#define H4(p) ((const struct rte_ipv4_hdr *)(const void *)(p))
#define H6(p) ((const struct rte_ipv6_hdr *)(const void *)(p))

/* The first failures are printed, with details; the rest only counted. */
#define MAX_SHOWN 20
#define MAX_DUMPS 5

static unsigned long long n_pass, n_fail;
static const char *section = "";
static int quick;

/* ---- deterministic pseudo-random numbers: xorshift64* ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* Uniform enough in [0, n), n > 0. */
static size_t rnd_below(size_t n)
{
	return (size_t)((rnd() >> 16) % n);
}

static void rnd_bytes(unsigned char *p, size_t n)
{
	while (n >= 8) {
		uint64_t x = rnd();
		memcpy(p, &x, 8);
		p += 8;
		n -= 8;
	}
	if (n) {
		uint64_t x = rnd();
		memcpy(p, &x, n);
	}
}

/* ---- checks ---- */

static int check(long long got, long long want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Counts a comparison; prints the first failures. Returns 1 if equal. */
static int check(long long got, long long want, const char *fmt, ...)
{
	va_list ap;

	if (got == want) {
		n_pass++;
		return 1;
	}
	n_fail++;
	if (n_fail <= MAX_SHOWN) {
		printf("FAIL [%s] ", section);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf(": got 0x%llx (%lld), want 0x%llx (%lld)\n",
		       (unsigned long long)got, got, (unsigned long long)want, want);
		if (n_fail == MAX_SHOWN)
			printf("FAIL [%s] (further failures are counted, not shown)\n", section);
		fflush(stdout);
	}
	return 0;
}

/* A hex dump of the bytes involved in one of the first failures. */
static void dump(const char *what, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	size_t i;

	if (n_fail > MAX_DUMPS)
		return;
	printf("  %s (%zu bytes):", what, len);
	for (i = 0; i < len && i < 256; i++)
		printf("%s%02x", i % 32 ? " " : "\n    ", p[i]);
	printf("%s\n", len > 256 ? " ..." : "");
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		perror("malloc");
		exit(2);
	}
	return p;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- byte order, and the C reference ---- */

/* The memory-order (network order) uint16_t of the big-endian value v. */
static uint16_t net16(uint16_t v)
{
	unsigned char b[2] = { (unsigned char)(v >> 8), (unsigned char)v };
	uint16_t w;
	memcpy(&w, b, 2);
	return w;
}

/* The big-endian value of a memory-order (network order) uint16_t. */
static uint16_t host16(uint16_t w)
{
	unsigned char b[2];
	memcpy(b, &w, 2);
	return (uint16_t)(b[0] << 8 | b[1]);
}

static uint16_t load16(const unsigned char *p)
{
	uint16_t w;
	memcpy(&w, p, 2);
	return w;
}

static void store16(unsigned char *p, uint16_t w)
{
	memcpy(p, &w, 2);
}

static void store_be16(unsigned char *p, size_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

static size_t be16_at(const unsigned char *p)
{
	return (size_t)(p[0] << 8 | p[1]);
}

/* RFC 1071: the sum of the big-endian 16-bit words (an odd last byte
 * padded with a zero byte), unfolded. */
static uint64_t ref_acc(const void *buf, size_t n)
{
	const unsigned char *p = buf;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint64_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint64_t)p[n - 1] << 8;
	return sum;
}

static uint16_t ref_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The folded sum, not complemented, in network order (rte_raw_cksum). */
static uint16_t ref_raw(const void *buf, size_t n)
{
	return net16(ref_fold(ref_acc(buf, n)));
}

/* The Internet checksum, in network order. */
static uint16_t ref_ck(const void *buf, size_t n)
{
	return net16((uint16_t)~ref_fold(ref_acc(buf, n)));
}

/* ---- fp_raw_cksum, fp_checksum ---- */

/* The four fastpath paths against rte_raw_cksum at p. */
static void raw_four(const unsigned char *p, size_t len, const char *what, size_t off)
{
	uint16_t want = rte_raw_cksum(p, len);
	uint16_t cwant = (uint16_t)~want;

	check(fp_raw_cksum(p, len), want, "fp_raw_cksum inline, %s, off %zu len %zu", what, off, len);
	check((fp_raw_cksum)(p, len), want, "fp_raw_cksum symbol, %s, off %zu len %zu", what, off, len);
	check(fp_checksum(p, len), cwant, "fp_checksum inline, %s, off %zu len %zu", what, off, len);
	check((fp_checksum)(p, len), cwant, "fp_checksum symbol, %s, off %zu len %zu", what, off, len);
}

static void test_raw(void)
{
	static const size_t edge_lens[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 66,
		127, 128, 129, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 1499,
		1500, 2047, 2048,
	};
	static const unsigned char fills[] = { 0x00, 0xff, 0xfe, 0x01, 0x80 };
	const size_t max_len = 2048, cap = 2048 + 128; /* a multiple of 64 */
	size_t offsets = quick ? 8 : 64;
	unsigned char *buf = aligned_alloc(64, cap);
	size_t off, len, i, f;

	if (!buf) {
		perror("aligned_alloc");
		exit(2);
	}
	section = "raw_cksum";
	rnd_bytes(buf, cap);

	/* Every length at every offset from a 64-byte boundary. */
	for (off = 0; off < offsets; off++) {
		for (len = 0; len <= max_len; len += (quick && len >= 160) ? 7 : 1) {
			raw_four(buf + off, len, "random", off);
			check(ref_raw(buf + off, len), rte_raw_cksum(buf + off, len),
			      "C reference vs rte_raw_cksum (self-check), off %zu len %zu", off, len);
		}
	}
	/* Every length, ending at the end of the allocation (valgrind sees
	 * any read past it). */
	for (len = 0; len <= max_len; len++)
		raw_four(buf + cap - len, len, "at the end of the buffer", cap - len);

	/* All 0x00, all 0xff, and other constant bytes: the 0 / 0xffff edges. */
	for (f = 0; f < sizeof(fills); f++) {
		memset(buf, fills[f], cap);
		for (off = 0; off < offsets; off++)
			for (i = 0; i < sizeof(edge_lens) / sizeof(edge_lens[0]); i++)
				raw_four(buf + off, edge_lens[i], fills[f] ? "constant bytes" : "zero bytes", off);
		for (i = 0; i < sizeof(edge_lens) / sizeof(edge_lens[0]); i++)
			raw_four(buf + cap - edge_lens[i], edge_lens[i], "constant bytes at the end", 0);
	}

	/* Random bytes adjusted to sum to exactly 0xffff (negative zero),
	 * and to 0xfffe and 0x0001, the folds around the carry. */
	for (len = 2; len <= max_len; len += quick ? 13 : 1) {
		static const uint16_t targets[] = { 0xffff, 0xfffe, 0x0001 };
		off = rnd_below(64);
		for (i = 0; i < 3; i++) {
			unsigned char *p = buf + off;
			uint16_t t;
			rnd_bytes(buf, cap);
			/* Word 0 becomes w + (target - sum), ones' complement. */
			t = ref_fold((uint64_t)be16_at(p) + targets[i] +
				     (uint16_t)~ref_fold(ref_acc(p, len)));
			store_be16(p, t);
			if (ref_fold(ref_acc(p, len)) != targets[i])
				continue; /* w would have to be both zeros: rare */
			raw_four(p, len, "adjusted sum", off);
		}
	}
	free(buf);
}

/* ---- fp_ipv4_cksum ---- */

static void test_ipv4_cksum(void)
{
	size_t iters = quick ? 10000 : 200000, it;

	section = "ipv4_cksum";
	for (it = 0; it < iters; it++) {
		size_t ihl = rnd_below(20) ? 5 + rnd_below(11) : rnd_below(5);
		size_t hlen = ihl * 4, pad = rnd_below(8);
		unsigned char *mem = xmalloc(pad + (hlen ? hlen : 1)), *h = mem + pad;
		uint16_t want;

		rnd_bytes(h, hlen ? hlen : 1);
		h[0] = (unsigned char)((rnd_below(5) ? 0x40 : h[0] & 0xf0) | ihl);
		if (hlen >= 12 && rnd_below(2))
			h[10] = h[11] = 0;
		want = rte_ipv4_cksum(H4(h));
		if (!check(fp_ipv4_cksum(h), want, "fp_ipv4_cksum inline, IHL %zu", ihl))
			dump("header", h, hlen);
		if (!check((fp_ipv4_cksum)(h), want, "fp_ipv4_cksum symbol, IHL %zu", ihl))
			dump("header", h, hlen);
		if (hlen >= 12) {
			/* With its checksum in (computed over a zero field), a
			 * header sums to 0. */
			h[10] = h[11] = 0;
			want = rte_ipv4_cksum(H4(h));
			store16(h + 10, want);
			want = rte_ipv4_cksum(H4(h));
			check(want, 0, "rte_ipv4_cksum over its own checksum (self-check), IHL %zu", ihl);
			check(fp_ipv4_cksum(h), want, "fp_ipv4_cksum inline, checksum in, IHL %zu", ihl);
			check((fp_ipv4_cksum)(h), want, "fp_ipv4_cksum symbol, checksum in, IHL %zu", ihl);
		}
		free(mem);
	}
}

/* ---- pseudo-headers, TCP/UDP checksums and their verification ---- */

struct packet {
	unsigned char *mem; /* the allocation, which ends where the packet does */
	unsigned char *p;   /* the IP header */
	size_t total;       /* IP header and payload */
	size_t l3;          /* the IP header's length */
	size_t l4len;       /* the payload: TCP or UDP header and data */
	int v6;
	int proto;
	size_t field;  /* the checksum field, from the L4 header */
	int has_field; /* whether the payload holds the field */
	int valid;     /* TCP or UDP that fastpath's fp_l4_* accept */
};

static unsigned long long n_packets, n_zero_udp;

static void gen_packet(struct packet *k, int v6)
{
	size_t l4len = rnd_below(8) < 3 ? rnd_below(65) : rnd_below(1601);
	size_t pr = rnd_below(20), pad = rnd_below(8), i;
	unsigned char *p, *l4;

	k->v6 = v6;
	k->proto = pr < 9 ? IPPROTO_TCP : pr < 18 ? IPPROTO_UDP : (int)rnd_below(256);
	k->l3 = v6 ? 40 : 4 * (5 + rnd_below(11));
	k->l4len = l4len;
	k->total = k->l3 + l4len;
	k->mem = xmalloc(pad + k->total);
	k->p = p = k->mem + pad;
	rnd_bytes(p, k->total);
	if (!v6) {
		size_t r = rnd_below(10);
		p[0] = (unsigned char)(0x40 | k->l3 / 4);
		store_be16(p + 2, k->total);
		if (r < 6)
			p[6] = p[7] = 0;
		else if (r < 9)
			p[6] = 0x40, p[7] = 0; /* DF */
		p[9] = (unsigned char)k->proto;
		if (rnd_below(2))
			p[10] = p[11] = 0;
	} else {
		p[0] = (unsigned char)(0x60 | (p[0] & 0x0f));
		store_be16(p + 4, l4len);
		p[6] = (unsigned char)k->proto;
	}
	l4 = p + k->l3;
	k->field = k->proto == IPPROTO_UDP ? 6 : 16;
	k->has_field = l4len >= k->field + 2;
	for (i = k->field; i < k->field + 2 && i < l4len; i++)
		l4[i] = 0;
	if (k->proto == IPPROTO_UDP && l4len >= 8 && rnd_below(10))
		store_be16(l4 + 4, l4len);
	k->valid = ((k->proto == IPPROTO_TCP && l4len >= 20) ||
		    (k->proto == IPPROTO_UDP && l4len >= 8 && be16_at(l4 + 4) == l4len)) &&
		   (v6 || (be16_at(p + 6) & 0x3fff) == 0);
}

static uint16_t rte_udptcp(const struct packet *k)
{
	const unsigned char *l4 = k->p + k->l3;
	return k->v6 ? rte_ipv6_udptcp_cksum(H6(k->p), l4) : rte_ipv4_udptcp_cksum(H4(k->p), l4);
}

static int rte_verify(const struct packet *k)
{
	const unsigned char *l4 = k->p + k->l3;
	return k->v6 ? rte_ipv6_udptcp_cksum_verify(H6(k->p), l4)
		     : rte_ipv4_udptcp_cksum_verify(H4(k->p), l4);
}

#define V(k) ((k)->v6 ? 6 : 4)

static void fail_dump(const struct packet *k)
{
	dump("packet", k->p, k->total);
}

/* The pseudo-header sums, with ol_flags 0, TSO, and other bits. */
static void check_phdr(const struct packet *k)
{
	const uint64_t flags[4] = {
		0, RTE_MBUF_F_TX_TCP_SEG, rnd() | RTE_MBUF_F_TX_TCP_SEG, rnd() & ~RTE_MBUF_F_TX_TCP_SEG,
	};
	int i;

	for (i = 0; i < 4; i++) {
		uint16_t want;
		int ok = 1;
		if (k->v6) {
			want = rte_ipv6_phdr_cksum(H6(k->p), flags[i]);
			ok &= check(fp_ipv6_phdr_cksum(k->p, flags[i]), want,
				    "fp_ipv6_phdr_cksum inline, ol_flags 0x%" PRIx64, flags[i]);
			ok &= check((fp_ipv6_phdr_cksum)(k->p, flags[i]), want,
				    "fp_ipv6_phdr_cksum symbol, ol_flags 0x%" PRIx64, flags[i]);
		} else {
			want = rte_ipv4_phdr_cksum(H4(k->p), flags[i]);
			ok &= check(fp_ipv4_phdr_cksum(k->p, flags[i]), want,
				    "fp_ipv4_phdr_cksum inline, ol_flags 0x%" PRIx64, flags[i]);
			ok &= check((fp_ipv4_phdr_cksum)(k->p, flags[i]), want,
				    "fp_ipv4_phdr_cksum symbol, ol_flags 0x%" PRIx64, flags[i]);
		}
		if (!ok)
			dump("header", k->p, k->l3);
	}
}

/* fp_ipvN_udptcp_cksum, inline and symbol, against rte_ipvN_udptcp_cksum. */
static uint16_t check_compute(const struct packet *k, const char *what)
{
	const unsigned char *l4 = k->p + k->l3;
	uint16_t want = rte_udptcp(k);
	int ok;

	if (k->v6) {
		ok = check(fp_ipv6_udptcp_cksum(k->p, l4), want,
			   "fp_ipv6_udptcp_cksum inline, %s, proto %d l4len %zu", what, k->proto, k->l4len);
		ok &= check((fp_ipv6_udptcp_cksum)(k->p, l4), want,
			    "fp_ipv6_udptcp_cksum symbol, %s, proto %d l4len %zu", what, k->proto, k->l4len);
	} else {
		ok = check(fp_ipv4_udptcp_cksum(k->p, l4), want,
			   "fp_ipv4_udptcp_cksum inline, %s, IHL %zu proto %d l4len %zu", what, k->l3 / 4,
			   k->proto, k->l4len);
		ok &= check((fp_ipv4_udptcp_cksum)(k->p, l4), want,
			    "fp_ipv4_udptcp_cksum symbol, %s, IHL %zu proto %d l4len %zu", what, k->l3 / 4,
			    k->proto, k->l4len);
	}
	if (!ok)
		fail_dump(k);
	return want;
}

/* The verify forms, inline and symbol, against DPDK's; returns DPDK's. */
static int check_verify(const struct packet *k, const char *what)
{
	const unsigned char *l4 = k->p + k->l3;
	int want = rte_verify(k);
	int ok;

	if (k->v6) {
		ok = check(fp_ipv6_udptcp_cksum_verify(k->p, l4), want,
			   "fp_ipv6_udptcp_cksum_verify inline, %s, proto %d l4len %zu", what, k->proto,
			   k->l4len);
		ok &= check((fp_ipv6_udptcp_cksum_verify)(k->p, l4), want,
			    "fp_ipv6_udptcp_cksum_verify symbol, %s, proto %d l4len %zu", what, k->proto,
			    k->l4len);
	} else {
		ok = check(fp_ipv4_udptcp_cksum_verify(k->p, l4), want,
			   "fp_ipv4_udptcp_cksum_verify inline, %s, IHL %zu proto %d l4len %zu", what,
			   k->l3 / 4, k->proto, k->l4len);
		ok &= check((fp_ipv4_udptcp_cksum_verify)(k->p, l4), want,
			    "fp_ipv4_udptcp_cksum_verify symbol, %s, IHL %zu proto %d l4len %zu", what,
			    k->l3 / 4, k->proto, k->l4len);
	}
	if (!ok)
		fail_dump(k);
	return want;
}

/* fastpath's own packet functions on a valid packet that holds its
 * correct checksum `want` (as DPDK computes it). */
static void check_l4(const struct packet *k, uint16_t want, const char *what)
{
	const unsigned char *l4 = k->p + k->l3;
	size_t field = k->l3 + k->field;
	unsigned char *copy = xmalloc(k->total);
	uint16_t got = 0x5a5a, seed;
	size_t start = 0, offset = 0;
	int r, ok = 1;

	ok &= check(fp_l4_verify(k->p, k->total), 1, "fp_l4_verify, %s, IPv%d proto %d l4len %zu", what,
		    V(k), k->proto, k->l4len);
	r = fp_l4_checksum(k->p, k->total, &got);
	ok &= check(r, 0, "fp_l4_checksum return, %s, IPv%d proto %d l4len %zu", what, V(k), k->proto,
		    k->l4len);
	ok &= check(got, want, "fp_l4_checksum vs rte_ipv%d_udptcp_cksum, %s, proto %d l4len %zu", V(k),
		    what, k->proto, k->l4len);
	ok &= check(fp_l4_verify_complete(k->p, field + 2, rte_raw_cksum(l4, k->l4len)), 1,
		    "fp_l4_verify_complete, %s, IPv%d proto %d l4len %zu", what, V(k), k->proto,
		    k->l4len);

	memcpy(copy, k->p, k->total);
	store16(copy + field, (uint16_t)rnd());
	got = 0x5a5a;
	r = fp_l4_write_checksum(copy, k->total, &got);
	ok &= check(r, 0, "fp_l4_write_checksum return, %s, IPv%d proto %d l4len %zu", what, V(k),
		    k->proto, k->l4len);
	ok &= check(got, want, "fp_l4_write_checksum value, %s, IPv%d proto %d l4len %zu", what, V(k),
		    k->proto, k->l4len);
	ok &= check(memcmp(copy, k->p, k->total), 0, "fp_l4_write_checksum bytes, %s, IPv%d proto %d",
		    what, V(k), k->proto);
	store16(copy + field, 0);
	r = fp_l4_write_checksum(copy, k->total, NULL);
	ok &= check(r, 0, "fp_l4_write_checksum(NULL) return, %s", what);
	ok &= check(memcmp(copy, k->p, k->total), 0, "fp_l4_write_checksum(NULL) bytes, %s", what);

	/* Checksum offload: the pseudo-header seed in the field, completed. */
	seed = k->v6 ? rte_ipv6_phdr_cksum(H6(k->p), 0) : rte_ipv4_phdr_cksum(H4(k->p), 0);
	store16(copy + field, seed);
	r = fp_partial_complete(copy, k->total, k->l3, k->field);
	ok &= check(r, 0, "fp_partial_complete return, %s", what);
	ok &= check(load16(copy + field), want ? want : 0xffff,
		    "fp_partial_complete value, %s, IPv%d proto %d l4len %zu", what, V(k), k->proto,
		    k->l4len);
	store16(copy + field, want);
	ok &= check(memcmp(copy, k->p, k->total), 0, "fp_partial_complete bytes, %s", what);
	store16(copy + field, (uint16_t)rnd());
	r = fp_partial_write_seed(copy, k->total, 0, &start, &offset);
	ok &= check(r, 0, "fp_partial_write_seed return, %s", what);
	ok &= check(start == k->l3 && offset == k->field, 1, "fp_partial_write_seed offsets, %s", what);
	ok &= check(load16(copy + field), seed, "fp_partial_write_seed vs rte_ipv%d_phdr_cksum, %s", V(k),
		    what);
	if (!ok)
		fail_dump(k);
	free(copy);
}

static void test_packet(struct packet *k)
{
	unsigned char *p = k->p, *l4 = p + k->l3;
	uint16_t want;

	n_packets++;
	check_phdr(k);
	want = check_compute(k, "field zero");
	if (!k->has_field)
		return;

	/* The compute functions over a field that is not zero. */
	store16(l4 + k->field, (uint16_t)rnd());
	check_compute(k, "field not zero");

	/* The correct checksum in: verify gives 0 on both sides. */
	store16(l4 + k->field, want);
	check(check_verify(k, "correct"), 0, "rte verify of its own checksum (self-check)");
	if (k->valid)
		check_l4(k, want, "correct");

	/* One corrupted byte (not IHL or a length: those would move the
	 * end of the data past the buffer). */
	{
		size_t at;
		unsigned char x = (unsigned char)(1 + rnd_below(255));
		do
			at = rnd_below(k->total);
		while (k->v6 ? at == 4 || at == 5 : at == 0 || at == 2 || at == 3);
		p[at] ^= x;
		if (at >= k->l3)
			check(check_verify(k, "corrupted"), -1, "rte verify of a corrupted payload (self-check)");
		else
			check_verify(k, "corrupted header");
		if (k->valid && at >= k->l3 + (k->proto == IPPROTO_UDP ? 8 : 20)) {
			check(fp_l4_verify(p, k->total), 0, "fp_l4_verify, corrupted data byte %zu", at);
			check(fp_l4_verify_complete(p, k->l3 + k->field + 2, rte_raw_cksum(l4, k->l4len)), 0,
			      "fp_l4_verify_complete, corrupted data byte %zu", at);
		}
		p[at] ^= x;
	}

	/* UDP whose correct checksum is 0, sent as 0xffff: the source port
	 * is adjusted for the sum of everything to be 0xffff. */
	if (k->proto == IPPROTO_UDP) {
		uint16_t sum, t;
		uint64_t w;

		store16(l4 + 6, 0);
		sum = host16(k->v6 ? __rte_ipv6_udptcp_cksum(H6(p), l4) : __rte_ipv4_udptcp_cksum(H4(p), l4));
		w = be16_at(l4) + (uint64_t)(uint16_t)~sum;
		t = ref_fold(w);
		store_be16(l4, t);
		n_zero_udp++;
		want = check_compute(k, "UDP checksum 0 (sent as 0xffff)");
		check(want, 0xffff, "rte UDP zero-checksum construction (self-check), IPv%d l4len %zu", V(k),
		      k->l4len);
		store16(l4 + 6, want);
		check(check_verify(k, "UDP checksum 0 sent as 0xffff"), 0,
		      "rte verify of 0xffff for a zero UDP checksum (self-check)");
		if (k->valid)
			check_l4(k, want, "UDP checksum 0 sent as 0xffff");
	}
}

/* IPv4 whose Total Length is shorter than its header: 0xffff from the
 * compute functions, -1 from verify. */
static void test_short_total(void)
{
	size_t ihl = 5 + rnd_below(11), l3 = ihl * 4, pad = rnd_below(8);
	unsigned char *mem = xmalloc(pad + l3), *h = mem + pad;
	size_t total = rnd_below(l3);
	struct packet k;
	uint16_t want;
	char what[64];

	rnd_bytes(h, l3);
	h[0] = (unsigned char)(0x40 | ihl);
	store_be16(h + 2, total);
	h[9] = (unsigned char)(rnd_below(3) == 0 ? IPPROTO_TCP : rnd_below(2) ? IPPROTO_UDP : rnd_below(256));
	memset(&k, 0, sizeof(k));
	k.mem = mem;
	k.p = h;
	k.l3 = l3;
	k.total = l3; /* what there is to dump */
	k.proto = h[9];
	snprintf(what, sizeof(what), "Total Length %zu < header %zu", total, l3);
	check_phdr(&k);
	want = check_compute(&k, what);
	check(want, 0xffff, "rte_ipv4_udptcp_cksum, %s (self-check)", what);
	check(check_verify(&k, what), -1, "rte verify, %s (self-check)", what);
	free(mem);
}

static void test_packets(void)
{
	size_t iters = quick ? 7500 : 150000, it;

	section = "udptcp";
	for (it = 0; it < iters; it++) {
		struct packet k;
		gen_packet(&k, 0);
		test_packet(&k);
		free(k.mem);
		gen_packet(&k, 1);
		test_packet(&k);
		free(k.mem);
		if (it % 8 == 0)
			test_short_total();
	}
}

/* ---- fp_raw_cksum_iov against rte_raw_cksum_mbuf ---- */

#define MAX_SEGS 12

static struct rte_mbuf mbufs[MAX_SEGS];
static unsigned long long n_odd_ranges, n_odd_dpdk_differs, n_empty_end, n_empty_end_dpdk_differs;

/* Whether a segment boundary falls at an odd distance from `off`
 * strictly inside the range [off, off + len). */
static int odd_boundary(const size_t *seglen, size_t nseg, size_t off, size_t len)
{
	size_t b = 0, i;

	for (i = 0; i < nseg; i++) {
		b += seglen[i];
		if (b > off && b < off + len && ((b - off) & 1))
			return 1;
	}
	return 0;
}

static void test_mbuf(void)
{
	size_t iters = quick ? 5000 : 100000, it;
	struct iovec iov[MAX_SEGS];
	uint16_t sum;

	section = "raw_cksum_mbuf";
	for (it = 0; it < iters; it++) {
		size_t nseg = 1 + rnd_below(8), seglen[MAX_SEGS], total = 0, i, j;
		int even = (int)rnd_below(2);
		unsigned char *mem[MAX_SEGS], *flat;

		if (rnd_below(20) == 0)
			nseg = MAX_SEGS;
		memset(mbufs, 0, sizeof(mbufs));
		for (i = 0; i < nseg; i++) {
			size_t r = rnd_below(10), head = rnd_below(128);
			seglen[i] = r == 0 ? 0 : r < 4 ? rnd_below(16) : rnd_below(1500);
			if (even)
				seglen[i] &= ~(size_t)1;
			mem[i] = xmalloc(head + seglen[i]);
			rnd_bytes(mem[i] + head, seglen[i]);
			mbufs[i].buf_addr = mem[i];
			mbufs[i].data_off = (uint16_t)head;
			mbufs[i].data_len = (uint16_t)seglen[i];
			mbufs[i].next = i + 1 < nseg ? &mbufs[i + 1] : NULL;
			iov[i].iov_base = mem[i] + head;
			iov[i].iov_len = seglen[i];
			total += seglen[i];
			/* The hand-made mbuf's data is where the iovec's is. */
			check(rte_pktmbuf_mtod_offset(&mbufs[i], unsigned char *, seglen[i] / 2) ==
				      (unsigned char *)iov[i].iov_base + seglen[i] / 2,
			      1, "rte_pktmbuf_mtod_offset on a hand-made mbuf");
		}
		mbufs[0].pkt_len = (uint32_t)total;
		mbufs[0].nb_segs = (uint16_t)nseg;
		flat = xmalloc(total);
		for (i = 0, j = 0; i < nseg; j += seglen[i], i++)
			if (seglen[i])
				memcpy(flat + j, iov[i].iov_base, seglen[i]);

		for (j = 0; j < 8; j++) {
			size_t r = rnd_below(16), off, len;
			uint16_t cr = 0x1234, cf = 0x1234, want;
			int rr, rf;

			if (r == 0) { /* past the end */
				off = rnd_below(total + 1);
				len = total - off + 1 + rnd_below(100);
			} else if (r == 1) { /* starting past the end */
				off = total + 1 + rnd_below(8);
				len = rnd_below(4);
			} else if (r == 2) {
				off = rnd_below(total + 1);
				len = 0;
			} else if (r == 3) { /* to the end */
				off = rnd_below(total + 1);
				len = total - off;
			} else {
				off = rnd_below(total + 1);
				len = rnd_below(total - off + 1);
			}
			if (even && off & 1 && off + len <= total) {
				off--;
				len += rnd_below(2);
			}
			rr = rte_raw_cksum_mbuf(mbufs, (uint32_t)off, (uint32_t)len, &cr);
			rf = fp_raw_cksum_iov(iov, nseg, off, len, &cf);
			if (off + len > total) {
				check(rr, -1, "rte_raw_cksum_mbuf past the end (self-check), off %zu len %zu of %zu",
				      off, len, total);
				check(rf, -1, "fp_raw_cksum_iov past the end, off %zu len %zu of %zu", off, len,
				      total);
				check(cf, 0x1234, "fp_raw_cksum_iov past the end stores nothing");
				continue;
			}
			want = rte_raw_cksum(flat + off, len);
			check(ref_raw(flat + off, len), want, "reference vs rte_raw_cksum (self-check)");
			check(rf, 0, "fp_raw_cksum_iov return, off %zu len %zu of %zu", off, len, total);
			if (!check(cf, want, "fp_raw_cksum_iov vs rte_raw_cksum of the flattened bytes, "
					     "%zu segments, off %zu len %zu",
				   nseg, off, len)) {
				for (i = 0; i < nseg; i++)
					printf("  segment %zu: %zu bytes\n", i, seglen[i]);
			}
			check(fp_raw_cksum(flat + off, len), want, "fp_raw_cksum inline, flattened");
			if (odd_boundary(seglen, nseg, off, len)) {
				/* DPDK 22.11 truncates such a segment's sum. */
				n_odd_ranges++;
				n_odd_dpdk_differs += rr != 0 || cr != want;
			} else if (len == 0 && off == total && total > seglen[0]) {
				/* DPDK 22.11 runs out of segments looking for an
				 * empty range at the end of a chain: -1. */
				n_empty_end++;
				n_empty_end_dpdk_differs += rr != 0 || cr != want;
			} else {
				check(rr, 0, "rte_raw_cksum_mbuf return, off %zu len %zu", off, len);
				check(cr, want, "rte_raw_cksum_mbuf vs flattened (self-check), off %zu len %zu",
				      off, len);
				if (!check(cf, cr, "fp_raw_cksum_iov vs rte_raw_cksum_mbuf, %zu segments, "
						   "off %zu len %zu",
					   nseg, off, len)) {
					for (i = 0; i < nseg; i++)
						printf("  segment %zu: %zu bytes\n", i, seglen[i]);
				}
			}
		}
		for (i = 0; i < nseg; i++)
			free(mem[i]);
		free(flat);
	}

	/* An offset whose sum with the length overflows; no vectors. */
	sum = 0x1234;
	check(fp_raw_cksum_iov(iov, 0, SIZE_MAX, 2, &sum), -1, "fp_raw_cksum_iov, off + len overflows");
	check(sum, 0x1234, "fp_raw_cksum_iov, off + len overflows, stores nothing");
	check(fp_raw_cksum_iov(NULL, 0, 0, 0, &sum), 0, "fp_raw_cksum_iov, no vectors");
	check(sum, 0, "fp_raw_cksum_iov, no vectors, sum");
	check(fp_raw_cksum_iov(NULL, 0, 0, 1, &sum), -1, "fp_raw_cksum_iov, no vectors, 1 byte");
}

/* ---- the generic functions against the C reference ---- */

/* Random cut points of [0, len): k pieces, some empty, odd ones too. */
static size_t cuts(size_t *at, size_t max_pieces, size_t len)
{
	size_t k = 1 + rnd_below(max_pieces), i, j;

	for (i = 1; i < k; i++)
		at[i] = rnd_below(len + 1);
	at[0] = 0;
	at[k] = len;
	for (i = 1; i < k; i++) /* sort */
		for (j = i; j > 1 && at[j - 1] > at[j]; j--) {
			size_t t = at[j];
			at[j] = at[j - 1];
			at[j - 1] = t;
		}
	return k;
}

static void test_csum_state(void)
{
	size_t iters = quick ? 1000 : 20000, it;

	section = "csum_state";
	for (it = 0; it < iters; it++) {
		size_t len = rnd_below(4) ? rnd_below(4097) : rnd_below(70), at[17], k, i;
		unsigned char *buf = xmalloc(len), *dst = xmalloc(len);
		struct fp_csum s, parts[16], acc, left, right;
		struct iovec iov[16];

		rnd_bytes(buf, len);
		if (rnd_below(16) == 0)
			memset(buf, rnd_below(2) ? 0xff : 0, len);
		k = cuts(at, 16, len);

		fp_csum_init(&s);
		check(fp_csum_raw(&s), 0, "fp_csum_raw of nothing");
		check(fp_csum_finish(&s), 0xffff, "fp_csum_finish of nothing");
		for (i = 0; i < k; i++) {
			size_t n = at[i + 1] - at[i];
			fp_csum_update(&s, n || rnd_below(2) ? buf + at[i] : NULL, n);
			check(fp_csum_raw(&s), ref_raw(buf, at[i + 1]),
			      "fp_csum_raw after piece %zu [%zu, %zu) of %zu", i, at[i], at[i + 1], len);
			check(fp_csum_finish(&s), ref_ck(buf, at[i + 1]),
			      "fp_csum_finish after piece %zu [%zu, %zu) of %zu", i, at[i], at[i + 1], len);
		}
		check(fp_csum_raw(&s), rte_raw_cksum(buf, len), "fp_csum_raw vs rte_raw_cksum, len %zu", len);

		/* The pieces summed apart, then combined in order. */
		for (i = 0; i < k; i++) {
			fp_csum_init(&parts[i]);
			fp_csum_update(&parts[i], buf + at[i], at[i + 1] - at[i]);
		}
		acc = parts[0];
		for (i = 1; i < k; i++)
			fp_csum_combine(&acc, &parts[i]);
		check(fp_csum_raw(&acc), ref_raw(buf, len), "fp_csum_combine of %zu pieces, raw, len %zu", k,
		      len);
		check(fp_csum_finish(&acc), ref_ck(buf, len), "fp_csum_combine of %zu pieces, finish, len %zu",
		      k, len);
		/* ... and as two halves, each combined first. */
		left = parts[0];
		for (i = 1; i < k / 2; i++)
			fp_csum_combine(&left, &parts[i]);
		fp_csum_init(&right);
		for (i = k / 2 ? k / 2 : 1; i < k; i++)
			fp_csum_combine(&right, &parts[i]);
		fp_csum_combine(&left, &right);
		check(fp_csum_raw(&left), ref_raw(buf, len), "fp_csum_combine of two halves, len %zu", len);

		/* Copy and sum. */
		memset(dst, 0xa5, len);
		fp_csum_init(&s);
		for (i = 0; i < k; i++)
			fp_csum_update_copy(&s, dst + at[i], buf + at[i], at[i + 1] - at[i]);
		check(fp_csum_raw(&s), ref_raw(buf, len), "fp_csum_update_copy, raw, len %zu", len);
		check(memcmp(dst, buf, len), 0, "fp_csum_update_copy, bytes, len %zu", len);

		/* The same pieces as I/O vectors. */
		for (i = 0; i < k; i++) {
			size_t n = at[i + 1] - at[i];
			iov[i].iov_base = n || rnd_below(2) ? buf + at[i] : NULL;
			iov[i].iov_len = n;
		}
		check(fp_checksum_iov(iov, k), ref_ck(buf, len), "fp_checksum_iov, %zu vectors, len %zu", k,
		      len);
		free(buf);
		free(dst);
	}
}

/* Guard bytes around a destination, to find writes outside it. */
#define GUARD 32

static void set_guards(unsigned char *mem, size_t len)
{
	size_t i;
	for (i = 0; i < GUARD; i++) {
		mem[i] = (unsigned char)(0x5c ^ i);
		mem[GUARD + len + i] = (unsigned char)(0xc5 ^ i);
	}
}

static int guards_intact(const unsigned char *mem, size_t len)
{
	size_t i;
	for (i = 0; i < GUARD; i++)
		if (mem[i] != (unsigned char)(0x5c ^ i) || mem[GUARD + len + i] != (unsigned char)(0xc5 ^ i))
			return 0;
	return 1;
}

/* The first byte of p[0, len) that is not v, or len. */
static size_t first_not(const unsigned char *p, unsigned char v, size_t len)
{
	size_t i;
	for (i = 0; i < len; i++)
		if (p[i] != v)
			return i;
	return len;
}

/* One length of fp_copy_checksum, fp_copy, fp_fill, fp_fill_nontemporal. */
static void copy_fill_one(size_t len)
{
	size_t soff = rnd_below(64), doff = rnd_below(64);
	unsigned char *src_mem = xmalloc(soff + len), *src = src_mem + soff;
	unsigned char *dst_mem = xmalloc(doff + 2 * GUARD + len), *dst = dst_mem + doff + GUARD;
	unsigned char v = (unsigned char)rnd();

	rnd_bytes(src, len);

	set_guards(dst - GUARD, len);
	check(fp_copy_checksum(dst, src, len), ref_ck(src, len), "fp_copy_checksum value, len %zu", len);
	check(memcmp(dst, src, len), 0, "fp_copy_checksum bytes, len %zu src+%zu dst+%zu", len, soff, doff);
	check(guards_intact(dst - GUARD, len), 1, "fp_copy_checksum guard bytes, len %zu", len);

	memset(dst, 0x33, len);
	fp_copy(dst, src, len);
	check(memcmp(dst, src, len), 0, "fp_copy bytes, len %zu src+%zu dst+%zu", len, soff, doff);
	check(guards_intact(dst - GUARD, len), 1, "fp_copy guard bytes, len %zu", len);

	fp_fill(dst, v, len);
	check((long long)first_not(dst, v, len), (long long)len, "fp_fill 0x%02x, len %zu dst+%zu", v, len,
	      doff);
	check(guards_intact(dst - GUARD, len), 1, "fp_fill guard bytes, len %zu", len);

	v = (unsigned char)~v;
	fp_fill_nontemporal(dst, v, len);
	check((long long)first_not(dst, v, len), (long long)len, "fp_fill_nontemporal 0x%02x, len %zu dst+%zu",
	      v, len, doff);
	check(guards_intact(dst - GUARD, len), 1, "fp_fill_nontemporal guard bytes, len %zu", len);

	free(src_mem);
	free(dst_mem);
}

static void test_copy_fill(void)
{
	size_t len, i;

	section = "copy_fill";
	for (len = 0; len <= 2100; len += quick && len > 300 ? 11 : 1)
		copy_fill_one(len);
	for (i = 0; i < (quick ? 20 : 300); i++)
		copy_fill_one(rnd_below(300000));

	/* Past the last-level cache, where fp_fill_nontemporal stores
	 * non-temporally (the threshold is at most a few tens of MiB). */
	{
		size_t big = quick ? ((size_t)4 << 20) + 13 : ((size_t)72 << 20) + 13, doff = 1 + rnd_below(63);
		unsigned char *mem = xmalloc(doff + 2 * GUARD + big), *dst = mem + doff + GUARD;
		set_guards(dst - GUARD, big);
		fp_fill_nontemporal(dst, 0x6b, big);
		check((long long)first_not(dst, 0x6b, big), (long long)big, "fp_fill_nontemporal, %zu bytes",
		      big);
		check(guards_intact(dst - GUARD, big), 1, "fp_fill_nontemporal guard bytes, %zu bytes", big);
		fp_fill(dst, 0x00, big);
		check((long long)first_not(dst, 0x00, big), (long long)big, "fp_fill, %zu bytes", big);
		check(guards_intact(dst - GUARD, big), 1, "fp_fill guard bytes, %zu bytes", big);
		free(mem);
	}
}

/* fp_csum_update16/32/128 against recomputation, and fp_csum_replace. */
static void test_incremental(void)
{
	size_t iters = quick ? 5000 : 100000, it;
	unsigned char *buf = xmalloc(1600), *before = xmalloc(1600), news[64];

	section = "incremental";
	/* RFC 1624 section 4: 0xdd2f, a word from 0x5555 to 0x3285: 0x0000. */
	check(fp_csum_update16(net16(0xdd2f), net16(0x5555), net16(0x3285)), 0,
	      "fp_csum_update16, the example of RFC 1624 section 4");

	for (it = 0; it < iters; it++) {
		size_t len = 20 + rnd_below(1500), at, field, n;
		uint16_t ck, got, old16, new16;
		uint32_t old32, new32;
		unsigned char old128[16];
		int r;

		/* Data that is not all zero: its first word is never changed. */
		rnd_bytes(buf, len);
		buf[0] |= 0x80;
		if (rnd_below(8) == 0)
			memset(buf + 2, rnd_below(2) ? 0xff : 0, len - 2);
		ck = ref_ck(buf, len);

		at = 2 + 2 * rnd_below((len - 2) / 2); /* even, at most len - 2 */
		memcpy(&old16, buf + at, 2);
		new16 = rnd_below(4) ? (uint16_t)rnd() : rnd_below(3) == 0 ? old16 : rnd_below(2) ? 0 : 0xffff;
		memcpy(buf + at, &new16, 2);
		got = fp_csum_update16(ck, old16, new16);
		check(got, ref_ck(buf, len), "fp_csum_update16 at %zu of %zu, 0x%04x -> 0x%04x", at, len,
		      host16(old16), host16(new16));
		ck = got;

		at = 2 + 2 * rnd_below((len - 4) / 2);
		memcpy(&old32, buf + at, 4);
		new32 = rnd_below(4) ? (uint32_t)rnd() : rnd_below(2) ? 0 : 0xffffffffu;
		memcpy(buf + at, &new32, 4);
		got = fp_csum_update32(ck, old32, new32);
		check(got, ref_ck(buf, len), "fp_csum_update32 at %zu of %zu", at, len);
		ck = got;

		at = 2 + 2 * rnd_below((len - 16) / 2);
		memcpy(old128, buf + at, 16);
		rnd_bytes(news, 16);
		if (rnd_below(4) == 0)
			memset(news, rnd_below(2) ? 0xff : 0, 16);
		memcpy(buf + at, news, 16);
		got = fp_csum_update128(ck, old128, news);
		check(got, ref_ck(buf, len), "fp_csum_update128 at %zu of %zu", at, len);

		/* fp_csum_replace: the field holds the checksum of the data
		 * with the field zero; any bytes, any offset, replaced. */
		field = 2 * rnd_below(len / 2);
		store16(buf + field, 0);
		store16(buf + field, ref_ck(buf, len));
		do {
			at = rnd_below(len);
			n = rnd_below(len - at + 1);
			if (n > sizeof(news))
				n = rnd_below(sizeof(news) + 1);
		} while (at < field + 2 && field < at + n);
		rnd_bytes(news, n);
		if (rnd_below(4) == 0)
			memset(news, rnd_below(2) ? 0xff : 0, n);
		memcpy(before, buf, len);
		memcpy(buf + at, news, n);
		store16(buf + field, 0);
		if (ref_fold(ref_acc(buf, len)) == 0) /* all zero: RFC 1624 gives -0 */
			continue;
		ck = ref_ck(buf, len);
		store16(buf + field, ck);
		got = 0x5a5a;
		r = fp_csum_replace(before, len, at, news, n, field, rnd_below(4) ? &got : NULL);
		check(r, 0, "fp_csum_replace return, at %zu n %zu field %zu len %zu", at, n, field, len);
		check(load16(before + field), ck, "fp_csum_replace, field, at %zu n %zu field %zu len %zu", at, n,
		      field, len);
		check(got == 0x5a5a || got == ck, 1, "fp_csum_replace, *cksum, at %zu n %zu field %zu", at, n,
		      field);
		check(memcmp(before, buf, len), 0, "fp_csum_replace, bytes, at %zu n %zu field %zu", at, n,
		      field);

		/* Out of bounds or overlapping the field: -9, nothing written. */
		memcpy(before, buf, len);
		got = 0x5a5a;
		switch (rnd_below(3)) {
		case 0: /* the bytes past the end */
			at = len - rnd_below(4);
			n = len - at + 1 + rnd_below(8);
			if (n > sizeof(news))
				n = sizeof(news);
			r = fp_csum_replace(before, len, at, news, n, field, &got);
			break;
		case 1: /* the field past the end */
			at = 0;
			n = 0;
			r = fp_csum_replace(before, len, at, news, n, len - 1 + rnd_below(3), &got);
			break;
		default: /* overlapping the field */
			at = field + rnd_below(2);
			n = 1 + rnd_below(4);
			if (at + n > len)
				at = field, n = 1;
			r = fp_csum_replace(before, len, at, news, n, field, &got);
			break;
		}
		check(r, FP_ERR_OUT_OF_BOUNDS, "fp_csum_replace out of bounds, at %zu n %zu field %zu len %zu", at,
		      n, field, len);
		check(memcmp(before, buf, len), 0, "fp_csum_replace out of bounds writes nothing");
		check(got, 0x5a5a, "fp_csum_replace out of bounds stores nothing");
	}
	free(buf);
	free(before);
}

/*
 * fp_partial_write_seed on UDP-Lite over IPv4 (RFC 3828): seeded and then
 * completed when the coverage is the whole datagram (0, or its length);
 * refused with FP_ERR_PARTIAL_COVERAGE, writing nothing, when it is shorter,
 * since a device sums to the end of the packet.
 */
static void test_udplite_seed(void)
{
	static const unsigned char header[20] = { 0x45, 0, 0, 44, 0, 1, 0, 0, 64, 136, 0, 0,
						  10, 0, 0, 1, 10, 0, 0, 2 };
	static const uint16_t coverages[] = { 0, 24, 8, 12, 23 };
	unsigned char p[44], before[44];
	size_t i, start = 99, offset = 99;
	int r;

	for (i = 0; i < sizeof(coverages) / sizeof(coverages[0]); i++) {
		int full = coverages[i] == 0 || coverages[i] == 24;

		memcpy(p, header, sizeof(header));
		store16(p + 10, (uint16_t)~ref_ck(p, 20));
		rnd_bytes(p + 20, sizeof(p) - 20);
		store16(p + 24, rte_cpu_to_be_16(coverages[i]));
		memcpy(before, p, sizeof(p));
		r = fp_partial_write_seed(p, sizeof(p), 0, &start, &offset);
		if (!full) {
			check(r, FP_ERR_PARTIAL_COVERAGE, "fp_partial_write_seed, UDP-Lite coverage %u",
			      coverages[i]);
			check(memcmp(p, before, sizeof(p)), 0,
			      "fp_partial_write_seed, UDP-Lite coverage %u, writes nothing", coverages[i]);
			check(fp_partial_write_seed(p, sizeof(p), RTE_MBUF_F_TX_TCP_SEG, &start, &offset),
			      FP_ERR_PARTIAL_COVERAGE, "fp_partial_write_seed, TSO, UDP-Lite coverage %u",
			      coverages[i]);
			continue;
		}
		check(r, 0, "fp_partial_write_seed, UDP-Lite coverage %u", coverages[i]);
		check(start == 20 && offset == 6, 1, "fp_partial_write_seed offsets, UDP-Lite");
		check(load16(p + 26), rte_ipv4_phdr_cksum(H4(p), 0), "fp_partial_write_seed, the seed");
		check(fp_partial_complete(p, sizeof(p), start, offset), 0, "fp_partial_complete, UDP-Lite");
		check(fp_l4_verify(p, sizeof(p)), 1, "seeded and completed UDP-Lite, coverage %u verifies",
		      coverages[i]);
	}
	check(fp_partial_write_seed(p, sizeof(p), 0, NULL, &offset), FP_ERR_NULL,
	      "fp_partial_write_seed, null csum_start");
	check(fp_partial_write_seed(NULL, 5, 0, &start, &offset), FP_ERR_NULL,
	      "fp_partial_write_seed, null packet");
}

/* fp_partial_complete on random bytes. */
static void test_partial(void)
{
	size_t iters = quick ? 5000 : 100000, it;

	section = "partial";
	for (it = 0; it < iters; it++) {
		size_t len = 2 + rnd_below(2000), start = rnd_below(len - 1);
		size_t offset = rnd_below(len - 1 - start), field = start + offset;
		unsigned char *buf = xmalloc(len), *copy = xmalloc(len);
		uint16_t want;
		int r;

		rnd_bytes(buf, len);
		if (rnd_below(8) == 0)
			memset(buf, rnd_below(2) ? 0xff : 0, len);
		memcpy(copy, buf, len);
		want = ref_ck(buf + start, len - start);
		if (want == 0)
			want = 0xffff;
		store16(copy + field, want);
		r = fp_partial_complete(buf, len, start, offset);
		check(r, 0, "fp_partial_complete return, len %zu start %zu offset %zu", len, start, offset);
		check(load16(buf + field), want, "fp_partial_complete value, len %zu start %zu offset %zu", len,
		      start, offset);
		check(memcmp(buf, copy, len), 0, "fp_partial_complete bytes, len %zu start %zu offset %zu", len,
		      start, offset);

		/* A field past the end: -9, nothing written. */
		offset = len - start - 1 + rnd_below(4);
		if (rnd_below(8) == 0)
			start = len + rnd_below(4), offset = 0;
		r = fp_partial_complete(buf, len, start, offset);
		check(r, FP_ERR_OUT_OF_BOUNDS, "fp_partial_complete past the end, len %zu start %zu offset %zu",
		      len, start, offset);
		check(memcmp(buf, copy, len), 0, "fp_partial_complete past the end writes nothing");
		free(buf);
		free(copy);
	}
	check(fp_partial_complete(NULL, 0, 0, 0), FP_ERR_OUT_OF_BOUNDS, "fp_partial_complete, no bytes");
	test_udplite_seed();
}

/* The rest: names, errors, null pointers with length 0. */
static void test_misc(void)
{
	static const char *const tiers[] = { "portable", "sse2", "neon", "avx2", "avx512" };
	const char *tier = fp_active_tier();
	struct fp_csum s;
	int e, known = 0;
	size_t i;

	section = "misc";
	check(tier != NULL, 1, "fp_active_tier() not null");
	for (i = 0; tier && i < sizeof(tiers) / sizeof(tiers[0]); i++)
		known |= strcmp(tier, tiers[i]) == 0;
	check(known, 1, "fp_active_tier() is a known tier: %s", tier ? tier : "(null)");
	for (e = -12; e <= 0; e++) {
		const char *text = fp_strerror(e);
		check(text != NULL && text[0] != '\0', 1, "fp_strerror(%d) not null or empty", e);
	}
	check(fp_strerror(-13) != NULL && fp_strerror(1) != NULL && fp_strerror(-1000) != NULL, 1,
	      "fp_strerror of unknown codes not null");
	check(FP_OK == 0 && FP_ERR_TRUNCATED == -1 && FP_ERR_OUT_OF_BOUNDS == -9 && FP_ERR_NULL == -10 &&
		      FP_ERR_OTHER == -11 && FP_ERR_PARTIAL_COVERAGE == -12,
	      1, "enum fp_error values");
	check(FP_TX_TCP_SEG == RTE_MBUF_F_TX_TCP_SEG, 1, "FP_TX_TCP_SEG == RTE_MBUF_F_TX_TCP_SEG");

	check(fp_checksum(NULL, 0), 0xffff, "fp_checksum(NULL, 0) inline");
	check((fp_checksum)(NULL, 0), 0xffff, "fp_checksum(NULL, 0) symbol");
	check(fp_raw_cksum(NULL, 0), 0, "fp_raw_cksum(NULL, 0) inline");
	check((fp_raw_cksum)(NULL, 0), 0, "fp_raw_cksum(NULL, 0) symbol");
	check(fp_copy_checksum(NULL, NULL, 0), 0xffff, "fp_copy_checksum(NULL, NULL, 0)");
	check(fp_checksum_iov(NULL, 0), 0xffff, "fp_checksum_iov(NULL, 0)");
	fp_copy(NULL, NULL, 0);
	fp_fill(NULL, 0xaa, 0);
	fp_fill_nontemporal(NULL, 0xaa, 0);
	fp_csum_init(&s);
	fp_csum_update(&s, "\x12\x34\x56", 3);
	fp_csum_update(&s, NULL, 0);
	fp_csum_update_copy(&s, NULL, NULL, 0);
	check(fp_csum_raw(&s), net16(0x1234 + 0x5600), "fp_csum_update(NULL, 0) changes nothing");
	check(fp_l4_verify(NULL, 0), FP_ERR_TRUNCATED, "fp_l4_verify(NULL, 0)");
	check(fp_l4_checksum("\x45", 1, NULL), FP_ERR_NULL, "fp_l4_checksum(..., NULL)");
}

int main(int argc, char **argv)
{
	const char *q = getenv("FP_DIFF_QUICK");
	uint64_t seed = 0x5eed0fa57ba7c4ULL;
	struct {
		const char *name;
		void (*run)(void);
	} sections[] = {
		{ "raw_cksum", test_raw },         { "ipv4_cksum", test_ipv4_cksum },
		{ "udptcp", test_packets },        { "raw_cksum_mbuf", test_mbuf },
		{ "csum_state", test_csum_state }, { "copy_fill", test_copy_fill },
		{ "incremental", test_incremental }, { "partial", test_partial },
		{ "misc", test_misc },
	};
	double t_start = now();
	size_t i;

	quick = q && *q && strcmp(q, "0") != 0;
	if (argc > 1) {
		char *end;
		seed = strtoull(argv[1], &end, 0);
		if (*end) {
			fprintf(stderr, "usage: %s [SEED]\n", argv[0]);
			return 2;
		}
	}
	rng_state = seed ? seed : 1;
	printf("dpdk_diff: seed 0x%" PRIx64 ", %s mode\n", seed, quick ? "quick" : "full");
	fflush(stdout);

	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		unsigned long long p0 = n_pass, f0 = n_fail;
		double t0 = now();
		sections[i].run();
		printf("  %-16s %10llu checks, %llu failed, %.2f s\n", sections[i].name,
		       n_pass - p0 + n_fail - f0, n_fail - f0, now() - t0);
		fflush(stdout);
	}
	printf("dpdk_diff: info: %llu packets (%llu with a UDP checksum of 0 sent as 0xffff)\n", n_packets,
	       n_zero_udp);
	printf("dpdk_diff: info: rte_raw_cksum_mbuf differs from the exact sum in %llu of %llu ranges "
	       "crossing a segment boundary at an odd offset (DPDK 22.11 truncates such a segment's "
	       "sum to 16 bits); fp_raw_cksum_iov was checked against the flattened bytes there\n",
	       n_odd_dpdk_differs, n_odd_ranges);
	if (n_empty_end)
		printf("dpdk_diff: info: rte_raw_cksum_mbuf returns -1 for %llu of %llu empty ranges at the "
		       "end of a multi-segment chain (off == pkt_len, len == 0), where fp_raw_cksum_iov "
		       "returns 0 and a sum of 0\n",
		       n_empty_end_dpdk_differs, n_empty_end);
	printf("dpdk_diff: %.2f s\n", now() - t_start);
	printf("dpdk_diff: active tier: %s\n", fp_active_tier());
	printf("dpdk_diff: %llu passed, %llu failed\n", n_pass, n_fail);
	return n_fail == 0 ? 0 : 1;
}
