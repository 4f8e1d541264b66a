//! The upper-layer checksums of a packet held in several buffers: a DPDK
//! mbuf chain, a Linux skb and its fragments, a header buffer and payload
//! buffers, what `bytes::Buf::chunks_vectored` or vectored I/O hand over.
//!
//! The packet (from its IP header on) is the concatenation of the segments,
//! split anywhere, inside the headers too. The headers are read where they
//! lie when the first segment holds them all, as it usually does; otherwise
//! their first [`SPLIT_HEADERS_MAX`] bytes are gathered into a buffer on the
//! stack (and, with the `std` feature, longer headers into one on the
//! heap). The data then goes to the checksum kernels segment by segment,
//! never copied, and segments past the data covered are not read.

use super::{Located, locate_in};
use crate::Checksum;
use crate::packet::{Error, be16, checks, put16};

/// The most bytes of headers split across segments that are gathered on the
/// stack: the IP header with its options or extension headers, and the
/// upper layer's header up to its checksum field. Longer headers split
/// across segments need the `std` feature.
const SPLIT_HEADERS_MAX: usize = 256;

/// The TCP, UDP, ICMPv4 or ICMPv6 checksum, pseudo-header included, of the
/// IP packet made of `segments` (not [`crate::checksum_vectored`], the
/// plain RFC 1071 sum of any bytes): the checksum that the upper layer of
/// the packet, one segment after the other, should carry: what
/// [`checksum`](super::checksum) gives for their concatenation, value and
/// errors alike, however the packet is split.
///
/// `segments` is anything that iterates over byte buffers: `[&[u8]; N]`,
/// `&Vec<Vec<u8>>`, a `Vec` of `bytes::Bytes`, `slice::chunks`; for a slice
/// of `IoSlice` (which dereferences to `[u8]` but is not `AsRef<[u8]>`),
/// [`checksum_io_slices`] (with `std`) or `slices.iter().map(|s| &**s)`.
/// The checksum
/// field is read as zero wherever it lies, and the segments after the data
/// that the headers declare are not read (Ethernet padding, a trailer).
///
/// Without the `std` feature, a packet whose headers, up to the upper
/// layer's checksum field, are longer than 256 bytes and not all in the
/// first segment gives [`Error::SplitHeaders`].
///
/// ```
/// use fastpath::packet::l4;
///
/// // UDP over IPv4: the headers in one buffer, the payload in another.
/// let headers = [
///     0x45, 0x00, 0x00, 0x20, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0xb4,
///     0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
///     0x30, 0x39, 0x00, 0x35, 0x00, 0x0c, 0x00, 0x00,
/// ];
/// let payload = *b"ping";
/// assert_eq!(l4::checksum_vectored([&headers[..], &payload]), Ok(0x6e7e));
/// // Split anywhere, even inside the headers: the same value.
/// let whole = [&headers[..], &payload[..]].concat();
/// let (a, b) = whole.split_at(13);
/// assert_eq!(l4::checksum_vectored([a, b]), l4::checksum(&whole));
/// ```
pub fn checksum_vectored<I>(segments: I) -> Result<u16, Error>
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    let scanned = scan(segments)?;
    Ok(scanned.located.value(scanned.sum?))
}

/// Whether the upper layer's checksum of the packet made of `segments` is
/// acceptable: what [`verify`](super::verify) says of their concatenation,
/// however the packet is split. Segments as for [`checksum_vectored`].
///
/// ```
/// use fastpath::packet::l4;
///
/// let packet = [
///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
///     0x08, 0x00, 0xe5, 0xca, 0x12, 0x34, 0x00, 0x01,
/// ];
/// let (headers, data) = packet.split_at(24);
/// assert_eq!(l4::verify_vectored([headers, data]), Ok(true));
/// ```
pub fn verify_vectored<I>(segments: I) -> Result<bool, Error>
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    let Scanned {
        located,
        stored,
        sum,
    } = scan(segments)?;
    located.verdict(stored, || Ok(checks(sum?, stored)))
}

