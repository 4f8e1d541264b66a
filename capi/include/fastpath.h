/*
 * fastpath: the Internet checksum (RFC 1071), protocol checksums, and
 * packet copies and fills, for C.
 *
 * Written by cbindgen from capi/src/lib.rs and capi/cbindgen.toml: edit
 * those, then run capi/gen-header.sh.
 *
 * Every 16-bit checksum crosses this interface as it is stored in a packet
 * (network byte order): store a returned value into the header field as a
 * uint16_t, unconverted, as with DPDK's rte_ checksums. The functions that
 * parse packets return 0 on success (the verifying ones 1 or 0: correct or
 * not) and a negative enum fp_error on failure; fp_strerror() describes
 * each code.
 *
 * Pointers, one rule: a null pointer with a length of 0 is an empty buffer,
 * in every function. The functions that return an enum fp_error return
 * FP_ERR_NULL for a null pointer with a length above 0, and for a null
 * output they need. The others return a checksum or nothing, as DPDK's do,
 * and have no error to return: every pointer they take must be valid for
 * its length (a header pointer for its header), as in DPDK.
 *
 * Two return conventions, as the functions' models have them:
 *  - the DPDK drop-ins that verify (fp_ipv4_udptcp_cksum_verify,
 *    fp_ipv6_udptcp_cksum_verify) return 0 if the checksum is CORRECT and
 *    -1 if not, as DPDK's rte_*_cksum_verify do;
 *  - fp_l4_verify and fp_l4_verify_complete return 1 if it is CORRECT, 0 if
 *    not, and a negative enum fp_error if the packet cannot be read.
 *
 * Threads: every function may be called from any number of threads at
 * once. The kernels' tier is chosen at the first call that needs it, from
 * the CPU and the FASTPATH_TIER environment variable, read then, once;
 * racing first calls choose the same tier.
 *
 * Link with `pkg-config --libs fastpath` (add --static for libfastpath.a).
 * Define FP_NO_INLINE before including this header to call the library for
 * every length (see the end of this file).
 */

#ifndef FASTPATH_H
#define FASTPATH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
/** Marks the functions whose result must not be ignored. */
#if defined(__GNUC__) || defined(__clang__)
#define FP_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define FP_WARN_UNUSED_RESULT
#endif

/**
 * The header's version, FP_VERSION_MAJOR.FP_VERSION_MINOR.FP_VERSION_PATCH,
 * for the preprocessor; `fp_version()` gives the library's, at run time.
 */
#define FP_VERSION_MAJOR 0

/**
 * The header's minor version.
 */
#define FP_VERSION_MINOR 1

/**
 * The header's patch version.
 */
#define FP_VERSION_PATCH 0

/**
 * The `ol_flags` bit of DPDK's `RTE_MBUF_F_TX_TCP_SEG` (TCP segmentation
 * offload): given to `fp_ipv4_phdr_cksum` or `fp_ipv6_phdr_cksum`, the
 * pseudo-header sum leaves out the length, as the NIC adds each segment's.
 */
#define FP_TX_TCP_SEG 1125899906842624

/**
 * Which address, and port, a rewrite changes.
 */
enum fp_endpoint {
  /**
   * The source address and port (source NAT, masquerading).
   */
  FP_SOURCE = 0,
  /**
   * The destination address and port (destination NAT, port forwarding).
   */
  FP_DESTINATION = 1,
};

/**
 * The error codes of the functions that parse a packet: 0 for success,
 * negative for an error. `fp_strerror` describes each.
 */
enum fp_error {
  /**
   * Success.
   */
  FP_OK = 0,
  /**
   * The bytes end before a header, a field or the data a header declares.
   */
  FP_ERR_TRUNCATED = -1,
  /**
   * The IP version is not 4 or 6, or not the one the function takes.
   */
  FP_ERR_VERSION = -2,
  /**
   * An IPv4 IHL below 5.
   */
  FP_ERR_HEADER_LENGTH = -3,
  /**
   * Lengths that don't fit: a total length shorter than the header, a
   * UDP length below 8 or past the IP payload, and the like.
   */
  FP_ERR_LENGTH = -4,
  /**
   * The first fragment of a fragmented packet: its checksum covers data
   * in the other fragments.
   */
  FP_ERR_FIRST_FRAGMENT = -5,
  /**
   * A fragment other than the first: no upper-layer header.
   */
  FP_ERR_LATER_FRAGMENT = -6,
  /**
   * An upper layer whose checksum is not known (not TCP, UDP, ICMPv4 over
   * IPv4 or ICMPv6 over IPv6).
   */
  FP_ERR_PROTOCOL = -7,
  /**
   * An IPv6 routing header with segments left, of a type whose final
   * destination is unknown.
   */
  FP_ERR_ROUTING_TYPE = -8,
  /**
   * An offset or a field outside the buffer, or overlapping what it may
   * not.
   */
  FP_ERR_OUT_OF_BOUNDS = -9,
  /**
   * A null pointer where bytes or a result were needed.
   */
  FP_ERR_NULL = -10,
  /**
   * An error of a newer version of the library than this interface
   * names.
   */
  FP_ERR_OTHER = -11,
  /**
   * `fp_partial_write_seed` on UDP-Lite whose checksum coverage ends
   * before the datagram: a device sums to the end of the packet, so
   * offload cannot complete it. Compute it with `fp_l4_write_checksum`.
   */
  FP_ERR_PARTIAL_COVERAGE = -12,
};

