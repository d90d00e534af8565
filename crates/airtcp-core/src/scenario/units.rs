//! Quantities with units, as they appear in scenario files: "10Mbps",
//! "30ms", "1500B", "50KB", "50pkt".
//!
//! The one rule for spelling (docs/scenario.md, "Units"): a quantity is a
//! decimal number (an exponent is allowed: "1e-3s") followed by its unit,
//! with at most one space between them and no other whitespace, and units
//! are **case-sensitive**, spelled as SI writes them: a prefix `k` (also
//! `K`), `M`, `G`, `T` (powers of 1000) or, for sizes only, `Ki`, `Mi`,
//! `Gi`, `Ti` (powers of 1024), then the base unit: `bps` or `b/s` for
//! rates, `B` for sizes. Durations are `ns`, `us`, `ms`, `s`, `min`;
//! queue lengths in packets are `pkt`. "10mbps" (millibits) and "10Mb"
//! (a size in bits) are errors that suggest the right spelling. A bare
//! number is an error (the unit is required), so a file never silently
//! means seconds where it said milliseconds.
//!
//! Conversions are checked: a value too large for its field's range is an
//! error, never a wrap or a clamp, and a non-zero value that would round
//! to zero (a duration below 1 ns, a rate below 1 bit/s, "1e-400ms") is an
//! error too, never read as 0.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

use crate::sim::{TimeNs, NS_PER_S};

/// Longest duration any field accepts: 10^7 s (about 116 days). Event
/// times are sums of a handful of durations in u64 nanoseconds (at most
/// 1.8e19, 584 years); with every term below 1e16 ns no sum can wrap.
pub const MAX_DURATION_NS: TimeNs = 10_000_000 * NS_PER_S;
/// Fastest rate: 10 Tb/s. One byte then takes under a nanosecond, the
/// clock's resolution; faster links would all look alike.
pub const MAX_RATE_BPS: u64 = 10_000_000_000_000;
/// Largest size: 10^15 B (1 PB), far beyond any transfer a packet-level
/// run can finish, and small enough that byte counters never overflow.
pub const MAX_SIZE_BYTES: u64 = 1_000_000_000_000_000;

/// Split "12.5ms" (or "12.5 ms") into (12.5, "ms"). The number may use an
/// exponent ("1e-5s", "2.5E6bps"): the unit is the trailing run of letters
/// (and '/') that does not belong to the number. `Ok(None)` when `s` is
/// not a number and a unit.
///
/// The one rule for spacing (docs/scenario.md, "Units"): at most one space
/// (U+0020) between the number and the unit, and nothing around them. Any
/// other whitespace is an error rather than skipped, so a value such as
/// "10\nMbps" (TOML allows the escape) is reported, not read as 10 Mb/s.
fn split_number(s: &str) -> Result<Option<(f64, &str)>, String> {
    let unit_start = s
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphabetic() || *c == '/')
        .last()
        .map_or(s.len(), |(i, _)| i);
    let (num, unit) = s.split_at(unit_start);
    let num = num.strip_suffix(' ').unwrap_or(num);
    if s.starts_with(char::is_whitespace)
        || num.ends_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace)
    {
        let odd_space = |c: &char| c.is_whitespace() && *c != ' ';
        // Shown escaped: a no-break space (pasted from a PDF) looks like
        // the one space allowed, and the message says which it is.
        let shown = super::escape_where(s, |c| odd_space(&c));
        let which = match s.chars().find(odd_space) {
            Some(c) => format!("; it holds U+{:04X}, not a space", c as u32),
            None => " (\"10Mbps\" or \"10 Mbps\")".to_string(),
        };
        return Err(format!(
            "\"{shown}\": write the number and its unit with at most one space between them and no \
             other whitespace{which}"
        ));
    }
    // A bare number (including "1e5", whose "e5" looks like a unit) has no unit.
    if let Some(v) = parse_finite_number(s) {
        return Ok(Some((v, "")));
    }
    Ok(parse_finite_number(num).map(|v| (v, unit)))
}

