//! Reading a capture block by block, with pcap-parser's block parsers.
//!
//! The input is read into a buffer of bounded size, and one block at a
//! time is framed and parsed in it, so memory stays constant whatever the
//! capture's size. Each block comes back with its raw bytes: `verify`
//! looks at a frame's data in place, and `fix` copies the raw bytes of
//! every block to its output as they are, patching checksum fields in the
//! copy, so that every other byte (headers, timestamps, pcapng options,
//! blocks of any type) is kept without being re-serialised.
//!
//! pcap-parser asks for more data when a block is incomplete, and an
//! inner length that contradicts the block's (an EPB's captured length past
//! its block length) looks the same. So before each block is parsed, its
//! length is read here from its header and checked against [`MAX_BLOCK`]
//! and the data left: a truncated file, a corrupt length or an absurd one
//! becomes an error naming the byte offset, never an endless refill or a
//! huge allocation. The block is then parsed from its own bytes alone, so
//! that a corrupt one gets the same verdict wherever it falls in the
//! buffer. A pcapng block longer than [`MAX_BLOCK`] whose contents nothing
//! here needs (anything but section headers, interface descriptions and
//! packets) is valid all the same: it is handed out in chunks of 1 MiB,
//! as blocks with no frame, and its trailing length checked.
//!
//! The input need not be seekable: a pipe, a FIFO or standard input is
//! read once, from its start, and its size is then unknown. Such an input
//! may be live, written as packets are captured, so a block is handed out
//! as soon as its bytes are in: the input is read only while the buffer
//! lacks bytes of the next block, one read call at a time, each asking
//! for all the free space of the buffer and taking what comes (a short
//! read is no end of file; a read of 0 bytes is).

use std::fmt;
use std::fs::File;
use std::io::{self, IsTerminal, Read, Seek, SeekFrom};
use std::path::Path;

use pcap_parser::{
    Block as NgBlock, LegacyPcapBlock, Linktype, PcapBlockOwned, PcapError, PcapHeader, nom,
    parse_block_be, parse_block_le, parse_pcap_frame, parse_pcap_frame_be, parse_pcap_header,
    parse_sectionheaderblock,
};

#[cfg(unix)]
use super::map;

/// The largest record or block accepted: 4 MiB. libpcap never captures more
/// than 256 KiB of a packet, and Wireshark refuses larger records for most
/// link types. The bound keeps memory low on corrupt input: pcap-parser
/// makes a vector of every option of a pcapng block (32 bytes an option,
/// an option can be 4 bytes long), so 4 MiB of options cost 32 MiB.
pub const MAX_BLOCK: usize = 4 << 20;

/// The buffer the input is read into, at first; it grows to hold the
/// largest block.
const BUFFER: usize = 1 << 20;

/// The bytes of a block over [`MAX_BLOCK`] handed out at a time. Blocks
/// that long are valid pcapng (any block length is), and those whose
/// contents nothing here needs (all but section headers, interface
/// descriptions and packets) pass through in chunks of this length, with no
/// memory bound of their own. Whatever the buffer, the chunks are the same.
const CHUNK: usize = 1 << 20;

/// How far ahead of the next block a mapped window's bytes are
/// prefetched: one page, since the CPU's own prefetchers stop at the edge
/// of a page. On the mix of `pcap bench --generate --mix` (Intel Xeon,
/// Sapphire Rapids class) it takes `verify` from 258 to 238 ms;
/// 1024 to 16384 bytes all measured within 5% of that.
#[cfg(all(unix, target_arch = "x86_64"))]
const PREFETCH_DISTANCE: usize = 4096;

/// The smallest section header block: its fields without options.
const MIN_SHB: usize = 28;

const SHB: u32 = 0x0a0d_0d0a;
/// The obsolete Packet Block, which pcap-parser does not know.
const PB: u32 = 0x0000_0002;
/// The interface description, simple packet and enhanced packet blocks.
const IDB: u32 = 0x0000_0001;
const SPB: u32 = 0x0000_0003;
const EPB: u32 = 0x0000_0006;
const BYTE_ORDER_MAGIC: u32 = 0x1a2b_3c4d;

/// The magic number of Alexey Kuznetsov's modified pcap format, read
/// little-endian: a file written little-endian, and one written big-endian.
const MODIFIED: u32 = 0xa1b2_cd34;
const MODIFIED_SWAPPED: u32 = 0x34cd_b2a1;

/// pcapng blocks that are no packets but that Wireshark lists, and
/// numbers, as frames: systemd journal exports and custom blocks (copiable
/// or not). They count as frames of no link type, so that frame numbers
/// are Wireshark's.
const RECORDS: [u32; 3] = [0x0000_0009, 0x0000_0bad, 0x4000_0bad];

/// Interfaces remembered per pcapng section: more are a corrupt file, and
/// their packets count as frames of an unknown link type.
const MAX_INTERFACES: usize = 1 << 16;

/// The capture file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The classic libpcap format.
    Pcap {
        /// Timestamps in nanoseconds (magic 0xa1b23c4d).
        nanosecond: bool,
        /// Written big-endian.
        big_endian: bool,
        /// Alexey Kuznetsov's modified format (magic 0xa1b2cd34, its
        /// ss991029 version, Wireshark's "modified tcpdump"): each record
        /// header has 8 more bytes after the usual 16 (interface index,
        /// protocol, packet type, padding), so the data starts at 24.
        modified: bool,
    },
    /// pcapng.
    PcapNg,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Format::Pcap {
                nanosecond,
                big_endian,
                modified,
            } => write!(
                f,
                "{}pcap ({}, {})",
                if modified { "modified " } else { "" },
                if nanosecond { "ns" } else { "µs" },
                if big_endian {
                    "big-endian"
                } else {
                    "little-endian"
                }
            ),
            Format::PcapNg => f.write_str("pcapng"),
        }
    }
}

/// Why a capture could not be read, and where.
#[derive(Debug)]
pub struct ReadError {
    /// The byte offset in the file of the block (or header) at fault.
    pub offset: u64,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte offset {}", self.message, self.offset)
    }
}

impl std::error::Error for ReadError {}

/// One frame: a packet record of a pcap file, or an Enhanced, Simple or
/// (obsolete) Packet Block of a pcapng file, or one of the other pcapng
/// `RECORDS` that Wireshark counts as frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// The link type (LINKTYPE_*) of the frame's interface; `None` for a
    /// pcapng packet of an interface past the `MAX_INTERFACES` remembered,
    /// and for records that are no packets. (A packet of an interface
    /// that its section does not describe is a read error, as in
    /// Wireshark.)
    pub link: Option<u16>,
    /// Where the captured bytes start in the block's raw bytes.
    pub start: usize,
    /// How many bytes were captured.
    pub len: usize,
    /// The length of the packet on the wire.
    pub original_len: u32,
}

impl Frame {
    /// The frame's captured bytes, in the raw bytes of its block.
    pub fn data<'a>(&self, raw: &'a [u8]) -> &'a [u8] {
        &raw[self.start..self.start + self.len]
    }
}

/// A block of the capture: its raw bytes, exactly as in the file, and the
/// frame it holds if it is a packet.
pub struct Block<'a> {
    /// Every byte of the block.
    pub raw: &'a [u8],
    /// The frame, for a packet block.
    pub frame: Option<Frame>,
}