/**
 * The state of a checksum computed piece by piece: `fp_csum_init`, then
 * `fp_csum_update` with each piece in order (of any length, odd ones
 * included), then `fp_csum_finish`. Its fields are private; copy it freely.
 */
struct fp_csum {
  /**
   * The folded sum so far, as big-endian words: private.
   */
  uint16_t sum;
  /**
   * 1 if an odd number of bytes has been added: private.
   */
  uint16_t odd;
};

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * The Internet checksum (RFC 1071) of the `len` bytes at `buf`: the ones'
 * complement of their ones'-complement sum, in network byte order, ready
 * to store in a header's checksum field (whose bytes must be zero in the
 * buffer). Over bytes that hold their correct checksum it is 0; over none,
 * 0xffff.
 *
 * # Safety
 *
 * `buf` must be valid for reads of `len` bytes (or `len` 0).
 */
FP_WARN_UNUSED_RESULT uint16_t fp_checksum(const void *buf, size_t len);

/**
 * The ones'-complement sum of the `len` bytes at `buf`, folded to 16 bits
 * and not complemented, in network byte order: DPDK's `rte_raw_cksum`,
 * value for value (0 only for bytes that are all zero).
 *
 * # Safety
 *
 * `buf` must be valid for reads of `len` bytes (or `len` 0).
 */
FP_WARN_UNUSED_RESULT uint16_t fp_raw_cksum(const void *buf, size_t len);

/**
 * Starts a checksum over no bytes.
 *
 * # Safety
 *
 * `state` must be valid for writes.
 */
void fp_csum_init(struct fp_csum *state);

/**
 * Adds the `len` bytes at `buf`, which follow those added so far.
 *
 * # Safety
 *
 * `state` must point to a state started by `fp_csum_init`, and `buf` be
 * valid for reads of `len` bytes (or `len` 0).
 */
void fp_csum_update(struct fp_csum *state, const void *buf, size_t len);

/**
 * Copies the `len` bytes at `src` to `dst` and adds them, as
 * `fp_csum_update` would: a copy and a checksum in one pass.
 *
 * # Safety
 *
 * `state` must point to a started state, `src` be valid for reads and
 * `dst` for writes of `len` bytes (or `len` 0), and the two must not
 * overlap.
 */
void fp_csum_update_copy(struct fp_csum *state, void *dst, const void *src, size_t len);

/**
 * Appends the bytes that `next` has summed to those of `state`, as if they
 * had been added to `state` after its own: the pieces of a buffer summed
 * apart (by two threads, say), of any lengths.
 *
 * # Safety
 *
 * Both must point to started states.
 */
void fp_csum_combine(struct fp_csum *state, const struct fp_csum *next);

/**
 * The Internet checksum of every byte added so far, in network byte
 * order. The state is unchanged: more bytes may follow.
 *
 * # Safety
 *
 * `state` must point to a started state.
 */
FP_WARN_UNUSED_RESULT uint16_t fp_csum_finish(const struct fp_csum *state);

/**
 * The folded sum, not complemented, of every byte added so far, in network
 * byte order: what `fp_raw_cksum` gives for all of them at once.
 *
 * # Safety
 *
 * `state` must point to a started state.
 */
FP_WARN_UNUSED_RESULT uint16_t fp_csum_raw(const struct fp_csum *state);

/**
 * The Internet checksum of the bytes of `iovcnt` I/O vectors, one after
 * the other (segments of any length, odd ones included), in network byte
 * order.
 *
 * # Safety
 *
 * `iov` must point to `iovcnt` vectors (or `iovcnt` be 0), each valid for
 * reads of its bytes.
 */
FP_WARN_UNUSED_RESULT uint16_t fp_checksum_iov(const struct iovec *iov, size_t iovcnt);

/**
 * The folded sum, not complemented, of the `len` bytes from offset `off`
 * of the bytes of `iovcnt` I/O vectors taken one after the other, stored
 * in `*cksum` in network byte order: DPDK's `rte_raw_cksum_mbuf` over an
 * array of segments rather than a chain of mbufs. Returns 0, or -1 (and
 * stores nothing) if `off + len` is past the last byte, or a pointer it
 * needs is null (`cksum`, `iov` with `iovcnt` above 0, a vector's base
 * with a length above 0).
 *
 * Segments of any length are summed exactly, odd ones included (DPDK
 * 22.11 drops the carries of a segment that starts at an odd offset of the
 * data: there, the two may differ).
 *
 * # Safety
 *
 * `iov` must point to `iovcnt` vectors (or `iovcnt` be 0), each valid for
 * reads of its bytes, and `cksum` be valid for writes.
 */
