//! Quantities with units, as they appear in scenario files: "10Mbps",
//! "30ms", "1500B", "50KB", "50pkt". A bare number is an error (the unit is
//! required), so a file never silently means seconds where it said
//! milliseconds. Decimal prefixes: 1 KB = 1000 B, 1 KiB = 1024 B.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

use crate::sim::TimeNs;

/// Split "12.5ms" into (12.5, "ms"). The number may use an exponent
/// ("1e-5s", "2.5E6bps"): the unit is the trailing run of letters (and
/// '/') that does not belong to the number.
fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let unit_start = s
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphabetic() || *c == '/')
        .last()
        .map_or(s.len(), |(i, _)| i);
    // A bare number has no unit.
    if let Ok(v) = s.parse::<f64>() {
        return Some((v, ""));
    }
    let (num, unit) = s.split_at(unit_start);
    let v: f64 = num.trim().parse().ok()?;
    Some((v, unit.trim()))
}

pub fn parse_duration_ns(s: &str) -> Result<TimeNs, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("expected a duration like \"30ms\", got \"{s}\""))?;
    let scale = match unit {
        "ns" => 1.0,
        "us" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "min" => 60e9,
        "" => {
            return Err(format!(
                "duration \"{s}\" has no unit (use ns, us, ms, s or min)"
            ))
        }
        u => {
            return Err(format!(
                "unknown duration unit \"{u}\" in \"{s}\" (use ns, us, ms, s or min)"
            ))
        }
    };
    if !v.is_finite() || v < 0.0 {
        return Err(format!("duration \"{s}\" must not be negative"));
    }
    Ok((v * scale).round() as TimeNs)
}

pub fn parse_rate_bps(s: &str) -> Result<u64, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("expected a rate like \"10Mbps\", got \"{s}\""))?;
    let scale = match unit {
        "bps" | "b/s" => 1.0,
        "kbps" | "Kbps" | "kb/s" => 1e3,
        "Mbps" | "mbps" | "Mb/s" => 1e6,
        "Gbps" | "gbps" | "Gb/s" => 1e9,
        "" => {
            return Err(format!(
                "rate \"{s}\" has no unit (use bps, kbps, Mbps or Gbps)"
            ))
        }
        u => {
            return Err(format!(
                "unknown rate unit \"{u}\" in \"{s}\" (use bps, kbps, Mbps or Gbps)"
            ))
        }
    };
    let bps = (v * scale).round();
    if !bps.is_finite() || bps <= 0.0 {
        return Err(format!("rate \"{s}\" must be positive"));
    }
    Ok(bps as u64)
}

pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (v, unit) =
        split_number(s).ok_or_else(|| format!("expected a size like \"1500B\", got \"{s}\""))?;
    let scale = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024.0 * 1024.0,
        "" => {
            return Err(format!(
                "size \"{s}\" has no unit (use B, KB, MB, KiB or MiB)"
            ))
        }
        u => {
            return Err(format!(
                "unknown size unit \"{u}\" in \"{s}\" (use B, KB, MB, KiB or MiB)"
            ))
        }
    };
    if !v.is_finite() || v < 0.0 {
        return Err(format!("size \"{s}\" must not be negative"));
    }
    Ok((v * scale).round() as u64)
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
    let t = s.trim();
    for suffix in ["pkts", "pkt", "packets", "p"] {
        if let Some(n) = t.strip_suffix(suffix) {
            return n
                .trim()
                .parse::<u32>()
                .map(QueueCapacity::Packets)
                .map_err(|_| {
                    format!("expected a whole number of packets like \"50pkt\", got \"{s}\"")
                });
        }
    }
    parse_bytes(t)
        .map(QueueCapacity::Bytes)
        .map_err(|e| format!("{e}; or give packets like \"50pkt\""))
}

string_quantity!(
    QueueLimitSpec,
    QueueCapacity,
    parse_queue_capacity,
    "\"50pkt\" or \"64KB\""
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("30ms"), Ok(30_000_000));
        assert_eq!(parse_duration_ns("1.5s"), Ok(1_500_000_000));
        assert_eq!(parse_duration_ns("10us"), Ok(10_000));
        assert!(parse_duration_ns("30").unwrap_err().contains("no unit"));
        assert!(parse_duration_ns("30 parsecs")
            .unwrap_err()
            .contains("unknown duration unit"));
        assert!(parse_duration_ns("-1s").unwrap_err().contains("negative"));
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
    }
}