/// A capture being read, block by block.
pub struct Capture {
    input: Input,
    format: Format,
    /// Where the next block starts in the file.
    offset: u64,
    /// Bytes of the buffer to consume before the next block: those of the
    /// block handed out last.
    pending: usize,
    /// pcap: whether the file header has been handed out.
    header_read: bool,
    /// pcap: the link type of every frame.
    link: u16,
    /// pcapng: the byte order of the current section.
    big_endian: bool,
    /// pcapng: the link type and snap length of each interface of the
    /// current section (the first [`MAX_INTERFACES`]).
    interfaces: Vec<(u16, u32)>,
    /// pcapng: how many interfaces the current section describes.
    described: u64,
    /// The capture's size, for progress; 0 if unknown.
    size: u64,
    /// pcapng: the block over [`MAX_BLOCK`] being handed out, if any.
    streaming: Option<Streaming>,
}

/// How [`Capture::open`] reads a regular file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Through `read` calls, into a buffer.
    Read,
    /// Through a window mapped into memory, which moves forward (see
    /// `map`): no copy of the bytes. A file that cannot be mapped is read.
    /// A file cut short while it is mapped ends the process (status 2).
    Map,
}

impl Capture {
    /// Opens a capture file, pcap or pcapng, told apart by its magic
    /// number, and reads it as `access` says if it is a regular file. The
    /// file need not be seekable: a FIFO or a character device is read as
    /// a stream, of unknown size.
    pub fn open(path: &Path, access: Access) -> Result<Capture, ReadError> {
        let file = File::open(path).map_err(|e| ReadError {
            offset: 0,
            message: format!("cannot open: {e}"),
        })?;
        let size = file
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .map_or(0, |m| m.len());
        if size == 0 {
            widen_pipe(&file);
        }
        #[cfg(unix)]
        if access == Access::Map && size > 0 {
            // A file that cannot be mapped is read.
            match map::Window::new(file, size) {
                Ok(window) => return Capture::new(Input::mapped(window), size),
                Err(file) => return Capture::new(Input::new(Box::new(file), BUFFER), size),
            }
        }
        Capture::new(Input::new(Box::new(file), BUFFER), size)
    }

    /// Opens a capture named on the command line: standard input if
    /// `path` is `-`, else the file, as [`open`](Capture::open) does.
    pub fn open_arg(path: &Path, access: Access) -> Result<Capture, ReadError> {
        if path.as_os_str() != "-" {
            return Capture::open(path, access);
        }
        let stdin = io::stdin();
        if stdin.is_terminal() {
            return Err(ReadError {
                offset: 0,
                message: "standard input is a terminal, not a capture: pipe one in".into(),
            });
        }
        let size = stdin_size();
        if size == 0 {
            widen_pipe(&stdin);
        }
        Capture::new(Input::new(Box::new(stdin.lock()), BUFFER), size)
    }

    /// Reads a capture, pcap or pcapng, from `input` (a
    /// [`Cursor`](std::io::Cursor) over bytes in memory, say), from its
    /// start.
    pub fn from_reader(input: impl Read + Seek + 'static) -> Result<Capture, ReadError> {
        Capture::with_buffer(input, BUFFER)
    }

    /// Reads a capture as [`from_reader`](Capture::from_reader) does,
    /// into a buffer of `buffer` bytes at first, which grows to hold the
    /// largest block: the blocks are the same whatever its size.
    pub fn with_buffer(
        mut input: impl Read + Seek + 'static,
        buffer: usize,
    ) -> Result<Capture, ReadError> {
        let at_start = |e: io::Error| ReadError {
            offset: 0,
            message: format!("{e}"),
        };
        let size = input.seek(SeekFrom::End(0)).map_err(at_start)?;
        input.rewind().map_err(at_start)?;
        Capture::new(Input::new(Box::new(input), buffer), size)
    }

    /// Reads a capture from `input` as it comes, with no seek (a pipe,
    /// say): its [`size`](Capture::size) is unknown, 0.
    pub fn from_stream(input: impl Read + 'static) -> Result<Capture, ReadError> {
        Capture::stream_with_buffer(input, BUFFER)
    }

    /// Reads a capture as [`from_stream`](Capture::from_stream) does,
    /// into a buffer of `buffer` bytes at first, as
    /// [`with_buffer`](Capture::with_buffer) does.
    pub fn stream_with_buffer(
        input: impl Read + 'static,
        buffer: usize,
    ) -> Result<Capture, ReadError> {
        Capture::new(Input::new(Box::new(input), buffer), 0)
    }

    /// Reads a capture of `size` bytes (0 if unknown) from `input`, where
    /// it stands: the capture's first byte. `input` is read once, never
    /// seeked.
    fn new(mut input: Input, size: u64) -> Result<Capture, ReadError> {
        let at_start = |message: String| ReadError { offset: 0, message };
        let mut header = [0; 12];
        while input.data().len() < header.len() && !input.eof {
            input
                .read(header.len())
                .map_err(|e| at_start(format!("{e}")))?;
        }
        let got = input.data().len().min(header.len());
        header[..got].copy_from_slice(&input.data()[..got]);
        if got == 0 {
            return Err(at_start("empty file: not a capture".into()));
        }
        let magic = u32_at(&header, 0, false);
        let format = match magic {
            SHB => Format::PcapNg,
            MODIFIED | MODIFIED_SWAPPED => Format::Pcap {
                nanosecond: false,
                big_endian: magic == MODIFIED_SWAPPED,
                modified: true,
            },
            0xa1b2_c3d4 | 0xd4c3_b2a1 | 0xa1b2_3c4d | 0x4d3c_b2a1 => Format::Pcap {
                nanosecond: matches!(magic, 0xa1b2_3c4d | 0x4d3c_b2a1),
                big_endian: matches!(magic, 0xd4c3_b2a1 | 0x4d3c_b2a1),
                modified: false,
            },
            _ if got < 4 => return Err(at_start("truncated file header".into())),
            _ => {
                return Err(at_start(format!(
                    "not a pcap or pcapng file (magic number {:02x?})",
                    magic.to_le_bytes()
                )));
            }
        };
        // The file header, or the first section header block, is checked
        // before the first block is asked for, as a whole: the buffer
        // starts large enough to hold it.
        let first = match format {
            Format::Pcap { .. } => 24,
            Format::PcapNg => shb_len(&header[..got])
                .filter(|&len| len <= MAX_BLOCK)
                .map_or(MIN_SHB, |len| len.max(MIN_SHB)),
        };
        let what = if format == Format::PcapNg {
            "section header block"
        } else {
            "file header"
        };
        while input.data().len() < first && !input.eof {
            if input.read(first).is_err() {
                return Err(at_start(format!("corrupt {what}: read error")));
            }
        }
        // The modified format's header is checked as a block, by
        // next_block: pcap-parser's header parser knows the format in one
        // byte order only.
        let checked = match format {
            Format::PcapNg => parse_sectionheaderblock(input.data()).map(|_| ()),
            Format::Pcap {
                modified: false, ..
            } => parse_pcap_header(input.data()).map(|_| ()),
            Format::Pcap { modified: true, .. } => Ok(()),
        };
        checked.map_err(|e| {
            at_start(match e {
                nom::Err::Incomplete(_)
                | nom::Err::Error(PcapError::Incomplete(_) | PcapError::UnexpectedEof)
                | nom::Err::Failure(PcapError::Incomplete(_) | PcapError::UnexpectedEof) => {
                    format!("truncated or oversized {what}")
                }
                nom::Err::Error(e) | nom::Err::Failure(e) => {
                    format!("corrupt {what}: {}", describe(&e))
                }
            })
        })?;
        Ok(Capture {
            input,
            format,
            offset: 0,
            pending: 0,
            header_read: false,
            link: 0,
            big_endian: false,
            interfaces: Vec::new(),
            described: 0,
            size,
            streaming: None,
        })
    }