FP_WARN_UNUSED_RESULT
int fp_raw_cksum_iov(const struct iovec *iov,
                     size_t iovcnt,
                     size_t off,
                     size_t len,
                     uint16_t *cksum);

/**
 * Copies the `len` bytes at `src` to `dst` and returns their Internet
 * checksum, in network byte order: Linux's `csum_partial_copy`, complemented,
 * in one pass over the bytes.
 *
 * # Safety
 *
 * `src` must be valid for reads and `dst` for writes of `len` bytes (or
 * `len` 0), and the two must not overlap.
 */
FP_WARN_UNUSED_RESULT uint16_t fp_copy_checksum(void *dst, const void *src, size_t len);

/**
 * Copies the `len` bytes at `src` to `dst`: `memcpy`, without the slow
 * paths some C libraries have for a misaligned destination (DPDK's
 * `rte_memcpy`).
 *
 * # Safety
 *
 * `src` must be valid for reads and `dst` for writes of `len` bytes (or
 * `len` 0), and the two must not overlap.
 */
void fp_copy(void *dst, const void *src, size_t len);

/**
 * Sets the `len` bytes at `dst` to `value`: `memset`.
 *
 * # Safety
 *
 * `dst` must be valid for writes of `len` bytes (or `len` 0).
 */
void fp_fill(void *dst, uint8_t value, size_t len);

/**
 * Sets the `len` bytes at `dst` to `value`, with non-temporal stores where
 * the buffer outgrows the last-level cache (and ordinary ones below), then
 * a store fence: for a large buffer nobody reads soon.
 *
 * # Safety
 *
 * `dst` must be valid for writes of `len` bytes (or `len` 0).
 */
void fp_fill_nontemporal(void *dst, uint8_t value, size_t len);

/**
 * The library's version, "MAJOR.MINOR.PATCH", a static string: the
 * version of the library the program runs with, which may be newer than
 * the header's `FP_VERSION_*` it was built with.
 */
FP_WARN_UNUSED_RESULT const char *fp_version(void);

/**
 * The name of the kernels' tier chosen for this process: "portable",
 * "sse2", "neon", "avx2" or "avx512" (chosen at the first call of any
 * function, from the CPU and the `FASTPATH_TIER` environment variable). A
 * static string.
 */
FP_WARN_UNUSED_RESULT const char *fp_active_tier(void);

/**
 * A description of an `fp_error` code, as a static string.
 */
FP_WARN_UNUSED_RESULT const char *fp_strerror(int error);

/**
 * The checksum of an IPv4 header, whose length its IHL gives, in network
 * byte order: `rte_ipv4_cksum`. The checksum field must be zero (or the
 * result is 0 when it holds the right one).
 *
 * # Safety
 *
 * `ipv4_hdr` must be valid for reads of the header's length (IHL × 4
 * bytes, at most 60).
 */
FP_WARN_UNUSED_RESULT uint16_t fp_ipv4_cksum(const void *ipv4_hdr);

/**
 * The sum of the IPv4 pseudo-header (addresses, protocol, and the length
 * Total Length − IHL × 4, or 0 if `ol_flags` has `FP_TX_TCP_SEG`), folded,
 * not complemented, in network byte order: `rte_ipv4_phdr_cksum`, the seed
 * a NIC completes for checksum offload.
 *
 * # Safety
 *
 * `ipv4_hdr` must be valid for reads of 20 bytes.
 */
FP_WARN_UNUSED_RESULT uint16_t fp_ipv4_phdr_cksum(const void *ipv4_hdr, uint64_t ol_flags);

/**
 * The sum of the IPv6 pseudo-header (addresses, Payload Length or 0 if
 * `ol_flags` has `FP_TX_TCP_SEG`, and Next Header), folded, not
 * complemented, in network byte order: `rte_ipv6_phdr_cksum`.
 *
 * # Safety
 *
 * `ipv6_hdr` must be valid for reads of 40 bytes.
 */
FP_WARN_UNUSED_RESULT uint16_t fp_ipv6_phdr_cksum(const void *ipv6_hdr, uint64_t ol_flags);

/**
 * The TCP or UDP checksum of a packet over IPv4, in network byte order:
 * `rte_ipv4_udptcp_cksum`. The upper layer is the Total Length − IHL × 4
 * bytes at `l4_hdr`, whose checksum field must be zero; for UDP a result
 * of 0 is returned as 0xffff. A Total Length shorter than the header gives
 * 0xffff, as in DPDK.
 *
 * # Safety
 *
 * `ipv4_hdr` must be valid for reads of its IHL × 4 bytes (at least 20),
 * and `l4_hdr` of the upper layer's.
 */