/// A decimal number as Rust's f64 parser reads it, but not "inf" or "nan"
/// (they are not numbers a scenario can mean) and not an underflow: a
/// literal with a non-zero digit that parses to 0 ("1e-400") is returned
/// as the smallest positive f64 so that the range checks reject it.
fn parse_finite_number(s: &str) -> Option<f64> {
    if !s.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '+' | '-' | '.')) {
        return None;
    }
    let v: f64 = s.parse().ok()?;
    if v == 0.0 {
        let mantissa = s.split(['e', 'E']).next().unwrap_or("");
        if mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
            return Some(f64::MIN_POSITIVE.copysign(v));
        }
    }
    Some(v)
}

/// `v` units of `scale` base units, rounded to a whole base unit, checked
/// against `max`. `what` names the quantity in errors ("duration \"1e300s\"").
fn to_whole(v: f64, scale: f64, max: u64, what: &str, max_text: &str) -> Result<u64, String> {
    if v < 0.0 {
        return Err(format!("{what} must not be negative"));
    }
    let x = v * scale;
    if !x.is_finite() || x > max as f64 {
        return Err(format!("{what} is too large (at most {max_text})"));
    }
    Ok(x.round() as u64)
}

const DURATION_UNITS: &str = "ns, us, ms, s or min";

pub fn parse_duration_ns(s: &str) -> Result<TimeNs, String> {
    let (v, unit) = split_number(s)?
        .ok_or_else(|| format!("expected a duration like \"30ms\", got \"{s}\""))?;
    let scale = match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        "" => {
            return Err(format!(
                "duration \"{s}\" has no unit (use {DURATION_UNITS})"
            ))
        }
        u => {
            return Err(format!(
                "unknown duration unit \"{u}\" in \"{s}\"{} (use {DURATION_UNITS})",
                case_hint(u, &["ns", "us", "ms", "s", "min"])
            ))
        }
    };
    let what = format!("duration \"{s}\"");
    let ns = to_whole(
        v,
        scale,
        MAX_DURATION_NS,
        &what,
        "10000000s, about 116 days",
    )?;
    if ns == 0 && v != 0.0 {
        return Err(format!("{what} is below 1ns, the clock's resolution"));
    }
    Ok(ns)
}

/// Decimal prefixes: "" 1, k/K 1e3, M 1e6, G 1e9, T 1e12.
fn decimal_prefix(p: &str) -> Option<f64> {
    Some(match p {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => return None,
    })
}