/// [`checksum_vectored`] over the `IoSlice`s of vectored I/O, as they are.
///
/// ```
/// use std::io::IoSlice;
/// use fastpath::packet::l4;
///
/// let packet = [
///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
///     0x08, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x01,
/// ];
/// let io = [IoSlice::new(&packet[..24]), IoSlice::new(&packet[24..])];
/// assert_eq!(l4::checksum_io_slices(&io), Ok(0xe5ca));
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn checksum_io_slices(segments: &[std::io::IoSlice<'_>]) -> Result<u16, Error> {
    checksum_vectored(segments.iter().map(|s| &**s))
}

/// [`verify_vectored`] over the `IoSlice`s of vectored I/O, as they are.
///
/// ```
/// use std::io::IoSlice;
/// use fastpath::packet::l4;
///
/// let packet = [
///     0x45, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0x00, 0x40, 0x01, 0x00, 0x00,
///     0x0a, 0x00, 0x00, 0x01, 0x0a, 0x00, 0x00, 0x02,
///     0x08, 0x00, 0xe5, 0xca, 0x12, 0x34, 0x00, 0x01,
/// ];
/// let io = [IoSlice::new(&packet[..13]), IoSlice::new(&packet[13..])];
/// assert_eq!(l4::verify_io_slices(&io), Ok(true));
/// ```
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub fn verify_io_slices(segments: &[std::io::IoSlice<'_>]) -> Result<bool, Error> {
    verify_vectored(segments.iter().map(|s| &**s))
}

/// Computes the upper layer's checksum of the packet made of `headers`
/// followed by `payload`, stores it in its field in `headers`, and returns
/// it: [`write_checksum`](super::write_checksum) for the usual layout of a
/// packet being built, the headers in one mutable buffer and the payload in
/// others (which are only read).
///
/// Errors as for [`checksum_vectored`], and [`Error::OutOfBounds`] if the
/// checksum field is not inside `headers`. On an error nothing is written.
///
/// ```
/// use fastpath::packet::l4;
///
/// // TCP over IPv6 from [::1]:1024 to [::2]:80, 5 bytes of payload elsewhere.
/// let mut headers = [0u8; 60];
/// headers[0] = 0x60;
/// headers[5] = 25; // payload length: the TCP header and 5 bytes
/// headers[6] = 6; // TCP
/// headers[23] = 1;
/// headers[39] = 2;
/// headers[40..60].copy_from_slice(&[
///     0x04, 0x00, 0x00, 0x50, 0, 0, 0, 1, 0, 0, 0, 0, 0x50, 0x18, 0xff, 0xff, 0, 0, 0, 0,
/// ]);
/// let payload: [&[u8]; 2] = [b"hel", b"lo"];
/// let checksum = l4::write_checksum_vectored(&mut headers, payload)?;
/// assert_eq!(headers[56..58], checksum.to_be_bytes());
/// assert_eq!(l4::verify(&[&headers[..], b"hello"].concat()), Ok(true));
/// # Ok::<(), fastpath::packet::Error>(())
/// ```
pub fn write_checksum_vectored<I>(headers: &mut [u8], payload: I) -> Result<u16, Error>
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    let segments = core::iter::once(Segment::Headers(&*headers))
        .chain(payload.into_iter().map(Segment::Payload));
    let scanned = scan(segments)?;
    let value = scanned.located.value(scanned.sum?);
    put16(headers, scanned.located.field, value).ok_or(Error::OutOfBounds)?;
    Ok(value)
}

/// The headers' buffer or a payload buffer, as one type of segment.
enum Segment<'a, T> {
    Headers(&'a [u8]),
    Payload(T),
}

impl<T: AsRef<[u8]>> AsRef<[u8]> for Segment<'_, T> {
    fn as_ref(&self) -> &[u8] {
        match self {
            Segment::Headers(bytes) => bytes,
            Segment::Payload(bytes) => bytes.as_ref(),
        }
    }
}

/// What a pass over a packet's segments found.
struct Scanned {
    /// The upper layer's checksum: where it is and what it covers.
    located: Located,
    /// The value in its field.
    stored: u16,
    /// The folded sum of the pseudo-header and the data, the field read as
    /// zero; or why there is none.
    sum: Result<u16, Error>,
}

/// Finds the upper layer's checksum of the packet made of `segments` and
/// sums what it covers: one pass over the segments.
fn scan<I>(segments: I) -> Result<Scanned, Error>
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    let mut segments = segments.into_iter();
    let first = segments.next();
    let bytes: &[u8] = first.as_ref().map_or(&[], AsRef::as_ref);
    match locate_in_prefix(bytes, false)? {
        Some(located) => Ok(sum_segments(located, bytes, &[], segments)),
        None => match first {
            Some(first) => scan_split(first, segments),
            // No segment: the empty packet.
            None => Err(Error::Truncated),
        },
    }
}

/// [`scan`] where the first segment ends inside the headers: gathers them
/// into a buffer, a segment at a time, until they are all there.
#[inline(never)]
fn scan_split<S: AsRef<[u8]>>(
    first: S,
    mut rest: impl Iterator<Item = S>,
) -> Result<Scanned, Error> {
    let mut buffer = [0u8; SPLIT_HEADERS_MAX];
    let mut filled = 0;
    let mut segment = first;
    loop {
        let bytes = segment.as_ref();
        let n = bytes.len().min(buffer.len() - filled);
        crate::copy(&mut buffer[filled..filled + n], &bytes[..n]);
        filled += n;
        if n < bytes.len() {
            // The buffer is full, and the packet goes on.
            return match locate_in_prefix(&buffer, false)? {
                Some(located) => Ok(sum_segments(located, &buffer, &bytes[n..], rest)),
                None => long_headers(&buffer, &bytes[n..], rest),
            };
        }
        let next = rest.next();
        if let Some(located) = locate_in_prefix(&buffer[..filled], next.is_none())? {
            return Ok(sum_segments(
                located,
                &buffer[..filled],
                &[],
                next.into_iter().chain(rest),
            ));
        }
        // `None` above means that more segments follow.
        segment = next.ok_or(Error::Truncated)?;
    }
}