FP_WARN_UNUSED_RESULT uint16_t fp_ipv4_udptcp_cksum(const void *ipv4_hdr, const void *l4_hdr);

/**
 * The TCP or UDP checksum of a packet over IPv6 without extension headers,
 * in network byte order: `rte_ipv6_udptcp_cksum`. The upper layer is the
 * Payload Length bytes at `l4_hdr`, whose checksum field must be zero; for
 * UDP a result of 0 is returned as 0xffff.
 *
 * # Safety
 *
 * `ipv6_hdr` must be valid for reads of 40 bytes, and `l4_hdr` of the
 * Payload Length's.
 */
FP_WARN_UNUSED_RESULT uint16_t fp_ipv6_udptcp_cksum(const void *ipv6_hdr, const void *l4_hdr);

/**
 * 0 if the TCP or UDP checksum of a packet over IPv4 is correct, else -1:
 * `rte_ipv4_udptcp_cksum_verify`. As there, a UDP checksum of 0 (none) is
 * for the caller to look for first: it gives -1 here unless the sum
 * happens to be right.
 *
 * # Safety
 *
 * As `fp_ipv4_udptcp_cksum`.
 */
FP_WARN_UNUSED_RESULT int fp_ipv4_udptcp_cksum_verify(const void *ipv4_hdr, const void *l4_hdr);

/**
 * 0 if the TCP or UDP checksum of a packet over IPv6 is correct, else -1:
 * `rte_ipv6_udptcp_cksum_verify`, with the same caveat for a UDP checksum
 * of 0.
 *
 * # Safety
 *
 * As `fp_ipv6_udptcp_cksum`.
 */
FP_WARN_UNUSED_RESULT int fp_ipv6_udptcp_cksum_verify(const void *ipv6_hdr, const void *l4_hdr);

/**
 * Computes the checksum of the upper layer (TCP, UDP, ICMPv4 or ICMPv6) of
 * the IPv4 or IPv6 packet of `len` bytes at `packet` (from its IP header:
 * options, extension headers and fragments are parsed) and stores it in
 * `*cksum`, in network byte order, as it belongs in the checksum field
 * (UDP's 0 sent as 0xffff). Returns 0 or an `fp_error` (and stores
 * nothing).
 *
 * # Safety
 *
 * `packet` must be null or valid for reads of `len` bytes (or `len` 0),
 * and `cksum` null or valid for writes: a null `cksum`, or a null `packet`
 * with `len` above 0, gives `FP_ERR_NULL`.
 */
FP_WARN_UNUSED_RESULT int fp_l4_checksum(const void *packet, size_t len, uint16_t *cksum);

/**
 * Verifies the upper layer's checksum of the packet of `len` bytes at
 * `packet`: 1 if it is correct (or a UDP-over-IPv4 checksum of 0, "none"),
 * 0 if not, or a negative `fp_error`.
 *
 * # Safety
 *
 * `packet` must be null or valid for reads of `len` bytes (or `len` 0):
 * null with `len` above 0 gives `FP_ERR_NULL`.
 */
FP_WARN_UNUSED_RESULT int fp_l4_verify(const void *packet, size_t len);

/**
 * Computes the upper layer's checksum of the packet of `len` bytes at
 * `packet` and writes it into its field; stores it in `*cksum` too unless
 * `cksum` is null. Returns 0 or an `fp_error` (and writes nothing).
 *
 * # Safety
 *
 * `packet` must be null or valid for reads and writes of `len` bytes (or
 * `len` 0; null with `len` above 0 gives `FP_ERR_NULL`), and `cksum` null
 * or valid for writes.
 */
FP_WARN_UNUSED_RESULT int fp_l4_write_checksum(void *packet, size_t len, uint16_t *cksum);

/**
 * Verifies the upper layer's checksum from the sum a NIC computed
 * (Linux's `CHECKSUM_COMPLETE`): `headers` holds the packet from its IP
 * header at least to the end of the checksum field (`len` bytes), and
 * `sum` is the folded ones'-complement sum, in network byte order, of the
 * bytes the checksum covers (the upper layer's header to the end of the IP
 * payload, no padding). 1 if correct, 0 if not, or a negative `fp_error`.
 *
 * # Safety
 *
 * `headers` must be null or valid for reads of `len` bytes (or `len` 0):
 * null with `len` above 0 gives `FP_ERR_NULL`.
 */
FP_WARN_UNUSED_RESULT int fp_l4_verify_complete(const void *headers, size_t len, uint16_t sum);