    /// The file's format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The capture's size in bytes; 0 if unknown, when it is read from a
    /// pipe, a FIFO or a device.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// How many bytes of the file have been handed out as blocks.
    pub fn position(&self) -> u64 {
        self.offset
    }

    /// The next block, or `None` at the end of the file.
    pub fn next_block(&mut self) -> Result<Option<Block<'_>>, ReadError> {
        if self.pending > 0 {
            self.input.consume(self.pending);
            self.offset += self.pending as u64;
            self.pending = 0;
        }
        if self.streaming.is_some() {
            return self.next_chunk().map(Some);
        }
        self.input.prefetch();
        let offset = self.offset;
        let need = match self.fill()? {
            None => return Ok(None),
            Some(Framing::Whole(need)) => need,
            Some(Framing::Large(len, kind)) => {
                self.streaming = Some(Streaming {
                    start: offset,
                    len,
                    left: len,
                    kind,
                });
                return self.next_chunk().map(Some);
            }
            Some(Framing::Header(_)) => unreachable!("fill returns whole blocks"),
        };
        let corrupt = |e: &dyn fmt::Display| ReadError {
            offset,
            message: format!("corrupt block: {e}"),
        };
        // A pcap record: its header was read by framing, which took the
        // captured length from it, and it holds nothing else to check.
        if let Format::Pcap { big_endian, .. } = self.format
            && self.header_read
        {
            let start = record_header(self.format);
            let raw = &self.input.data()[..need];
            let frame = Frame {
                link: Some(self.link),
                start,
                len: need - start,
                original_len: u32_at(raw, 12, big_endian),
            };
            self.pending = need;
            return Ok(Some(Block {
                raw,
                frame: Some(frame),
            }));
        }
        let raw = &self.input.data()[..need];
        let parsed = parse(raw, self.format, self.header_read, self.big_endian);
        let (size, frame) = match parsed {
            Ok((size, block)) => {
                let frame = match block {
                    PcapBlockOwned::LegacyHeader(header) => {
                        self.link = header.network.0 as u16;
                        self.header_read = true;
                        None
                    }
                    PcapBlockOwned::Legacy(record) => Some(Frame {
                        link: Some(self.link),
                        start: record_header(self.format),
                        len: record.caplen as usize,
                        original_len: record.origlen,
                    }),
                    PcapBlockOwned::NG(block) => match block {
                        NgBlock::SectionHeader(shb) => {
                            self.big_endian = shb.bom != BYTE_ORDER_MAGIC;
                            self.interfaces.clear();
                            self.described = 0;
                            None
                        }
                        NgBlock::InterfaceDescription(idb) => {
                            if self.interfaces.len() < MAX_INTERFACES {
                                self.interfaces.push((idb.linktype.0 as u16, idb.snaplen));
                            }
                            self.described += 1;
                            None
                        }
                        NgBlock::EnhancedPacket(epb) => {
                            self.check_interface(offset, "enhanced packet", epb.if_id)?;
                            Some(Frame {
                                link: self.interfaces.get(epb.if_id as usize).map(|i| i.0),
                                start: 28,
                                len: epb.caplen as usize,
                                original_len: epb.origlen,
                            })
                        }
                        NgBlock::SimplePacket(spb) => {
                            // A simple packet is of the section's first
                            // interface.
                            self.check_interface(offset, "simple packet", 0)?;
                            let interface = self.interfaces.first().copied();
                            let mut len = spb.data.len().min(spb.origlen as usize);
                            if let Some((_, snaplen @ 1..)) = interface {
                                len = len.min(snaplen as usize);
                            }
                            Some(Frame {
                                link: interface.map(|i| i.0),
                                start: 12,
                                len,
                                original_len: spb.origlen,
                            })
                        }
                        _ => None,
                    },
                };
                (size, frame)
            }
            Err(e) => return Err(corrupt(&describe(&e))),
        };
        if size != need {
            return Err(corrupt(&format_args!(
                "the parser read {size} bytes of a block of {need}"
            )));
        }
        let raw = &self.input.data()[..size];
        let frame = match frame {
            None if self.format == Format::PcapNg && self.word(raw, 0) == PB => {
                let frame = self
                    .packet_block(raw)
                    .ok_or_else(|| corrupt(&"short packet block"))?;
                let interface = self.packet_block_interface(raw);
                self.check_interface(offset, "packet", interface.into())?;
                Some(frame)
            }
            None if self.format == Format::PcapNg && RECORDS.contains(&self.word(raw, 0)) => {
                Some(Frame {
                    link: None,
                    start: 0,
                    len: 0,
                    original_len: 0,
                })
            }
            frame => frame,
        };
        if let Some(frame) = frame
            && frame
                .start
                .checked_add(frame.len)
                .is_none_or(|end| end > raw.len())
        {
            return Err(corrupt(&"captured length past the end of the block"));
        }
        // Only a block handed out is consumed: after an error, the next
        // bytes are still those of the block at fault.
        self.pending = size;
        Ok(Some(Block { raw, frame }))
    }

    /// The next chunk of the block over [`MAX_BLOCK`] being streamed: a
    /// block of its own, with no frame but for the first chunk of a block
    /// that Wireshark counts as a frame. The last chunk ends in the block's
    /// trailing length, checked.
    fn next_chunk(&mut self) -> Result<Block<'_>, ReadError> {
        let Some(streaming) = &self.streaming else {
            unreachable!("called while streaming")
        };
        let (start, len, left, kind) = (
            streaming.start,
            streaming.len,
            streaming.left,
            streaming.kind,
        );
        let want = usize::try_from(left).map_or(CHUNK, |left| left.min(CHUNK));
        while self.input.data().len() < want {
            let error = |message| ReadError {
                offset: start,
                message,
            };
            if self.input.eof {
                return Err(error(format!(
                    "truncated file: the block here of {len} bytes ends after {} of them",
                    len - left + self.input.data().len() as u64
                )));
            }
            if let Err(e) = self.input.read(want) {
                return Err(error(format!("read error: {e}")));
            }
        }
        let raw = &self.input.data()[..want];
        if left == want as u64 && u64::from(u32_at(&raw[want - 4..], 0, self.big_endian)) != len {
            return Err(ReadError {
                offset: start,
                message: format!(
                    "corrupt block: its trailing length is not its length, {len} bytes"
                ),
            });
        }
        let frame = (left == len && RECORDS.contains(&kind)).then_some(Frame {
            link: None,
            start: 0,
            len: 0,
            original_len: 0,
        });
        self.streaming = (left > want as u64).then_some(Streaming {
            start,
            len,
            left: left - want as u64,
            kind,
        });
        self.pending = want;
        Ok(Block { raw, frame })
    }

    /// Writes to `out` every byte of the input from where the next block
    /// starts (or the block that could not be read, after an error) to the
    /// end of the input, as it is: what `fix` copies through after a block
    /// it cannot read. The number of bytes written.
    pub fn copy_rest(&mut self, out: &mut impl io::Write) -> io::Result<u64> {
        if self.pending > 0 {
            self.input.consume(self.pending);
            self.offset += self.pending as u64;
            self.pending = 0;
        }
        let mut copied = 0;
        loop {
            let data = self.input.data();
            out.write_all(data)?;
            copied += data.len() as u64;
            self.input.consume(data.len());
            if self.input.eof {
                break;
            }
            match &mut self.input.source {
                Source::Read(source) => {
                    copied += io::copy(source, out)?;
                    self.input.eof = true;
                }
                // The next window.
                #[cfg(unix)]
                Source::Map(_) => self.input.read(1)?,
            }
        }
        self.offset += copied;
        Ok(copied)
    }

    /// Whether the next call to [`next_block`](Capture::next_block) may
    /// wait for the input: it is a stream (a pipe, a FIFO, a device:
    /// [`size`](Capture::size) is 0), possibly live, and the buffer lacks
    /// bytes of the next block, so that the input will be read, and the
    /// read returns only when a writer has written. A caller that writes
    /// as it reads flushes its output then, so that what it wrote of the
    /// blocks before comes out at once.
    pub fn may_wait(&self) -> bool {
        self.size == 0 && self.needs_read()
    }

    /// Whether the next call to [`next_block`](Capture::next_block) will
    /// read the input: the buffer lacks bytes of the next block, and the
    /// end of the input has not been read.
    fn needs_read(&self) -> bool {
        if self.input.eof {
            return false;
        }
        let data = self.input.data().get(self.pending..).unwrap_or_default();
        if let Some(streaming) = &self.streaming {
            return (data.len() as u64) < streaming.left.min(CHUNK as u64);
        }
        match self.framing(data) {
            Ok(Framing::Whole(need)) => need > data.len(),
            Ok(Framing::Large(len, _)) => (data.len() as u64) < len.min(CHUNK as u64),
            Ok(Framing::Header(_)) => true,
            // The error is reported with no read.
            Err(_) => false,
        }
    }

    /// Makes the buffer hold the whole next block, whose length is read
    /// from its header; `None` at the end of the file. The input is read
    /// only while bytes of the block are missing.
    fn fill(&mut self) -> Result<Option<Framing>, ReadError> {
        loop {
            let data = self.input.data();
            let need = match self.framing(data) {
                Ok(need) => need,
                Err(message) => {
                    return Err(ReadError {
                        offset: self.offset,
                        message,
                    });
                }
            };
            let need = match need {
                Framing::Whole(need) if need <= data.len() => {
                    return Ok(Some(Framing::Whole(need)));
                }
                // The first chunk is read by next_chunk.
                Framing::Large(..) => return Ok(Some(need)),
                Framing::Whole(need) | Framing::Header(need) => need,
            };
            if self.input.eof {
                if data.is_empty() {
                    return Ok(None);
                }
                return Err(ReadError {
                    offset: self.offset,
                    message: format!(
                        "truncated file: the block here needs {need} bytes, {} are left",
                        data.len()
                    ),
                });
            }
            // The buffer grows to hold the block (at most MAX_BLOCK,
            // checked by framing), and never shrinks.
            if let Err(e) = self.input.read(need) {
                return Err(ReadError {
                    offset: self.offset,
                    message: format!("read error: {e}"),
                });
            }
        }
    }

    /// The length of the block that starts `data`, from its header.
    fn framing(&self, data: &[u8]) -> Result<Framing, String> {
        if let Format::Pcap { big_endian, .. } = self.format {
            if !self.header_read {
                return Ok(Framing::Whole(24));
            }
            let header_len = record_header(self.format);
            let Some(header) = data.get(..header_len) else {
                return Ok(Framing::Header(header_len));
            };
            let caplen = u32_at(header, 8, big_endian) as usize;
            if caplen > MAX_BLOCK {
                return Err(format!(
                    "record of {caplen} captured bytes: corrupt, or over the {} MiB accepted",
                    MAX_BLOCK >> 20
                ));
            }
            return Ok(Framing::Whole(header_len + caplen));
        }
        let Some(header) = data.first_chunk::<12>() else {
            return Ok(Framing::Header(12));
        };
        let kind = u32::from_le_bytes(header[..4].try_into().unwrap());
        let big_endian = if kind == SHB {
            // A section header sets the byte order of what follows.
            match u32::from_le_bytes(header[8..].try_into().unwrap()) {
                BYTE_ORDER_MAGIC => false,
                m if m.swap_bytes() == BYTE_ORDER_MAGIC => true,
                _ => return Err("section header block with no byte-order magic".into()),
            }
        } else {
            self.big_endian
        };
        let len = u32_at(header, 4, big_endian) as usize;
        if len < 12 || !len.is_multiple_of(4) {
            return Err(format!(
                "block length {len}: not a multiple of 4 of at least 12"
            ));
        }
        if len > MAX_BLOCK {
            let kind = u32_at(header, 0, big_endian);
            if !matches!(kind, SHB | IDB | PB | SPB | EPB) {
                return Ok(Framing::Large(len as u64, kind));
            }
            return Err(format!(
                "block length {len}: corrupt, or over the {} MiB accepted for this block type",
                MAX_BLOCK >> 20
            ));
        }
        Ok(Framing::Whole(len))
    }

    /// An error unless the current section describes `interface`: a
    /// packet of an interface never described is a corrupt file, in
    /// Wireshark as here, not a packet of an unknown link type.
    fn check_interface(&self, offset: u64, kind: &str, interface: u32) -> Result<(), ReadError> {
        if u64::from(interface) < self.described {
            return Ok(());
        }
        let message = match self.described {
            0 => format!(
                "{kind} block of interface {interface} before any interface description block \
                 of its section"
            ),
            1 => format!(
                "{kind} block of interface {interface}, but its section describes only \
                 interface 0"
            ),
            n => format!(
                "{kind} block of interface {interface}, but its section describes only \
                 interfaces 0 to {}",
                n - 1
            ),
        };
        Err(ReadError { offset, message })
    }

    /// A 32-bit word of a pcapng block in the section's byte order.
    fn word(&self, raw: &[u8], at: usize) -> u32 {
        raw.get(at..at + 4)
            .map_or(0, |w| u32_at(w, 0, self.big_endian))
    }

    /// The interface of an obsolete Packet Block, of at least 10 bytes.
    fn packet_block_interface(&self, raw: &[u8]) -> u16 {
        if self.big_endian {
            u16::from_be_bytes([raw[8], raw[9]])
        } else {
            u16::from_le_bytes([raw[8], raw[9]])
        }
    }

    /// The frame of an obsolete Packet Block: a 16-bit interface and drop
    /// count, a timestamp, captured and original lengths, data at 28.
    fn packet_block(&self, raw: &[u8]) -> Option<Frame> {
        if raw.len() < 32 {
            return None;
        }
        let interface = self.packet_block_interface(raw);
        let len = self.word(raw, 20) as usize;
        Some(Frame {
            link: self.interfaces.get(usize::from(interface)).map(|i| i.0),
            start: 28,
            len,
            original_len: self.word(raw, 24),
        })
    }
}

