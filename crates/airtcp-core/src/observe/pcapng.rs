//! A streaming pcapng writer (draft-ietf-opsawg-pcapng, the format Wireshark
//! and tshark read natively): one section, interfaces with nanosecond
//! timestamps, enhanced packet blocks with an optional comment and flags,
//! and a name resolution block. Blocks go straight to the buffered output;
//! nothing is kept per packet.

use std::io::{self, Write};

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 0x0000_0001;
const NRB: u32 = 0x0000_0004;
const EPB: u32 = 0x0000_0006;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;

const OPT_END: u16 = 0;
const OPT_COMMENT: u16 = 1;
const SHB_USERAPPL: u16 = 4;
const IF_NAME: u16 = 2;
const IF_DESCRIPTION: u16 = 3;
const IF_TSRESOL: u16 = 9;
const EPB_FLAGS: u16 = 2;
const NRB_IPV4: u16 = 1;

/// LINKTYPE_RAW: each packet is a bare IPv4 or IPv6 packet.
pub const LINKTYPE_RAW: u16 = 101;

/// `epb_flags` bits: direction (bits 0-1) and the link-layer error bits
/// (24-31) of the pcapng draft's §4.3.1.
pub mod epb_flags {
    pub const INBOUND: u32 = 0b01;
    pub const OUTBOUND: u32 = 0b10;
    /// "CRC error": what a receiver sees of a frame the channel corrupted.
    pub const CRC_ERROR: u32 = 1 << 24;
}

static ZEROS: [u8; 4096] = [0; 4096];

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

/// Length of an option with `value_len` bytes of value, padding included.
fn option_len(value_len: usize) -> usize {
    4 + value_len + pad4(value_len)
}

/// A packet to write: `headers` followed by `zero_payload` zero bytes are
/// the captured data; `original_len` is its length on the wire.
#[derive(Clone, Copy, Debug)]
pub struct EpbPacket<'a> {
    pub interface: u32,
    pub time_ns: u64,
    pub headers: &'a [u8],
    pub zero_payload: u32,
    pub original_len: u32,
    /// `epb_flags` bits.
    pub flags: u32,
    pub comment: Option<&'a str>,
}

pub struct PcapngWriter<W: Write> {
    out: W,
    interfaces: u32,
}

impl<W: Write> PcapngWriter<W> {
    /// Start a section; `application` goes in `shb_userappl`.
    pub fn new(mut out: W, application: &str) -> io::Result<Self> {
        let body = 16 + option_len(application.len()) + 4;
        let total = (12 + body) as u32;
        out.write_all(&SHB.to_le_bytes())?;
        out.write_all(&total.to_le_bytes())?;
        out.write_all(&BYTE_ORDER_MAGIC.to_le_bytes())?;
        out.write_all(&1u16.to_le_bytes())?; // major version
        out.write_all(&0u16.to_le_bytes())?; // minor version
        out.write_all(&(-1i64).to_le_bytes())?; // section length unknown
        write_option(&mut out, SHB_USERAPPL, application.as_bytes())?;
        write_option(&mut out, OPT_END, &[])?;
        out.write_all(&total.to_le_bytes())?;
        Ok(Self { out, interfaces: 0 })
    }

    /// Declare an interface (raw IP, nanosecond timestamps); returns its id.
    pub fn add_interface(
        &mut self,
        name: &str,
        description: &str,
        snaplen: u32,
    ) -> io::Result<u32> {
        let opts = option_len(name.len()) + option_len(description.len()) + option_len(1) + 4;
        let total = (20 + opts) as u32;
        let o = &mut self.out;
        o.write_all(&IDB.to_le_bytes())?;
        o.write_all(&total.to_le_bytes())?;
        o.write_all(&LINKTYPE_RAW.to_le_bytes())?;
        o.write_all(&0u16.to_le_bytes())?;
        o.write_all(&snaplen.to_le_bytes())?;
        write_option(o, IF_NAME, name.as_bytes())?;
        write_option(o, IF_DESCRIPTION, description.as_bytes())?;
        write_option(o, IF_TSRESOL, &[9])?; // 10^-9 s
        write_option(o, OPT_END, &[])?;
        o.write_all(&total.to_le_bytes())?;
        self.interfaces += 1;
        Ok(self.interfaces - 1)
    }