/**
 * Completes a checksum left to the device (Linux's `CHECKSUM_PARTIAL`):
 * sums the bytes of the packet of `len` bytes at `packet` from
 * `csum_start` to its end, the seed in the field included, and stores the
 * complement at `csum_start + csum_offset` (0 sent as 0xffff). Returns 0,
 * or `FP_ERR_OUT_OF_BOUNDS` (writing nothing) if the field is not inside
 * the packet.
 *
 * The sum runs to the end of the `len` bytes, as a device's does: pass the
 * packet without padding. A checksum that stops before the end of the
 * packet (UDP-Lite with a partial coverage) cannot be completed this way;
 * `fp_partial_write_seed` refuses to seed one.
 *
 * # Safety
 *
 * `packet` must be null or valid for reads and writes of `len` bytes (or
 * `len` 0): null with `len` above 0 gives `FP_ERR_NULL`.
 */
FP_WARN_UNUSED_RESULT
int fp_partial_complete(void *packet,
                        size_t len,
                        size_t csum_start,
                        size_t csum_offset);

/**
 * Prepares the IPv4 or IPv6 packet of `len` bytes at `packet` for checksum
 * offload: stores in its upper layer's checksum field the pseudo-header
 * sum, not complemented (0 for ICMPv4), and in `*csum_start` and
 * `*csum_offset` where the checksummed data starts and where the field is
 * from there, for `fp_partial_complete` or the device. With
 * `FP_TX_TCP_SEG` in `ol_flags` the seed leaves out the length, as
 * segmentation offload expects.
 *
 * Returns 0 or an `fp_error`, and then writes nothing: as
 * `fp_l4_checksum`, except that the data after the upper-layer header need
 * not be there; `FP_ERR_PARTIAL_COVERAGE` for UDP-Lite whose coverage ends
 * before the datagram (a device sums to the end of the packet);
 * `FP_ERR_NULL` if `packet` (with `len` above 0), `csum_start` or
 * `csum_offset` is null.
 *
 * # Safety
 *
 * `packet` must be valid for reads and writes of `len` bytes (or `len`
 * 0), `csum_start` and `csum_offset` null or valid for writes.
 */
FP_WARN_UNUSED_RESULT
int fp_partial_write_seed(void *packet,
                          size_t len,
                          uint64_t ol_flags,
                          size_t *csum_start,
                          size_t *csum_offset);

/**
 * Rewrites the source or destination address of the IPv4 packet of `len`
 * bytes at `packet` to the 4 bytes at `address` (network byte order, as in
 * the header), and the port to `*port` (network byte order) unless `port`
 * is null, updating the header checksum and the TCP, UDP or UDP-Lite
 * checksum incrementally (RFC 1624), as a NAT does: a checksum that was
 * right stays right, one that was wrong stays wrong by the same amount.
 * Returns 0, or an `fp_error` and writes nothing: a malformed header, a
 * TCP or UDP header cut short, lengths that don't fit, or a port to set
 * where the packet has none (a later fragment, another protocol).
 *
 * # Safety
 *
 * `packet` must be null or valid for reads and writes of `len` bytes (or
 * `len` 0), `address` null or valid for reads of 4 bytes, `port` null or
 * valid for reads; a null `packet` with `len` above 0, or a null
 * `address`, gives `FP_ERR_NULL`.
 */
FP_WARN_UNUSED_RESULT
int fp_ipv4_rewrite(void *packet,
                    size_t len,
                    enum fp_endpoint endpoint,
                    const void *address,
                    const uint16_t *port);

/**
 * Rewrites the source or destination address of the IPv6 packet of `len`
 * bytes at `packet` to the 16 bytes at `address`, and the port unless
 * `port` is null, as `fp_ipv4_rewrite` does, updating the TCP, UDP,
 * UDP-Lite or ICMPv6 checksum (a destination that is not the final one,
 * behind a routing header with segments left, is in the pseudo-header
 * only through the prefix an RPL source route takes from it). Returns 0
 * or an `fp_error` (`FP_ERR_ROUTING_TYPE` for a routing header of an
 * unknown type), and then writes nothing.
 *
 * # Safety
 *
 * As `fp_ipv4_rewrite`, with 16 bytes at `address`.
 */
FP_WARN_UNUSED_RESULT
int fp_ipv6_rewrite(void *packet,
                    size_t len,
                    enum fp_endpoint endpoint,
                    const void *address,
                    const uint16_t *port);

/**
 * Verifies the upper layer's checksum of the packet made of the bytes of
 * `iovcnt` I/O vectors taken one after the other, however it is split
 * (inside a header too): what `fp_l4_verify` says of their concatenation,
 * with no copy of the data. 1 if it is correct, 0 if not, or a negative
 * `fp_error`.
 *
 * # Safety
 *
 * `iov` must be null or point to `iovcnt` vectors (or `iovcnt` be 0), each
 * null or valid for reads of its bytes: a null `iov` with `iovcnt` above
 * 0, or a null base with a length above 0, gives `FP_ERR_NULL`.
 */
FP_WARN_UNUSED_RESULT int fp_l4_verify_iov(const struct iovec *iov, size_t iovcnt);

/**
 * A checksum updated for a 16-bit word of the data changed from
 * `old_value` to `new_value` (RFC 1624, eqn. 3), all three in network
 * byte order as read from the packet: the TTL and protocol word, a port.
 */