/// How many bytes a pcap record header has: 16, or 24 in the modified
/// format.
fn record_header(format: Format) -> usize {
    match format {
        Format::Pcap { modified: true, .. } => 24,
        _ => 16,
    }
}

/// Parses the block that `raw` holds, as pcap-parser's readers do but
/// from these bytes alone, never from those after them: the same verdict
/// wherever the block falls in the buffer. The number of bytes parsed,
/// and the block.
fn parse(
    raw: &[u8],
    format: Format,
    header_read: bool,
    big_endian: bool,
) -> Result<(usize, PcapBlockOwned<'_>), PcapError<&[u8]>> {
    let parsed = match format {
        Format::Pcap {
            big_endian,
            modified: true,
            ..
        } => parse_modified(raw, header_read, big_endian),
        Format::Pcap { .. } if !header_read => {
            parse_pcap_header(raw).map(|(rest, header)| (rest, PcapBlockOwned::from(header)))
        }
        Format::Pcap { big_endian, .. } => if big_endian {
            parse_pcap_frame_be(raw)
        } else {
            parse_pcap_frame(raw)
        }
        .map(|(rest, record)| (rest, PcapBlockOwned::from(record))),
        Format::PcapNg => if big_endian {
            parse_block_be(raw)
        } else {
            parse_block_le(raw)
        }
        .map(|(rest, block)| (rest, PcapBlockOwned::from(block))),
    };
    match parsed {
        Ok((rest, block)) => Ok((raw.len() - rest.len(), block)),
        Err(nom::Err::Incomplete(_)) => Err(PcapError::Incomplete(0)),
        Err(nom::Err::Error(e) | nom::Err::Failure(e)) => Err(e),
    }
}