/// Binary prefixes (sizes only): Ki, Mi, Gi, Ti.
fn binary_prefix(p: &str) -> Option<f64> {
    Some(match p {
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

/// ", did you mean \"Mbps\"?" when `unit` is one of `valid` in another case.
fn case_hint(unit: &str, valid: &[&str]) -> String {
    valid
        .iter()
        .find(|v| v.eq_ignore_ascii_case(unit))
        .map_or(String::new(), |v| {
            format!(" (units are case-sensitive: did you mean \"{v}\"?)")
        })
}

const RATE_UNITS: &str = "bps, kbps, Mbps, Gbps or Tbps; or b/s, kb/s, Mb/s, Gb/s, Tb/s";
const RATE_SPELLINGS: &[&str] = &[
    "bps", "kbps", "Mbps", "Gbps", "Tbps", "b/s", "kb/s", "Mb/s", "Gb/s", "Tb/s",
];

pub fn parse_rate_bps(s: &str) -> Result<u64, String> {
    let (v, unit) =
        split_number(s)?.ok_or_else(|| format!("expected a rate like \"10Mbps\", got \"{s}\""))?;
    if unit.is_empty() {
        return Err(format!("rate \"{s}\" has no unit (use {RATE_UNITS})"));
    }
    let scale = unit
        .strip_suffix("bps")
        .or_else(|| unit.strip_suffix("b/s"))
        .and_then(decimal_prefix)
        .ok_or_else(|| {
            format!(
                "unknown rate unit \"{unit}\" in \"{s}\"{} (use {RATE_UNITS})",
                case_hint(unit, RATE_SPELLINGS)
            )
        })?;
    if v <= 0.0 {
        return Err(format!("rate \"{s}\" must be positive"));
    }
    let what = format!("rate \"{s}\"");
    let bps = to_whole(v, scale, MAX_RATE_BPS, &what, "10Tbps")?;
    if bps == 0 {
        return Err(format!("{what} is below 1bps"));
    }
    Ok(bps)
}

const SIZE_UNITS: &str = "B, kB, MB, GB, TB, KiB, MiB, GiB or TiB";
const SIZE_SPELLINGS: &[&str] = &[
    "B", "kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB",
];

pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (v, unit) =
        split_number(s)?.ok_or_else(|| format!("expected a size like \"1500B\", got \"{s}\""))?;
    if unit.is_empty() {
        return Err(format!("size \"{s}\" has no unit (use {SIZE_UNITS})"));
    }
    let scale = unit
        .strip_suffix('B')
        .and_then(|p| decimal_prefix(p).or_else(|| binary_prefix(p)))
        .ok_or_else(|| {
            format!(
                "unknown size unit \"{unit}\" in \"{s}\"{} (use {SIZE_UNITS})",
                case_hint(unit, SIZE_SPELLINGS)
            )
        })?;
    let what = format!("size \"{s}\"");
    let bytes = to_whole(v, scale, MAX_SIZE_BYTES, &what, "1000TB")?;
    if (v * scale - bytes as f64).abs() > 1e-6 * (bytes as f64).max(1.0) {
        return Err(format!("{what} is not a whole number of bytes"));
    }
    Ok(bytes)
}

macro_rules! string_quantity {
    ($name:ident, $inner:ty, $parse:path, $expect:literal) => {
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(E::custom)
                    }
                    fn visit_i64<E: de::Error>(self, v: i64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "{v} has no unit: write it as a string like {}",
                            $expect
                        )))
                    }
                    fn visit_u64<E: de::Error>(self, v: u64) -> Result<$name, E> {
                        self.visit_i64(v as i64)
                    }
                    fn visit_f64<E: de::Error>(self, v: f64) -> Result<$name, E> {
                        Err(E::custom(format!(
                            "{v} has no unit: write it as a string like {}",
                            $expect
                        )))
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

string_quantity!(Duration, TimeNs, parse_duration_ns, "\"30ms\"");
string_quantity!(Rate, u64, parse_rate_bps, "\"10Mbps\"");
string_quantity!(Size, u64, parse_bytes, "\"1500B\"");

/// A probability in [0, 1].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Probability(pub f64);

impl<'de> Deserialize<'de> for Probability {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = f64::deserialize(d)?;
        if (0.0..=1.0).contains(&v) {
            Ok(Probability(v))
        } else {
            Err(de::Error::custom(format!(
                "probability {v} is outside [0, 1]"
            )))
        }
    }
}

/// A queue capacity: "50pkt" or a byte size ("64KB").
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum QueueCapacity {
    Packets(u32),
    Bytes(u64),
}

pub fn parse_queue_capacity(s: &str) -> Result<QueueCapacity, String> {
    if let Some((v, unit)) = split_number(s)? {
        if matches!(unit, "pkt" | "pkts") {
            if v < 0.0 || v.fract() != 0.0 {
                return Err(format!(
                    "\"{s}\" is not a whole number of packets: write a limit like \"50pkt\" or \"64KB\""
                ));
            }
            if v > u32::MAX as f64 {
                return Err(format!("\"{s}\" is more than {} packets", u32::MAX));
            }
            return Ok(QueueCapacity::Packets(v as u32));
        }
    }
    parse_bytes(s)
        .map(QueueCapacity::Bytes)
        .map_err(|e| format!("{e}; or give packets like \"50pkt\""))
}