FP_WARN_UNUSED_RESULT
uint16_t fp_csum_update16(uint16_t cksum,
                          uint16_t old_value,
                          uint16_t new_value);

/**
 * As `fp_csum_update16` for a 32-bit value changed (an IPv4 address), the
 * three in network byte order.
 */
FP_WARN_UNUSED_RESULT
uint16_t fp_csum_update32(uint16_t cksum,
                          uint32_t old_value,
                          uint32_t new_value);

/**
 * As `fp_csum_update16` for 16 bytes changed (an IPv6 address), from the
 * 16 bytes at `old_value` to those at `new_value`.
 *
 * # Safety
 *
 * `old_value` and `new_value` must be valid for reads of 16 bytes.
 */
FP_WARN_UNUSED_RESULT
uint16_t fp_csum_update128(uint16_t cksum,
                           const void *old_value,
                           const void *new_value);

/**
 * Replaces the `new_len` bytes at offset `at` of the `len` bytes at
 * `packet` with those at `new_bytes`, and updates the checksum field at
 * offset `field` to match (RFC 1624: any offset, odd ones included, and
 * any length), with no protocol rule. Stores the new checksum in `*cksum`
 * unless it is null. Returns 0, or `FP_ERR_OUT_OF_BOUNDS` (writing
 * nothing) if the bytes or the field are not inside the packet, or
 * overlap.
 *
 * # Safety
 *
 * `packet` must be valid for reads and writes of `len` bytes, `new_bytes`
 * for reads of `new_len` (either length may be 0), not inside `packet`,
 * and `cksum` null or valid for writes; `packet` or `new_bytes` null with
 * its length above 0 gives `FP_ERR_NULL`.
 */
FP_WARN_UNUSED_RESULT
int fp_csum_replace(void *packet,
                    size_t len,
                    size_t at,
                    const void *new_bytes,
                    size_t new_len,
                    size_t field,
                    uint16_t *cksum);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* FASTPATH_H */

/*
 * Inline fast paths.
 *
 * DPDK's checksums are static inline functions, so a short buffer costs no
 * call there. These wrappers keep that: up to FP_INLINE_MAX bytes are
 * summed here, in the caller, and longer buffers call the library's
 * vector kernels. Each wrapper returns exactly what the function of the
 * same name in the library returns; the macros below route calls through
 * them. Define FP_NO_INLINE to call the library every time (the functions'
 * addresses are the library's either way).
 */
#if !defined(FP_NO_INLINE) && !defined(FASTPATH_INLINE_H)
#define FASTPATH_INLINE_H

/** A conversion in the inline code: a static_cast in C++, so that the
 *  header is clean under -Wold-style-cast; a cast in C. */
#ifdef __cplusplus
#define FP_CAST_(type, value) (static_cast<type>(value))
#else
#define FP_CAST_(type, value) ((type)(value))
#endif

/** Buffers of up to this many bytes are summed inline. */
#define FP_INLINE_MAX 128

/** The sum of the 16-bit words of the `len` bytes at `buf`, in memory
 *  order, unfolded. `len` is at most a few KiB. */
static inline uint64_t fp_inline_sum_(const void *buf, size_t len)
{
	const unsigned char *p = FP_CAST_(const unsigned char *, buf);
	uint64_t sum = 0, sum2 = 0, w, v;
	/* Two sums of 32-bit halves, 16 bytes a step: from 32 bytes in a loop
	 * that compilers vectorize, below in straight-line code. (Measured with
	 * gcc 12 on Zen 4 against DPDK's loop, the choices between a loop and
	 * straight-line code below 64 bytes moved 20-byte buffers between 0.8x
	 * and 1.3x DPDK's speed; this one was the fastest from 20 to 101 bytes
	 * with -march=corei7, with AVX2 and with AVX-512.) */
	if (len >= 32) {
		while (len >= 16) {
			memcpy(&w, p, 8);
			memcpy(&v, p + 8, 8);
			sum += (w >> 32) + FP_CAST_(uint32_t, w);
			sum2 += (v >> 32) + FP_CAST_(uint32_t, v);
			p += 16;
			len -= 16;
		}
	}
	if (len & 16) {
		memcpy(&w, p, 8);
		memcpy(&v, p + 8, 8);
		sum += (w >> 32) + FP_CAST_(uint32_t, w);
		sum2 += (v >> 32) + FP_CAST_(uint32_t, v);
		p += 16;
	}
	sum += sum2;
	if (len & 8) {
		memcpy(&w, p, 8);
		sum += (w >> 32) + FP_CAST_(uint32_t, w);
		p += 8;
	}
	if (len & 4) {
		uint32_t w32;
		memcpy(&w32, p, 4);
		sum += w32;
		p += 4;
	}
	if (len & 2) {
		uint16_t w16;
		memcpy(&w16, p, 2);
		sum += w16;
		p += 2;
	}
	if (len & 1) {
		uint16_t w8 = 0;
		memcpy(&w8, p, 1);
		sum += w8;
	}
	return sum;
}