/// Parses the file header or a record of the modified pcap format, which
/// pcap-parser knows little-endian only: the record header's 8 more bytes
/// (interface index, protocol, packet type, padding) are skipped.
fn parse_modified(
    raw: &[u8],
    header_read: bool,
    big_endian: bool,
) -> nom::IResult<&[u8], PcapBlockOwned<'_>, PcapError<&[u8]>> {
    let need = |len: usize| nom::Err::Incomplete(nom::Needed::new(len - raw.len()));
    let u16_at = |at: usize| {
        let word = [raw[at], raw[at + 1]];
        if big_endian {
            u16::from_be_bytes(word)
        } else {
            u16::from_le_bytes(word)
        }
    };
    if !header_read {
        if raw.len() < 24 {
            return Err(need(24));
        }
        let header = PcapHeader {
            magic_number: u32_at(raw, 0, big_endian),
            version_major: u16_at(4),
            version_minor: u16_at(6),
            thiszone: u32_at(raw, 8, big_endian) as i32,
            sigfigs: u32_at(raw, 12, big_endian),
            snaplen: u32_at(raw, 16, big_endian),
            network: Linktype(u32_at(raw, 20, big_endian) as i32),
        };
        return Ok((&raw[24..], PcapBlockOwned::from(header)));
    }
    if raw.len() < 24 {
        return Err(need(24));
    }
    let caplen = u32_at(raw, 8, big_endian);
    let end = 24usize.saturating_add(caplen as usize);
    if raw.len() < end {
        return Err(need(end));
    }
    let record = LegacyPcapBlock {
        ts_sec: u32_at(raw, 0, big_endian),
        ts_usec: u32_at(raw, 4, big_endian),
        caplen,
        origlen: u32_at(raw, 12, big_endian),
        data: &raw[24..end],
    };
    Ok((&raw[end..], PcapBlockOwned::from(record)))
}

/// What a parse error of a block known to be whole means.
fn describe<I>(e: &PcapError<I>) -> String {
    match e {
        // The block is all in the buffer: a length inside it runs past it.
        PcapError::Incomplete(_) | PcapError::BufferTooSmall | PcapError::UnexpectedEof => {
            "a length inside the block runs past its end".into()
        }
        PcapError::NomError(_, kind) | PcapError::OwnedNomError(_, kind) => {
            format!("malformed ({kind:?})")
        }
        PcapError::Eof => "unexpected end".into(),
        PcapError::ReadError => "read error".into(),
        PcapError::HeaderNotRecognized => "header not recognized".into(),
    }
}

/// How much of the buffer the next block needs.
enum Framing {
    /// The whole block, of this length.
    Whole(usize),
    /// Its header first, of this length.
    Header(usize),
    /// A pcapng block over [`MAX_BLOCK`] whose contents are not needed,
    /// of this length and type: streamed, [`CHUNK`] bytes at a time.
    Large(u64, u32),
}

/// A block over [`MAX_BLOCK`] being handed out in chunks.
struct Streaming {
    /// Where the block starts in the file.
    start: u64,
    /// Its length.
    len: u64,
    /// Its bytes not yet handed out.
    left: u64,
    /// Its type.
    kind: u32,
}

/// The length of the section header block that starts `header`, in the
/// byte order its byte-order magic tells.
fn shb_len(header: &[u8]) -> Option<usize> {
    let bom = u32_at(header.get(..12)?, 8, false);
    let big_endian = match bom {
        BYTE_ORDER_MAGIC => false,
        _ if bom.swap_bytes() == BYTE_ORDER_MAGIC => true,
        _ => return None,
    };
    Some(u32_at(header, 4, big_endian) as usize)
}

fn u32_at(data: &[u8], at: usize, big_endian: bool) -> u32 {
    let word: [u8; 4] = data[at..at + 4].try_into().unwrap();
    if big_endian {
        u32::from_be_bytes(word)
    } else {
        u32::from_le_bytes(word)
    }
}

/// The bytes left in standard input if it is a regular file (`< file`),
/// for progress; 0, unknown, if it is a pipe, a terminal or a device.
#[cfg(unix)]
fn stdin_size() -> u64 {
    use std::os::fd::AsFd;
    let Ok(fd) = io::stdin().as_fd().try_clone_to_owned() else {
        return 0;
    };
    let mut file = File::from(fd);
    match file.metadata() {
        Ok(m) if m.is_file() => m.len().saturating_sub(file.stream_position().unwrap_or(0)),
        _ => 0,
    }
}

#[cfg(not(unix))]
fn stdin_size() -> u64 {
    0
}

/// The size [`widen_pipe`] asks for: Linux's default limit for a user
/// without `CAP_SYS_RESOURCE` (`/proc/sys/fs/pipe-max-size`).
#[cfg(target_os = "linux")]
const PIPE: libc::c_int = 1 << 20;