/// [`scan`] of a packet whose headers are longer than the stack buffer and
/// split across segments: with `std`, the packet gathered on the heap.
#[cfg(feature = "std")]
#[cold]
fn long_headers<S: AsRef<[u8]>>(
    gathered: &[u8],
    tail: &[u8],
    rest: impl Iterator<Item = S>,
) -> Result<Scanned, Error> {
    let mut packet = std::vec::Vec::from(gathered);
    packet.extend_from_slice(tail);
    for segment in rest {
        packet.extend_from_slice(segment.as_ref());
    }
    let located = super::find(&packet)?;
    let stored = be16(&packet, located.field).ok_or(Error::Truncated)?;
    Ok(Scanned {
        stored,
        sum: located.sum(&packet),
        located,
    })
}

/// Without `std`, headers longer than the stack buffer and split across
/// segments are an error.
#[cfg(not(feature = "std"))]
fn long_headers<S: AsRef<[u8]>>(
    _gathered: &[u8],
    _tail: &[u8],
    _rest: impl Iterator<Item = S>,
) -> Result<Scanned, Error> {
    Err(Error::SplitHeaders)
}

/// The upper layer's checksum of a packet of which `prefix` holds the first
/// bytes, found as [`find`](super::find) finds it in the whole packet, with two
/// differences: `Ok(None)` if the headers go on past `prefix`, unless
/// `complete` (`prefix` is the whole packet), and no check of the data's
/// end against the packet's, which only the segments after `prefix` tell.
///
/// The walk reads the same bytes in the same order in the prefix as in the
/// whole packet, so it gives the same result, or the same error, until it
/// reads past the prefix; there, it stops with [`Error::Truncated`].
fn locate_in_prefix(prefix: &[u8], complete: bool) -> Result<Option<Located>, Error> {
    let more = || {
        if complete {
            Err(Error::Truncated)
        } else {
            Ok(None)
        }
    };
    let upper = match crate::packet::upper(prefix) {
        Ok(upper) => upper,
        Err(Error::Truncated) => return more(),
        Err(e) => return Err(e),
    };
    match locate_in(prefix, usize::MAX, &upper) {
        Ok(located) if located.field + 2 <= prefix.len() => Ok(Some(located)),
        Ok(_) | Err(Error::Truncated) => more(),
        Err(e) => Err(e),
    }
}

/// Reads the checksum field of `located` in `head`, the packet's first
/// bytes, and sums the data it covers: in `head`, then `tail` (the bytes
/// that follow `head`), then the segments of `rest`, read until the data
/// ends.
fn sum_segments<S: AsRef<[u8]>>(
    located: Located,
    head: &[u8],
    tail: &[u8],
    rest: impl Iterator<Item = S>,
) -> Scanned {
    // `locate_in_prefix` found the field inside `head`.
    let stored = be16(head, located.field).unwrap_or_default();
    let sum = match located.unverifiable {
        Some(e) => Err(e),
        None => {
            let mut summer = Summer {
                sum: located.pseudo,
                at: 0,
                located: &located,
            };
            let mut done = summer.add(head) || summer.add(tail);
            for segment in rest {
                if done {
                    break;
                }
                done = summer.add(segment.as_ref());
            }
            // Short of the data's end: the packet was cut.
            if done {
                Ok(summer.sum.sum())
            } else {
                Err(Error::Truncated)
            }
        }
    };
    Scanned {
        located,
        stored,
        sum,
    }
}

/// The running sum of the data that a checksum covers, over the bytes of a
/// packet that come a segment at a time.
struct Summer<'a> {
    sum: Checksum,
    /// Where in the packet the next segment starts.
    at: usize,
    located: &'a Located,
}

impl Summer<'_> {
    /// Adds what the checksum covers of `segment`, the packet's bytes from
    /// `self.at` on, and returns whether the data covered has ended.
    ///
    /// The checksum field is left out, which reads it as zero: its two
    /// bytes, together, leave the pairing of the bytes after them as it
    /// was, even when a segment ends between them.
    fn add(&mut self, segment: &[u8]) -> bool {
        let Located {
            start, field, end, ..
        } = *self.located;
        let at = self.at;
        self.at += segment.len();
        let (from, to) = (start.max(at), end.min(self.at));
        if from < to {
            let before = to.min(field);
            if from < before {
                self.sum.update(&segment[from - at..before - at]);
            }
            let after = from.max(field + 2);
            if after < to {
                self.sum.update(&segment[after - at..to - at]);
            }
        }
        self.at >= end
    }
}