/** `sum` folded to 16 bits with end-around carries. */
static inline uint16_t fp_inline_fold_(uint64_t sum)
{
	sum = (sum >> 32) + (sum & 0xffffffffu);
	sum = (sum >> 16) + (sum & 0xffffu);
	sum = (sum >> 16) + (sum & 0xffffu);
	sum = (sum >> 16) + (sum & 0xffffu);
	return FP_CAST_(uint16_t, sum);
}

FP_WARN_UNUSED_RESULT static inline uint16_t fp_raw_cksum_inline_(const void *buf, size_t len)
{
	if (len <= FP_INLINE_MAX)
		return fp_inline_fold_(fp_inline_sum_(buf, len));
	return fp_raw_cksum(buf, len);
}

FP_WARN_UNUSED_RESULT static inline uint16_t fp_checksum_inline_(const void *buf, size_t len)
{
	return FP_CAST_(uint16_t, ~fp_raw_cksum_inline_(buf, len));
}

FP_WARN_UNUSED_RESULT static inline uint16_t fp_ipv4_cksum_inline_(const void *ipv4_hdr)
{
	size_t len = FP_CAST_(size_t, (*FP_CAST_(const unsigned char *, ipv4_hdr) & 0x0f)) * 4;
	return FP_CAST_(uint16_t, ~fp_inline_fold_(fp_inline_sum_(ipv4_hdr, len)));
}

/** `v` in network byte order. (A byte array through memcpy is compiled by
 *  gcc 12 with MOVBE into a store and a reload, 8-30 cycles a packet.) */
static inline uint16_t fp_inline_be16_(uint16_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return FP_CAST_(uint16_t, ((v >> 8) | (v << 8)));
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return v;
#else
	unsigned char b[2] = { FP_CAST_(unsigned char, (v >> 8)), FP_CAST_(unsigned char, v) };
	uint16_t w;
	memcpy(&w, b, 2);
	return w;
#endif
}

FP_WARN_UNUSED_RESULT static inline uint16_t fp_ipv4_phdr_cksum_inline_(const void *ipv4_hdr, uint64_t ol_flags)
{
	const unsigned char *h = FP_CAST_(const unsigned char *, ipv4_hdr);
	uint64_t sum = fp_inline_sum_(h + 12, 8) + fp_inline_be16_(h[9]);
	if (!(ol_flags & FP_TX_TCP_SEG)) {
		uint16_t total = FP_CAST_(uint16_t, ((h[2] << 8) | h[3]));
		sum += fp_inline_be16_(FP_CAST_(uint16_t, (total - (h[0] & 0x0f) * 4)));
	}
	return fp_inline_fold_(sum);
}

FP_WARN_UNUSED_RESULT static inline uint16_t fp_ipv6_phdr_cksum_inline_(const void *ipv6_hdr, uint64_t ol_flags)
{
	const unsigned char *h = FP_CAST_(const unsigned char *, ipv6_hdr);
	uint64_t sum = fp_inline_sum_(h + 8, 32) + fp_inline_be16_(h[6]);
	if (!(ol_flags & FP_TX_TCP_SEG))
		sum += fp_inline_sum_(h + 4, 2);
	return fp_inline_fold_(sum);
}

/** The upper layer's sum and the pseudo-header's, folded once, as DPDK's
 *  __rte_ipv4_udptcp_cksum folds them. */
static inline uint16_t fp_inline_add_folded_(uint16_t data, uint16_t pseudo)
{
	uint32_t total = FP_CAST_(uint32_t, data) + pseudo;
	return FP_CAST_(uint16_t, ((total >> 16) + (total & 0xffff)));
}

/* The TCP and UDP checksums: inline where the upper layer is at most
 * FP_INLINE_MAX bytes, one call into the library beyond. (Inline code
 * around a call for the upper layer's sum cost 22 cycles more than the
 * call alone at 576 bytes, gcc 12 with AVX2.) */

/** Whether the upper layer of an IPv4 packet, by DPDK's reading of the
 *  header, is summed inline. */
static inline int fp_inline_ipv4_short_(const unsigned char *h)
{
	size_t hdr_len = FP_CAST_(size_t, (h[0] & 0x0f)) * 4;
	size_t total = FP_CAST_(size_t, ((h[2] << 8) | h[3]));
	return total < hdr_len || total - hdr_len <= FP_INLINE_MAX;
}

/** Whether the upper layer of an IPv6 packet is summed inline. */
static inline int fp_inline_ipv6_short_(const unsigned char *h)
{
	return FP_CAST_(size_t, ((h[4] << 8) | h[5])) <= FP_INLINE_MAX;
}