/// Grows the pipe (or FIFO) `input` is, if it is one, to [`PIPE`] bytes,
/// if it is smaller and the system allows it; does nothing to anything
/// else. With Linux's default of 64 KiB, the writer and the reader take
/// turns every 64 KiB: `cat 1GiB.pcap | fastpath pcap verify -` took 1.2 s
/// where verifying the file took 0.2; with 1 MiB, 0.4 s, the time `cat`
/// alone takes to write it into such a pipe (Zen 4, Linux 6.1).
#[cfg(target_os = "linux")]
fn widen_pipe(input: &impl std::os::fd::AsFd) {
    use std::os::fd::AsRawFd;
    let fd = input.as_fd().as_raw_fd();
    // SAFETY: `fcntl` with F_GETPIPE_SZ and F_SETPIPE_SZ takes an integer
    // argument and touches no memory of ours; on a descriptor that is no
    // pipe it fails (EBADF), and that and any other failure leave the
    // descriptor as it was.
    unsafe {
        let size = libc::fcntl(fd, libc::F_GETPIPE_SZ);
        if (0..PIPE).contains(&size) {
            libc::fcntl(fd, libc::F_SETPIPE_SZ, PIPE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn widen_pipe<T>(_input: &T) {}

/// The input, and where its bytes are held: a buffer it is read into, or
/// the window of a file mapped into memory. The bytes read and not yet
/// consumed are `buffer[start..end]`, or `window.bytes()[start..end]`.
struct Input {
    source: Source,
    buffer: Vec<u8>,
    start: usize,
    end: usize,
    /// Whether a read has returned 0 bytes: the end of the input.
    eof: bool,
}

enum Source {
    Read(Box<dyn Read>),
    #[cfg(unix)]
    Map(map::Window),
}

impl Input {
    /// An input read into a buffer of `capacity` bytes.
    fn new(source: Box<dyn Read>, capacity: usize) -> Input {
        Input {
            source: Source::Read(source),
            buffer: vec![0; capacity],
            start: 0,
            end: 0,
            eof: false,
        }
    }

    /// An input read through `window`, a file's first window.
    #[cfg(unix)]
    fn mapped(window: map::Window) -> Input {
        let end = window.bytes().len();
        Input {
            source: Source::Map(window),
            buffer: Vec::new(),
            start: 0,
            end,
            eof: false,
        }
    }

    /// The bytes read and not yet consumed.
    fn data(&self) -> &[u8] {
        match &self.source {
            Source::Read(_) => &self.buffer[self.start..self.end],
            #[cfg(unix)]
            Source::Map(window) => &window.bytes()[self.start..self.end],
        }
    }

    /// Asks the CPU to fetch the bytes [`PREFETCH_DISTANCE`] ahead of the
    /// data, for a mapped window (a read buffer was just written, and is
    /// in the caches).
    #[inline]
    fn prefetch(&self) {
        #[cfg(all(unix, target_arch = "x86_64"))]
        if let Source::Map(window) = &self.source
            && let Some(ahead) = window.bytes().get(self.start + PREFETCH_DISTANCE)
        {
            // SAFETY: a prefetch only hints; the address is in the window.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                    std::ptr::from_ref(ahead).cast(),
                )
            };
        }
    }

    /// Consumes the first `len` bytes of the data (all of them at most).
    fn consume(&mut self, len: usize) {
        self.start = self.start.saturating_add(len).min(self.end);
        if self.start == self.end && matches!(self.source, Source::Read(_)) {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Reads the input once (again if the read is interrupted), into all
    /// the free space of the buffer, first grown to `need` bytes if
    /// smaller and its data moved to its start: as many bytes as the input
    /// has ready, up to the buffer's size. A read of 0 bytes is the end of
    /// the input. Called only when the data is less than `need` bytes, so
    /// that the space read into is never empty. A mapped file's window
    /// moves instead, to hold `need` bytes of data if the file has them;
    /// if it has no more, that is the end of the input.
    fn read(&mut self, need: usize) -> io::Result<()> {
        let source = match &mut self.source {
            Source::Read(source) => source,
            #[cfg(unix)]
            Source::Map(window) => {
                let at = window.base() + self.start as u64;
                if window.advance(at, need)? {
                    self.start = (at - window.base()) as usize;
                    self.end = window.bytes().len();
                } else {
                    self.eof = true;
                }
                return Ok(());
            }
        };
        if self.start > 0 {
            self.buffer.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buffer.len() < need {
            self.buffer.reserve_exact(need - self.buffer.len());
            self.buffer.resize(need, 0);
        }
        loop {
            match source.read(&mut self.buffer[self.end..]) {
                Ok(0) => self.eof = true,
                // A reader that claims more than the space it was given
                // is taken at the space's length.
                Ok(n) => self.end = self.end.saturating_add(n).min(self.buffer.len()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::io::Cursor;
    use std::rc::Rc;

    use super::*;

    /// A reader that cannot seek and reads at most 5 bytes a call.
    struct Stream(Cursor<Vec<u8>>);

    impl Read for Stream {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let len = buf.len().min(5);
            self.0.read(&mut buf[..len])
        }
    }

    /// Every block's bytes and frame, and the error that ended the read.
    type Blocks = (Vec<(Vec<u8>, Option<Frame>)>, Option<(u64, String)>);

    fn read_all(capture: Result<Capture, ReadError>) -> Blocks {
        let mut capture = match capture {
            Ok(capture) => capture,
            Err(e) => return (Vec::new(), Some((e.offset, e.message))),
        };
        let mut blocks = Vec::new();
        loop {
            match capture.next_block() {
                Ok(Some(block)) => blocks.push((block.raw.to_vec(), block.frame)),
                Ok(None) => return (blocks, None),
                Err(e) => return (blocks, Some((e.offset, e.message))),
            }
        }
    }

    /// A modified pcap file: two records of `frame`, the second cut short
    /// by `cut` bytes.
    fn modified(big_endian: bool, frame: &[u8], cut: usize) -> Vec<u8> {
        let word = |v: u32| {
            if big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let mut out = word(MODIFIED).to_vec();
        out.extend(if big_endian {
            [0, 2, 0, 4]
        } else {
            [2, 0, 4, 0]
        });
        out.extend([0; 8]);
        out.extend(word(65535));
        out.extend(word(101));
        for i in 0..2 {
            out.extend(word(i));
            out.extend(word(0));
            out.extend(word(frame.len() as u32));
            out.extend(word(frame.len() as u32 + 4));
            out.extend([1, 2, 3, 4, 8, 0, 4, 0]);
            out.extend(frame);
        }
        out.truncate(out.len() - cut);
        out
    }

    #[test]
    fn a_stream_reads_as_a_seekable_input_does() {
        let frame: Vec<u8> = (0..40).collect();
        for big_endian in [false, true] {
            for cut in [0, 3, 30, 40] {
                let bytes = modified(big_endian, &frame, cut);
                let seekable = read_all(Capture::with_buffer(Cursor::new(bytes.clone()), 32));
                let stream = Capture::stream_with_buffer(Stream(Cursor::new(bytes.clone())), 32);
                assert_eq!(stream.as_ref().map(Capture::size).ok(), Some(0));
                assert_eq!(read_all(stream), seekable);
                let (blocks, end) = seekable;
                // The file header, then records whose data starts at 24.
                assert_eq!(blocks[0].0, bytes[..24]);
                assert_eq!(blocks[0].1, None);
                assert_eq!(
                    blocks[1].1,
                    Some(Frame {
                        link: Some(101),
                        start: 24,
                        len: 40,
                        original_len: 44,
                    })
                );
                assert_eq!(blocks[1].0[24..], frame);
                if cut == 0 {
                    assert_eq!((blocks.len(), end), (3, None));
                } else {
                    assert_eq!(blocks.len(), 2);
                    assert_eq!(end.map(|e| e.0), Some(24 + 64));
                }
            }
        }
        // Too short for a file header, of either format.
        for bytes in [
            &[0xa1, 0xb2, 0xcd, 0x34, 0, 2][..],
            &[0x34, 0xcd, 0xb2, 0xa1],
        ] {
            let (blocks, end) = read_all(Capture::from_stream(Stream(Cursor::new(bytes.into()))));
            assert!(blocks.is_empty());
            assert_eq!(end.map(|e| e.0), Some(0));
        }
    }

    /// The input of a capture being written as it reads: `written` bytes
    /// of `data` so far, handed out at most `chunk` bytes a read, the end
    /// of the input (a read of 0) once all are written. A read with none
    /// to hand out would wait for the writer: it panics, and so does a
    /// read issued once `wanted` bytes have been handed out, the bytes of
    /// the block asked for.
    struct Live {
        data: Vec<u8>,
        chunk: usize,
        /// How many bytes have been handed out.
        read: Rc<Cell<usize>>,
        written: Rc<Cell<usize>>,
        wanted: Rc<Cell<usize>>,
    }

    impl Read for Live {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let (read, written) = (self.read.get(), self.written.get());
            assert!(
                read < self.wanted.get(),
                "a read at byte {read}, though the bytes of the block asked for, to {}, are in",
                self.wanted.get()
            );
            if read == self.data.len() {
                return Ok(0);
            }
            assert!(
                read < written,
                "a read at byte {read} would wait for the writer"
            );
            let len = buf.len().min(self.chunk).min(written - read);
            buf[..len].copy_from_slice(&self.data[read..read + len]);
            self.read.set(read + len);
            Ok(len)
        }
    }

    /// A pcap file, little-endian, of records of `lens` captured bytes.
    fn pcap(lens: &[usize]) -> Vec<u8> {
        let mut out = vec![0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0];
        out.extend([0; 8]);
        out.extend(65535u32.to_le_bytes());
        out.extend(1u32.to_le_bytes());
        for (i, &len) in lens.iter().enumerate() {
            out.extend((i as u32).to_le_bytes());
            out.extend(0u32.to_le_bytes());
            out.extend((len as u32).to_le_bytes());
            out.extend((len as u32).to_le_bytes());
            out.extend((0..len).map(|j| (i + j) as u8));
        }
        out
    }

    /// A pcapng block of `kind` with `body`, padded to 4 bytes.
    fn ng_block(big_endian: bool, kind: u32, body: &[u8]) -> Vec<u8> {
        let word = |v: u32| {
            if big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let len = 12 + body.len().div_ceil(4) * 4;
        let mut out = word(kind).to_vec();
        out.extend(word(len as u32));
        out.extend(body);
        out.resize(len - 4, 0);
        out.extend(word(len as u32));
        out
    }

    /// A pcapng file: a section header, an Ethernet interface, Enhanced
    /// Packet Blocks of `lens` captured bytes, a block of an unknown type.
    fn pcapng(big_endian: bool, lens: &[usize]) -> Vec<u8> {
        let word = |v: u32| {
            if big_endian {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            }
        };
        let mut shb = word(BYTE_ORDER_MAGIC).to_vec();
        shb.extend(if big_endian {
            [0, 1, 0, 0]
        } else {
            [1, 0, 0, 0]
        });
        shb.extend([0xff; 8]);
        let mut out = ng_block(big_endian, SHB, &shb);
        let mut idb = if big_endian {
            [0, 1, 0, 0]
        } else {
            [1, 0, 0, 0]
        }
        .to_vec();
        idb.extend(word(0));
        out.extend(ng_block(big_endian, 1, &idb));
        for (i, &len) in lens.iter().enumerate() {
            let mut epb = word(0).to_vec();
            epb.extend(word(0));
            epb.extend(word(i as u32));
            epb.extend(word(len as u32));
            epb.extend(word(len as u32));
            epb.extend((0..len).map(|j| (i * 3 + j) as u8));
            out.extend(ng_block(big_endian, 6, &epb));
        }
        out.extend(ng_block(big_endian, 0x0000_0101, b"unknown"));
        out
    }

    /// Captures of every format, with blocks of 0 bytes of data to more
    /// than the 64 KiB of a pipe's buffer.
    fn captures() -> Vec<Vec<u8>> {
        let lens = [60, 0, 1514, 7, 70_000, 100, 3];
        let frame: Vec<u8> = (0..90).collect();
        vec![
            pcap(&lens),
            pcapng(false, &lens),
            pcapng(true, &lens),
            modified(false, &frame, 0),
            modified(true, &frame, 0),
        ]
    }

    #[test]
    fn blocks_over_4_mib_that_are_no_packets_stream_in_the_same_chunks() {
        for big_endian in [false, true] {
            let mut bytes = pcapng(big_endian, &[60, 70]);
            let at = bytes.len();
            // A custom block (a frame, as Wireshark counts it) of 5 MiB and
            // a name resolution block of 9 MiB, then a packet.
            let custom: Vec<u8> = (0..5 << 20).map(|i: u32| (i % 251) as u8).collect();
            bytes.extend(ng_block(big_endian, 0x0000_0bad, &custom));
            bytes.extend(ng_block(big_endian, 4, &vec![0; 9 << 20]));
            bytes.extend(&pcapng(big_endian, &[80])[28 + 20..]);
            let seekable = read_all(Capture::from_reader(Cursor::new(bytes.clone())));
            let small = read_all(Capture::with_buffer(Cursor::new(bytes.clone()), 64));
            let stream = read_all(Capture::from_stream(Stream(Cursor::new(bytes.clone()))));
            assert_eq!(seekable, small);
            assert_eq!(seekable, stream);
            let (blocks, end) = seekable;
            assert_eq!(end, None);
            assert_eq!(blocks.concat_raw(), bytes);
            assert!(blocks.iter().all(|(raw, _)| raw.len() <= CHUNK));
            // Three packets and the custom block are frames.
            let frames = blocks.iter().filter(|(_, f)| f.is_some()).count();
            assert_eq!(frames, 4);
            let custom_start = blocks
                .iter()
                .scan(0, |offset, (raw, frame)| {
                    let start = *offset;
                    *offset += raw.len();
                    Some((start, frame))
                })
                .find(|(start, _)| *start == at);
            assert!(custom_start.is_some_and(|(_, frame)| frame.is_some()));

            // A wrong trailing length is an error at the block's start.
            let mut wrong = bytes.clone();
            let last = at + 8 + custom.len();
            wrong[last] ^= 1;
            let (_, end) = read_all(Capture::from_reader(Cursor::new(wrong)));
            let (offset, message) = end.expect("an error");
            assert_eq!(offset, at as u64);
            assert!(message.contains("trailing length"), "{message}");

            // Cut short inside: an error at the block's start too.
            let (_, end) = read_all(Capture::from_reader(Cursor::new(
                bytes[..at + 3_000_000].to_vec(),
            )));
            let (offset, message) = end.expect("an error");
            assert_eq!(offset, at as u64);
            assert!(message.contains("truncated"), "{message}");
        }
    }

    /// A file read through mapped windows gives the blocks, and the
    /// errors, that reading it gives: captures larger than a window, with
    /// blocks across the windows' edges, blocks of 4 MiB and blocks over
    /// 4 MiB that stream; cut short inside a block; and one that grows
    /// after it was opened, read to its new end.
    #[cfg(unix)]
    #[test]
    fn a_mapped_file_reads_as_a_read_one_does() {
        use std::fs;
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("capture");
        // 4.6 MiB, then 2.4 MiB, then many small records: some cross the
        // edge of the first window (8 MiB), some of the second.
        let mut lens = vec![MAX_BLOCK - 16 - 24, 2_500_000];
        lens.extend((0..40_000).map(|i| 1 + i * 7 % 1514));
        lens.push(MAX_BLOCK - 16);
        lens.extend((0..9_000).map(|i| i * 13 % 1514));
        let mut ng = pcapng(false, &[60, 70]);
        ng.extend(ng_block(
            false,
            0x0000_0bad,
            &vec![7; (map::WINDOW * 3) / 2],
        ));
        ng.extend(&pcapng(false, &lens[2..20_000])[28 + 20..]);
        let mut cut = pcap(&lens);
        cut.truncate(cut.len() - 1000);
        for bytes in [pcap(&lens), ng, cut] {
            assert!(bytes.len() > 2 * map::WINDOW);
            fs::write(&file, &bytes).unwrap();
            let mapped = read_all(Capture::open(&file, Access::Map));
            let read = read_all(Capture::open(&file, Access::Read));
            assert!(mapped == read, "mapped and read differ");
            assert!(mapped.0.len() > 20_000);
            let mut rest = Vec::new();
            let mut capture = Capture::open(&file, Access::Map).unwrap();
            capture.next_block().unwrap();
            capture.copy_rest(&mut rest).unwrap();
            assert!(rest == bytes[24..] || rest == bytes[28..], "copy_rest");
        }

        // Appended to after it was opened, in its first window and past it.
        let bytes = pcap(&lens);
        let (start, more) = bytes.split_at(3 << 20);
        let (more, last) = more.split_at(more.len() - 5_000_000);
        fs::write(&file, start).unwrap();
        let mut capture = Capture::open(&file, Access::Map).unwrap();
        let mut out = fs::OpenOptions::new().append(true).open(&file).unwrap();
        out.write_all(more).unwrap();
        let mut blocks = Vec::new();
        let mut last = Some(last);
        while let Some(block) = capture.next_block().unwrap() {
            blocks.extend_from_slice(block.raw);
            if blocks.len() > 5 << 20
                && let Some(last) = last.take()
            {
                out.write_all(last).unwrap();
            }
        }
        assert!(blocks == bytes, "a growing file read to its end");
    }

    /// The raw bytes of blocks, end to end.
    trait ConcatRaw {
        fn concat_raw(&self) -> Vec<u8>;
    }

    impl ConcatRaw for Vec<(Vec<u8>, Option<Frame>)> {
        fn concat_raw(&self) -> Vec<u8> {
            self.iter()
                .flat_map(|(raw, _)| raw.iter().copied())
                .collect()
        }
    }

    #[test]
    fn a_block_is_handed_out_once_its_bytes_are_in() {
        for bytes in captures() {
            let (blocks, end) = read_all(Capture::from_reader(Cursor::new(bytes.clone())));
            assert_eq!(end, None);
            // Where each block ends.
            let ends: Vec<usize> = blocks
                .iter()
                .scan(0, |at, b| {
                    *at += b.0.len();
                    Some(*at)
                })
                .collect();
            assert_eq!(ends.last(), Some(&bytes.len()));
            for chunk in [1, 5, 64, 1 << 20] {
                for buffer in [16, 32, BUFFER] {
                    // The writer is ahead of the block asked for by none
                    // of the next block's bytes, or by half of them.
                    for ahead in [0, 2] {
                        let (read, written, wanted) = (
                            Rc::new(Cell::new(0)),
                            Rc::new(Cell::new(ends[0])),
                            Rc::new(Cell::new(ends[0])),
                        );
                        let live = Live {
                            data: bytes.clone(),
                            chunk,
                            read: Rc::clone(&read),
                            written: Rc::clone(&written),
                            wanted: Rc::clone(&wanted),
                        };
                        // Opening reads the file header or first section
                        // header block only.
                        let mut capture = Capture::stream_with_buffer(live, buffer)
                            .unwrap_or_else(|e| panic!("{e}"));
                        for (i, block) in blocks.iter().enumerate() {
                            let next = ends.get(i + 1).copied().unwrap_or(ends[i]);
                            let half = if ahead == 0 { 0 } else { (next - ends[i]) / 2 };
                            written.set(written.get().max(ends[i] + half));
                            wanted.set(ends[i]);
                            assert_eq!(capture.may_wait(), read.get() < ends[i]);
                            let got = capture.next_block().unwrap_or_else(|e| panic!("{e}"));
                            let got = got.map(|b| (b.raw.to_vec(), b.frame));
                            assert_eq!(got.as_ref(), Some(block));
                            assert_eq!(capture.position(), (ends[i] - block.0.len()) as u64);
                        }
                        // The end of the file, once it is written.
                        written.set(bytes.len());
                        wanted.set(usize::MAX);
                        assert!(capture.may_wait());
                        assert!(capture.next_block().is_ok_and(|b| b.is_none()));
                        assert!(!capture.may_wait());
                        assert_eq!(capture.position(), bytes.len() as u64);
                    }
                }
            }
        }
    }

    #[test]
    fn a_stream_in_pieces_reads_as_a_seekable_input_does() {
        // Blocks larger than the buffer, which grows, up to MAX_BLOCK.
        let mut captures = captures();
        captures.push(pcap(&[BUFFER + 3, 10, MAX_BLOCK - 16, 20]));
        captures.push(pcapng(false, &[10, MAX_BLOCK - 32, BUFFER * 2]));
        for bytes in captures {
            let seekable = read_all(Capture::from_reader(Cursor::new(bytes.clone())));
            assert_eq!(seekable.1, None);
            // Cut in the middle of a block, or of a block's header.
            let cut = read_all(Capture::from_reader(Cursor::new(
                bytes[..bytes.len() - 5].to_vec(),
            )));
            assert!(cut.1.is_some());
            for chunk in [7, 4096, 65536, 1 << 30] {
                for (bytes, expected) in
                    [(&bytes[..], &seekable), (&bytes[..bytes.len() - 5], &cut)]
                {
                    let stream = Live {
                        data: bytes.to_vec(),
                        chunk,
                        read: Rc::default(),
                        written: Rc::new(Cell::new(bytes.len())),
                        wanted: Rc::new(Cell::new(usize::MAX)),
                    };
                    assert_eq!(&read_all(Capture::from_stream(stream)), expected);
                }
            }
        }
    }

    /// A reader that hands out its bytes, then fails.
    struct Failing(Cursor<Vec<u8>>);

    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.read(buf)? {
                0 => Err(io::Error::other("the disk is on fire")),
                n => Ok(n),
            }
        }
    }

    #[test]
    fn a_read_error_names_the_block_that_needed_the_bytes() {
        let bytes = pcap(&[60, 60]);
        let (blocks, end) = read_all(Capture::from_stream(Failing(Cursor::new(
            bytes[..24 + 76 + 10].to_vec(),
        ))));
        assert_eq!(blocks.len(), 2);
        assert_eq!(
            end,
            Some((24 + 76, "read error: the disk is on fire".into()))
        );
        // An error before the file header is whole.
        let (blocks, end) = read_all(Capture::from_stream(Failing(Cursor::new(
            bytes[..20].to_vec(),
        ))));
        assert!(blocks.is_empty());
        assert_eq!(end, Some((0, "corrupt file header: read error".into())));
    }
}