string_quantity!(
    QueueLimitSpec,
    QueueCapacity,
    parse_queue_capacity,
    "\"50pkt\" or \"64KB\""
);

/// A seed in [0, 2^64): a TOML integer (which stops at 2^63 - 1) or a
/// string of decimal digits for the upper half.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seed(pub u64);

impl Default for Seed {
    fn default() -> Self {
        Seed(1)
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        const RANGE: &str = "a seed must be an integer in [0, 2^64)";
        impl<'de> Visitor<'de> for V {
            type Value = Seed;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(RANGE)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Seed, E> {
                u64::try_from(v)
                    .map(Seed)
                    .map_err(|_| E::custom(format!("{RANGE}, got {v}")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Seed, E> {
                Ok(Seed(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Seed, E> {
                Err(E::custom(format!("{RANGE}, got {v}")))
            }
            /// Decimal digits and nothing else: no whitespace, sign or
            /// underscore is trimmed or skipped (a seed is never fixed up).
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Seed, E> {
                if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(E::custom(format!(
                        "a seed written as a string must be decimal digits only (no spaces or sign), \
                         got \"{s}\""
                    )));
                }
                s.parse::<u64>()
                    .map(Seed)
                    .map_err(|_| E::custom(format!("{RANGE}, got \"{s}\"")))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("30ms"), Ok(30_000_000));
        assert_eq!(parse_duration_ns("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration_ns("10us"), Ok(10_000));
        assert_eq!(parse_duration_ns("0s"), Ok(0));
        assert!(parse_duration_ns("30").unwrap_err().contains("no unit"));
        assert!(parse_duration_ns("30 parsecs")
            .unwrap_err()
            .contains("unknown duration unit"));
        assert!(parse_duration_ns("-1s").unwrap_err().contains("negative"));
    }

    /// Issue 13 case 3: oversized values are errors, never wrapped or
    /// clamped; a tiny non-zero value is never read as zero.
    #[test]
    fn out_of_range_is_an_error_not_a_wrap_or_a_clamp() {
        assert_eq!(parse_duration_ns("10000000s"), Ok(MAX_DURATION_NS));
        for s in ["1.845e10s", "1e300s", "10000001s", "1e400s"] {
            let e = parse_duration_ns(s).unwrap_err();
            assert!(e.contains("too large"), "{s}: {e}");
        }
        for s in ["1e-400ms", "0.4ns", "1e-12s"] {
            let e = parse_duration_ns(s).unwrap_err();
            assert!(e.contains("below 1ns"), "{s}: {e}");
        }
        let e = parse_rate_bps("1e300Gbps").unwrap_err();
        assert!(e.contains("too large (at most 10Tbps)"), "{e}");
        assert_eq!(parse_rate_bps("10Tbps"), Ok(MAX_RATE_BPS));
        assert!(parse_rate_bps("0.4bps").unwrap_err().contains("below 1bps"));
        assert!(parse_bytes("1e300B").unwrap_err().contains("too large"));
        assert!(parse_bytes("1.5B").unwrap_err().contains("whole number"));
        assert_eq!(parse_bytes("1.5KB"), Ok(1500));
        for s in ["inf s", "NaNs", "infs"] {
            assert!(parse_duration_ns(s).is_err(), "{s}");
        }
    }

    /// One rule for spelling: case-sensitive SI units, a hint when only
    /// the case is wrong.
    #[test]
    fn units_are_case_sensitive_with_a_hint() {
        assert_eq!(parse_rate_bps("10Mb/s"), parse_rate_bps("10Mbps"));
        assert_eq!(parse_rate_bps("64kb/s"), Ok(64_000));
        assert_eq!(parse_rate_bps("64Kbps"), Ok(64_000));
        for s in ["10mbps", "10mb/s", "10MBPS", "1gbps"] {
            let e = parse_rate_bps(s).unwrap_err();
            assert!(e.contains("case-sensitive"), "{s}: {e}");
        }
        assert!(parse_rate_bps("10MB")
            .unwrap_err()
            .contains("unknown rate unit"));
        assert!(parse_bytes("10mb")
            .unwrap_err()
            .contains("did you mean \"MB\""));
        assert!(parse_bytes("10Mb")
            .unwrap_err()
            .contains("unknown size unit"));
        assert!(parse_duration_ns("10MS")
            .unwrap_err()
            .contains("did you mean \"ms\""));
        assert_eq!(parse_bytes("1TiB"), Ok(1 << 40));
    }

    /// docs/scenario.md, "Units": the number, optionally one space, then
    /// the unit. Any other whitespace (a tab, a newline, two spaces, a
    /// space before or after the quantity) is an error, never skipped:
    /// `"10\nMbps"` is a mistake, not 10 Mb/s.
    #[test]
    fn at_most_one_space_between_number_and_unit() {
        assert_eq!(parse_rate_bps("10 Mbps"), Ok(10_000_000));
        assert_eq!(parse_duration_ns("30 ms"), Ok(30_000_000));
        assert_eq!(parse_bytes("1.5 KB"), Ok(1500));
        assert_eq!(
            parse_queue_capacity("50 pkt"),
            Ok(QueueCapacity::Packets(50))
        );
        for s in [
            "10\nMbps",
            "10\tMbps",
            "10  Mbps",
            "10\r\nMbps",
            " 10Mbps",
            "10Mbps ",
            "10Mbps\n",
            "\t10Mbps",
            "10\u{a0}Mbps",
            "10 \nMbps",
        ] {
            let e = parse_rate_bps(s).unwrap_err();
            assert!(e.contains("one space"), "{s:?}: {e}");
        }
        // A no-break space (pasted from a PDF) looks like the one space
        // allowed: the message names it, and escapes it.
        let e = parse_rate_bps("10\u{a0}Mbps").unwrap_err();
        assert!(e.starts_with("\"10\\u{a0}Mbps\": "), "{e}");
        assert!(e.ends_with("; it holds U+00A0, not a space"), "{e}");
        let e = parse_rate_bps("10\nMbps").unwrap_err();
        assert!(e.starts_with("\"10\\nMbps\": "), "{e}");
        assert!(e.ends_with("; it holds U+000A, not a space"), "{e}");
        let e = parse_rate_bps("10  Mbps").unwrap_err();
        assert!(e.ends_with("(\"10Mbps\" or \"10 Mbps\")"), "{e}");
        for s in ["30\nms", "30\tms", " 30ms"] {
            let e = parse_duration_ns(s).unwrap_err();
            assert!(e.contains("one space"), "{s:?}: {e}");
        }
        for s in ["1500\nB", "1500B\n"] {
            let e = parse_bytes(s).unwrap_err();
            assert!(e.contains("one space"), "{s:?}: {e}");
        }
        for s in ["50\npkt", "50pkt "] {
            let e = parse_queue_capacity(s).unwrap_err();
            assert!(e.contains("one space"), "{s:?}: {e}");
        }
    }

    #[test]
    fn rates_and_sizes() {
        assert_eq!(parse_rate_bps("64kbps"), Ok(64_000));
        assert_eq!(parse_rate_bps("10Mbps"), Ok(10_000_000));
        assert!(parse_rate_bps("0Mbps").unwrap_err().contains("positive"));
        assert!(parse_rate_bps("-5Mbps").unwrap_err().contains("positive"));
        assert_eq!(parse_bytes("50KB"), Ok(50_000));
        assert_eq!(parse_bytes("1KiB"), Ok(1024));
        assert_eq!(
            parse_queue_capacity("50pkt"),
            Ok(QueueCapacity::Packets(50))
        );
        assert_eq!(
            parse_queue_capacity("64KB"),
            Ok(QueueCapacity::Bytes(64_000))
        );
        assert!(parse_queue_capacity("2.5pkt").is_err());
        assert!(parse_queue_capacity("5000000000pkt").is_err());
    }
}