/** DPDK's __rte_ipv4_udptcp_cksum, for an upper layer summed inline. */
static inline uint16_t fp_inline_ipv4_udptcp_(const void *ipv4_hdr, const void *l4_hdr)
{
	const unsigned char *h = FP_CAST_(const unsigned char *, ipv4_hdr);
	size_t hdr_len = FP_CAST_(size_t, (h[0] & 0x0f)) * 4;
	size_t total = FP_CAST_(size_t, ((h[2] << 8) | h[3]));
	if (total < hdr_len)
		return 0;
	return fp_inline_add_folded_(fp_inline_fold_(fp_inline_sum_(l4_hdr, total - hdr_len)),
				     fp_ipv4_phdr_cksum_inline_(ipv4_hdr, 0));
}

/** DPDK's __rte_ipv6_udptcp_cksum, for an upper layer summed inline. */
static inline uint16_t fp_inline_ipv6_udptcp_(const void *ipv6_hdr, const void *l4_hdr)
{
	const unsigned char *h = FP_CAST_(const unsigned char *, ipv6_hdr);
	size_t payload = FP_CAST_(size_t, ((h[4] << 8) | h[5]));
	return fp_inline_add_folded_(fp_inline_fold_(fp_inline_sum_(l4_hdr, payload)),
				     fp_ipv6_phdr_cksum_inline_(ipv6_hdr, 0));
}

FP_WARN_UNUSED_RESULT static inline uint16_t fp_ipv4_udptcp_cksum_inline_(const void *ipv4_hdr, const void *l4_hdr)
{
	uint16_t cksum;
	if (!fp_inline_ipv4_short_(FP_CAST_(const unsigned char *, ipv4_hdr)))
		return fp_ipv4_udptcp_cksum(ipv4_hdr, l4_hdr);
	cksum = FP_CAST_(uint16_t, ~fp_inline_ipv4_udptcp_(ipv4_hdr, l4_hdr));
	if (cksum == 0 && (FP_CAST_(const unsigned char *, ipv4_hdr))[9] == 17)
		cksum = 0xffff;
	return cksum;
}

FP_WARN_UNUSED_RESULT static inline uint16_t fp_ipv6_udptcp_cksum_inline_(const void *ipv6_hdr, const void *l4_hdr)
{
	uint16_t cksum;
	if (!fp_inline_ipv6_short_(FP_CAST_(const unsigned char *, ipv6_hdr)))
		return fp_ipv6_udptcp_cksum(ipv6_hdr, l4_hdr);
	cksum = FP_CAST_(uint16_t, ~fp_inline_ipv6_udptcp_(ipv6_hdr, l4_hdr));
	if (cksum == 0 && (FP_CAST_(const unsigned char *, ipv6_hdr))[6] == 17)
		cksum = 0xffff;
	return cksum;
}

FP_WARN_UNUSED_RESULT static inline int fp_ipv4_udptcp_cksum_verify_inline_(const void *ipv4_hdr, const void *l4_hdr)
{
	if (!fp_inline_ipv4_short_(FP_CAST_(const unsigned char *, ipv4_hdr)))
		return fp_ipv4_udptcp_cksum_verify(ipv4_hdr, l4_hdr);
	return fp_inline_ipv4_udptcp_(ipv4_hdr, l4_hdr) == 0xffff ? 0 : -1;
}

FP_WARN_UNUSED_RESULT static inline int fp_ipv6_udptcp_cksum_verify_inline_(const void *ipv6_hdr, const void *l4_hdr)
{
	if (!fp_inline_ipv6_short_(FP_CAST_(const unsigned char *, ipv6_hdr)))
		return fp_ipv6_udptcp_cksum_verify(ipv6_hdr, l4_hdr);
	return fp_inline_ipv6_udptcp_(ipv6_hdr, l4_hdr) == 0xffff ? 0 : -1;
}

#define fp_raw_cksum(buf, len) fp_raw_cksum_inline_((buf), (len))
#define fp_checksum(buf, len) fp_checksum_inline_((buf), (len))
#define fp_ipv4_cksum(hdr) fp_ipv4_cksum_inline_((hdr))
#define fp_ipv4_phdr_cksum(hdr, flags) fp_ipv4_phdr_cksum_inline_((hdr), (flags))
#define fp_ipv6_phdr_cksum(hdr, flags) fp_ipv6_phdr_cksum_inline_((hdr), (flags))
#define fp_ipv4_udptcp_cksum(hdr, l4) fp_ipv4_udptcp_cksum_inline_((hdr), (l4))
#define fp_ipv6_udptcp_cksum(hdr, l4) fp_ipv6_udptcp_cksum_inline_((hdr), (l4))
#define fp_ipv4_udptcp_cksum_verify(hdr, l4) fp_ipv4_udptcp_cksum_verify_inline_((hdr), (l4))
#define fp_ipv6_udptcp_cksum_verify(hdr, l4) fp_ipv6_udptcp_cksum_verify_inline_((hdr), (l4))

#endif /* !FP_NO_INLINE && !FASTPATH_INLINE_H */