    /// Names for IPv4 addresses (Wireshark shows them with name resolution).
    pub fn name_resolution<'a>(
        &mut self,
        entries: impl Iterator<Item = ([u8; 4], &'a str)> + Clone,
    ) -> io::Result<()> {
        let record_len = |name: &str| option_len(4 + name.len() + 1);
        let records: usize = entries.clone().map(|(_, n)| record_len(n)).sum::<usize>() + 4;
        let total = (12 + records) as u32;
        let o = &mut self.out;
        o.write_all(&NRB.to_le_bytes())?;
        o.write_all(&total.to_le_bytes())?;
        for (addr, name) in entries {
            let len = 4 + name.len() + 1;
            o.write_all(&NRB_IPV4.to_le_bytes())?;
            o.write_all(&(len as u16).to_le_bytes())?;
            o.write_all(&addr)?;
            o.write_all(name.as_bytes())?;
            o.write_all(&[0])?;
            o.write_all(&ZEROS[..pad4(len)])?;
        }
        write_option(o, OPT_END, &[])?; // nrb_record_end has the same shape
        o.write_all(&total.to_le_bytes())?;
        Ok(())
    }

    /// One packet (an enhanced packet block).
    pub fn packet(&mut self, p: &EpbPacket<'_>) -> io::Result<()> {
        let EpbPacket {
            interface,
            time_ns,
            headers,
            zero_payload,
            original_len,
            flags,
            comment,
        } = *p;
        let captured = headers.len() + zero_payload as usize;
        let data_len = captured + pad4(captured);
        let opts = option_len(4) + comment.map_or(0, |c| option_len(c.len())) + 4;
        let total = (32 + data_len + opts) as u32;
        let o = &mut self.out;
        o.write_all(&EPB.to_le_bytes())?;
        o.write_all(&total.to_le_bytes())?;
        o.write_all(&interface.to_le_bytes())?;
        o.write_all(&((time_ns >> 32) as u32).to_le_bytes())?;
        o.write_all(&(time_ns as u32).to_le_bytes())?;
        o.write_all(&(captured as u32).to_le_bytes())?;
        o.write_all(&original_len.to_le_bytes())?;
        o.write_all(headers)?;
        let mut zeros = zero_payload as usize + pad4(captured);
        while zeros > 0 {
            let n = zeros.min(ZEROS.len());
            o.write_all(&ZEROS[..n])?;
            zeros -= n;
        }
        write_option(o, EPB_FLAGS, &flags.to_le_bytes())?;
        if let Some(c) = comment {
            write_option(o, OPT_COMMENT, c.as_bytes())?;
        }
        write_option(o, OPT_END, &[])?;
        o.write_all(&total.to_le_bytes())?;
        Ok(())
    }

    /// Flush and hand back the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

fn write_option(o: &mut impl Write, code: u16, value: &[u8]) -> io::Result<()> {
    o.write_all(&code.to_le_bytes())?;
    o.write_all(&(value.len() as u16).to_le_bytes())?;
    o.write_all(value)?;
    o.write_all(&ZEROS[..pad4(value.len())])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    /// Every block starts and ends with the same total length, a multiple
    /// of 4, and the blocks tile the file exactly (pcapng §3.1).
    #[test]
    fn blocks_tile_the_file() {
        let mut w = PcapngWriter::new(Vec::new(), "airtcp test").unwrap();
        assert_eq!(w.add_interface("a->b", "link a->b", 0).unwrap(), 0);
        w.name_resolution([([10, 0, 0, 1], "a"), ([10, 0, 0, 2], "bb")].into_iter())
            .unwrap();
        w.packet(&EpbPacket {
            interface: 0,
            time_ns: 1_500_000_000,
            headers: &[0x45; 21],
            zero_payload: 3,
            original_len: 1000,
            flags: 2,
            comment: Some("dropped"),
        })
        .unwrap();
        let b = w.finish().unwrap();
        let mut at = 0;
        let mut types = Vec::new();
        while at < b.len() {
            let total = u32_at(&b, at + 4) as usize;
            assert_eq!(total % 4, 0);
            assert_eq!(u32_at(&b, at + total - 4) as usize, total);
            types.push(u32_at(&b, at));
            at += total;
        }
        assert_eq!(at, b.len());
        assert_eq!(types, vec![SHB, IDB, NRB, EPB]);
    }

    #[test]
    fn packet_times_are_nanoseconds_split_high_low() {
        let mut w = PcapngWriter::new(Vec::new(), "x").unwrap();
        w.add_interface("i", "", 0).unwrap();
        let t: u64 = 0x1_0000_0002;
        let start = {
            let b = w.finish().unwrap();
            b.len()
        };
        let mut w = PcapngWriter::new(Vec::new(), "x").unwrap();
        w.add_interface("i", "", 0).unwrap();
        w.packet(&EpbPacket {
            interface: 0,
            time_ns: t,
            headers: &[1, 2, 3, 4],
            zero_payload: 0,
            original_len: 60,
            flags: 0,
            comment: None,
        })
        .unwrap();
        let b = w.finish().unwrap();
        assert_eq!(u32_at(&b, start + 12), 1);
        assert_eq!(u32_at(&b, start + 16), 2);
        assert_eq!(u32_at(&b, start + 20), 4, "captured length");
        assert_eq!(u32_at(&b, start + 24), 60, "original length");
    }
}
