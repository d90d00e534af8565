//! WMECN's routers and the echo of their marks (Sridharan, Durresi, Liu,
//! Jain, "Wireless TCP Enhancements Using Multi-level ECN", §2.1, §2.2,
//! §3.1, §5.1; `/work/shared/seeds/001_21e3b6fa936672a2.txt`). Each test
//! offers packets to a queue one by one, or segments to a receiver, and
//! checks every outcome exactly: the level each packet leaves with, or its
//! drop. The random tests are checked draw by draw against a copy of the
//! queue's random stream (one uniform draw per packet in a random region),
//! so a packet is marked exactly when its draw falls below the probability
//! the document's rule gives.

use airtcp_core::net::mecn::MecnLevel;
use airtcp_core::net::packet::{flags, DeathCause, Ecn, Packet, PacketKind};
use airtcp_core::net::queue::{
    Admission, Mecn, MultiLevelConfig, NotEctPolicy, QueueLimit, QueueOccupancy, Wmecn,
};
use airtcp_core::sim::rng::RandomStream;
use airtcp_core::tcp::mecn::echoed_level;
use airtcp_core::tcp::receiver::{ReceiverConfig, TcpReceiver};

const MIN_TH: f64 = 5.0;
const MID_TH: f64 = 10.0;
const MAX_TH: f64 = 15.0;
const P_MAX: f64 = 0.3;
const LIMIT: u32 = 50;

/// Thresholds 5 / 10 / 15 packets, a 50-packet buffer, EWMA weight `weight`.
fn config(weight: f64) -> MultiLevelConfig {
    MultiLevelConfig {
        limit: QueueLimit::Packets(LIMIT),
        min_th_pkts: MIN_TH,
        mid_th_pkts: MID_TH,
        max_th_pkts: MAX_TH,
        weight,
        mean_pkt_bytes: 1000,
    }
}

/// A WMECN queue whose average stays where it is set (weight 0).
fn wmecn_held() -> Wmecn {
    Wmecn::new(config(0.0), P_MAX, 8_000_000)
}

fn data(ecn: Ecn) -> Packet {
    Packet {
        kind: PacketKind::TcpData,
        ecn,
        payload_len: 960,
        ..Default::default()
    }
}

fn occ(len: u32) -> QueueOccupancy {
    QueueOccupancy {
        len_pkts: len,
        len_bytes: len as u64 * 1000,
        idle_since_ns: None,
    }
}

/// What happened to one offered packet: dropped (and why), or admitted
/// with this level.
#[derive(Clone, Debug, PartialEq)]
enum Fate {
    Dropped(DeathCause),
    Level(MecnLevel),
}

fn offer(admit: impl FnOnce(&mut Packet) -> Admission, ecn: Ecn) -> Fate {
    let mut p = data(ecn);
    match admit(&mut p) {
        Admission::Drop(c) => Fate::Dropped(c),
        Admission::Enqueue => {
            assert_eq!(p.ecn, ecn, "an unmarked packet leaves as it came");
            Fate::Level(MecnLevel::of_ip(p.ecn))
        }
        Admission::EnqueueMarked => Fate::Level(MecnLevel::of_ip(p.ecn)),
    }
}

/// Offer `n` packets carrying `ecn` to `q` with its average held at `avg`;
/// `expect(u)` is the fate the document gives a packet whose uniform draw
/// is `u` (the copy `mirror` of the queue's stream), or `None` where the
/// region has no random test (no draw).
fn offer_each(
    q: &mut Wmecn,
    avg: f64,
    ecn: Ecn,
    n: usize,
    expect: impl Fn(Option<f64>) -> Fate,
    random: bool,
) -> Vec<Fate> {
    let mut rng = RandomStream::new(11, "wmecn-router");
    let mut mirror = rng.clone();
    let mut fates = Vec::new();
    for i in 0..n {
        q.core.set_avg(avg);
        let u = random.then(|| mirror.uniform());
        let fate = offer(|p| q.admit(0, occ(avg as u32), p, &mut rng), ecn);
        assert_eq!(fate, expect(u), "avg {avg}, packet {i}, draw {u:?}");
        fates.push(fate);
    }
    fates
}

/// §3.1's "maximum of probability of P_max" read as RED's ramp: 0 at the
/// region's lower threshold, P_max at its upper one (the choice documented
/// in `net/queue/wmecn.rs` and docs/reproductions/wmecn.md).
fn ramp(avg: f64, lo: f64, hi: f64) -> f64 {
    P_MAX * (avg - lo) / (hi - lo)
}

/// The fate of a packet its random draw decides: `hit` when the draw is
/// below `p`, `miss` otherwise (for [`offer_each`]).
fn by_draw(p: f64, hit: Fate, miss: Fate) -> impl Fn(Option<f64>) -> Fate {
    move |u| {
        if u.unwrap() < p {
            hit.clone()
        } else {
            miss.clone()
        }
    }
}

/// §2.1 and Table 1: "The non ECN-capable packets are identified by '00',
/// and it uses the other combinations to indicate three different levels
/// of congestion"; Table 1: "01 No Congestion 0, 10 Mild Congestion 1,
/// 11 Severe Congestion 2". The level is the IP ECN field bit for bit, and
/// the source's weight is Table 1's.
#[test]
fn s2_1_table_1_code_points_and_weights() {
    for (bits, ecn, level, weight) in [
        (0b00, Ecn::NotEct, MecnLevel::NotCapable, None),
        (0b01, Ecn::Ect1, MecnLevel::NoCongestion, Some(0)),
        (0b10, Ecn::Ect0, MecnLevel::Incipient, Some(1)),
        (0b11, Ecn::Ce, MecnLevel::Moderate, Some(2)),
    ] {
        assert_eq!(ecn as u8, bits);
        assert_eq!(MecnLevel::of_ip(ecn), level);
        assert_eq!(level.to_ip(), ecn);
        assert_eq!(level.weight(), weight, "{bits:02b}");
    }
}

/// §3.1, Fig. 2, below min_th: marking starts only "if the average queue is
/// between min_th and mid_th"; below it no packet is marked (and none is
/// dropped, ECN-capable or not, while the buffer has room).
#[test]
fn s3_1_below_min_th_no_packet_is_marked() {
    let mut q = wmecn_held();
    for avg in [0.0, 2.5, 4.99] {
        offer_each(
            &mut q,
            avg,
            Ecn::Ect1,
            200,
            |_| Fate::Level(MecnLevel::NoCongestion),
            false,
        );
        offer_each(
            &mut q,
            avg,
            Ecn::NotEct,
            200,
            |_| Fate::Level(MecnLevel::NotCapable),
            false,
        );
    }
    assert_eq!((q.core.marks_incipient, q.core.marks_moderate), (0, 0));
}

/// §3.1: "If the average queue is between min_th and mid_th, then the
/// packets are marked with '10' with a maximum of probability of P_max."
/// Each packet is marked `10` exactly when its draw is below
/// P_max (avg - min_th) / (mid_th - min_th); never `11`.
#[test]
fn s3_1_between_min_th_and_mid_th_10_with_probability_up_to_p_max() {
    let mut q = wmecn_held();
    let mut marked = 0;
    for avg in [5.0, 6.0, 7.5, 9.0, 9.999] {
        let p = ramp(avg, MIN_TH, MID_TH);
        let fates = offer_each(
            &mut q,
            avg,
            Ecn::Ect1,
            400,
            by_draw(
                p,
                Fate::Level(MecnLevel::Incipient),
                Fate::Level(MecnLevel::NoCongestion),
            ),
            true,
        );
        marked += fates
            .iter()
            .filter(|f| **f == Fate::Level(MecnLevel::Incipient))
            .count();
    }
    assert!(marked > 0, "the region marks some packets");
    assert_eq!(q.core.marks_incipient, marked as u64);
    assert_eq!(q.core.marks_moderate, 0);
}

/// §3.1: "If the average queue is between mid_th and max_th, then the
/// packets are marked with '11' with a maximum of probability of P_max and
/// the packets that are not marked with '11' are deterministically with
/// '10' ... so that all packets that reach the router after mid_th get
/// some kind of mark for sure." Each packet is `11` exactly when its draw
/// is below P_max (avg - mid_th) / (max_th - mid_th), otherwise `10`.
#[test]
fn s3_1_between_mid_th_and_max_th_11_with_probability_up_to_p_max_else_10() {
    let mut q = wmecn_held();
    for avg in [10.0, 11.0, 12.5, 14.999] {
        let p = ramp(avg, MID_TH, MAX_TH);
        let fates = offer_each(
            &mut q,
            avg,
            Ecn::Ect1,
            400,
            by_draw(
                p,
                Fate::Level(MecnLevel::Moderate),
                Fate::Level(MecnLevel::Incipient),
            ),
            true,
        );
        if avg == 10.0 {
            assert!(fates
                .iter()
                .all(|f| *f == Fate::Level(MecnLevel::Incipient)));
        }
    }
}

/// §3.1: "And if the average queue is greater than max_th all packets are
/// marked with '11'." (At max_th itself too: the `11` ramp has reached
/// P_max there and the region above marks everything.)
#[test]
fn s3_1_above_max_th_every_packet_is_marked_11() {
    let mut q = wmecn_held();
    for avg in [15.0, 20.0, 49.0] {
        offer_each(
            &mut q,
            avg,
            Ecn::Ect1,
            200,
            |_| Fate::Level(MecnLevel::Moderate),
            false,
        );
    }
    assert_eq!(q.core.marks_moderate, 600);
}

/// §2.1: MECN "uses the other combinations to indicate three different
/// levels of congestion": a router adds congestion information, it never
/// removes it. A packet that already carries `11` (set by an earlier
/// router) leaves `11` where this router would mark it `10`, at random
/// below mid_th or deterministically above it.
#[test]
fn s2_1_a_mark_never_lowers_a_packets_level() {
    let mut q = wmecn_held();
    for avg in [7.0, 12.0] {
        offer_each(
            &mut q,
            avg,
            Ecn::Ce,
            200,
            |_| Fate::Level(MecnLevel::Moderate),
            true,
        );
    }
}

/// §5.1: "The weight used for queue averaging is alpha = 0.002": RED's
/// average (Floyd & Jacobson 1993, the document's reference 10), updated
/// at every arrival, avg <- (1 - 0.002) avg + 0.002 q, and aged over an
/// idle period as if one packet per typical transmission time had arrived
/// to the empty queue. The arrival is marked on the average it has just
/// updated.
#[test]
fn s5_1_the_average_is_reds_with_weight_0_002() {
    // 8 Mb/s and 1000-byte typical packets: 1 ms per packet.
    let mut q = Wmecn::new(config(0.002), P_MAX, 8_000_000);
    let mut rng = RandomStream::new(3, "avg");
    let mut expected = 0.0f64;
    for len in [0u32, 3, 10, 40, 40, 7] {
        offer(|p| q.admit(0, occ(len), p, &mut rng), Ecn::Ect1);
        expected = (1.0 - 0.002) * expected + 0.002 * len as f64;
        assert_eq!(q.core.avg(), expected);
    }
    // 250 ms idle with an empty queue: 250 typical packets, then this one.
    q.core.set_avg(12.0);
    let idle = QueueOccupancy {
        len_pkts: 0,
        len_bytes: 0,
        idle_since_ns: Some(1_000_000_000),
    };
    offer(|p| q.admit(1_250_000_000, idle, p, &mut rng), Ecn::Ect1);
    let aged = 12.0 * 0.998f64.powi(250) * 0.998;
    assert!(
        (q.core.avg() - aged).abs() < 1e-12,
        "{} vs {aged}",
        q.core.avg()
    );
    // The arrival is judged on the average it has just updated: from just
    // below max_th, an arrival to a queue of 49 lifts it to
    // 14.99 x 0.998 + 0.098 = 15.058 >= max_th, so the packet is `11` for
    // sure (on the old average it would be `11` with probability 0.3).
    for i in 0..20 {
        q.core.set_avg(14.99);
        let fate = offer(|p| q.admit(2_000_000_000, occ(49), p, &mut rng), Ecn::Ect1);
        assert!((q.core.avg() - ((1.0 - 0.002) * 14.99 + 0.002 * 49.0)).abs() < 1e-12);
        assert_eq!(fate, Fate::Level(MecnLevel::Moderate), "arrival {i}");
    }
}

/// The document says nothing of packets that are not ECN-capable (`00`:
/// the UDP background, SYNs, ACKs, retransmissions sent not-ECT). Our
/// choice (RFC 3168 §7's mark-or-drop, as ns-2's RED drops a not-ECT
/// packet where it would mark): dropped where a random test marks
/// (`10` below mid_th, `11` above), never for the deterministic `10`
/// (it only carries information), and always above max_th.
#[test]
fn non_ect_packets_are_dropped_where_a_random_mark_falls_and_above_max_th() {
    let mut q = wmecn_held();
    let drop = Fate::Dropped(DeathCause::AqmDrop);
    let pass = Fate::Level(MecnLevel::NotCapable);
    // The `10` ramp between min_th and mid_th, the `11` ramp above.
    for (avg, ramp_from, ramp_to) in [
        (6.0, MIN_TH, MID_TH),
        (9.5, MIN_TH, MID_TH),
        (10.0, MID_TH, MAX_TH),
        (13.0, MID_TH, MAX_TH),
    ] {
        let p = ramp(avg, ramp_from, ramp_to);
        offer_each(
            &mut q,
            avg,
            Ecn::NotEct,
            400,
            by_draw(p, drop.clone(), pass.clone()),
            true,
        );
    }
    offer_each(&mut q, 15.0, Ecn::NotEct, 100, |_| drop.clone(), false);
    assert_eq!((q.core.marks_incipient, q.core.marks_moderate), (0, 0));
}

/// The other reading of the same silence (option `not_ect = "every_mark"`):
/// §3.1, "the packets that are not marked with '11' are deterministically
/// [marked] with '10' ... so that all packets that reach the router after
/// mid_th get some kind of mark for sure"; a packet that cannot carry a
/// mark gets the only signal it can, a drop (RFC 3168 §7: a router marks
/// an ECN-capable packet where it "would otherwise drop it"). Between
/// mid_th and max_th every not-ECT packet is dropped, whatever its draw;
/// below mid_th and above max_th nothing changes, and ECN-capable packets
/// are marked exactly as under the default.
#[test]
fn option_every_mark_drops_not_ect_packets_on_the_deterministic_10_too() {
    let mut q = wmecn_held().with_not_ect(NotEctPolicy::EveryMark);
    let drop = Fate::Dropped(DeathCause::AqmDrop);
    let pass = Fate::Level(MecnLevel::NotCapable);
    for avg in [6.0, 9.5] {
        let p = ramp(avg, MIN_TH, MID_TH);
        offer_each(
            &mut q,
            avg,
            Ecn::NotEct,
            400,
            by_draw(p, drop.clone(), pass.clone()),
            true,
        );
    }
    for avg in [10.0, 13.0, 14.9] {
        let fates = offer_each(&mut q, avg, Ecn::NotEct, 400, |_| drop.clone(), true);
        assert_eq!(fates.len(), 400);
    }
    offer_each(&mut q, 15.0, Ecn::NotEct, 100, |_| drop.clone(), false);
    assert_eq!((q.core.marks_incipient, q.core.marks_moderate), (0, 0));
    // ECN-capable packets between mid_th and max_th: `11` by the draw,
    // `10` otherwise, as without the option.
    let p = ramp(13.0, MID_TH, MAX_TH);
    let fates = offer_each(
        &mut q,
        13.0,
        Ecn::Ect1,
        400,
        by_draw(
            p,
            Fate::Level(MecnLevel::Moderate),
            Fate::Level(MecnLevel::Incipient),
        ),
        true,
    );
    assert!(fates.contains(&Fate::Level(MecnLevel::Moderate)));
    assert!(fates.contains(&Fate::Level(MecnLevel::Incipient)));
}

/// Buffer overflow (§2.1: "a packet-drop means severe congestion and buffer
/// overflow"): a full buffer drops every arrival, ECN-capable or not,
/// whatever the average.
#[test]
fn a_full_buffer_drops_every_packet() {
    let mut q = wmecn_held();
    let mut rng = RandomStream::new(5, "full");
    for avg in [0.0, 7.0, 12.0, 30.0] {
        for ecn in [Ecn::NotEct, Ecn::Ect1, Ecn::Ect0, Ecn::Ce] {
            q.core.set_avg(avg);
            let fate = offer(|p| q.admit(0, occ(LIMIT), p, &mut rng), ecn);
            assert_eq!(
                fate,
                Fate::Dropped(DeathCause::QueueOverflow),
                "avg {avg} {ecn:?}"
            );
        }
    }
}

/// MECN's router (§2.1): "If the size of the average queue is in between
/// min_th and max_th, there is incipient congestion and the ECN bits are
/// marked as '10' with a probability p1. If the average queue is in
/// between mid_th and max_th, there is moderate congestion and the ECN
/// bits are marked as '11' with a probability p2. If the average queue is
/// above the maxthresh all packets are marked." How the two overlapping
/// tests combine is not said; our choice (`net/queue/mecn.rs`): one draw u,
/// `11` if u < p2, else `10` if u < p2 + p1, so each level has exactly its
/// probability; p1 and p2 rise linearly to max_p1 and max_p2 at max_th;
/// "all packets are marked" is `11`.
#[test]
fn s2_1_mecn_marks_10_from_min_th_and_11_from_mid_th_with_their_probabilities() {
    let (max_p1, max_p2) = (0.3, 0.4);
    let mut q = Mecn::new(config(0.0), max_p1, max_p2, 8_000_000);
    let mut rng = RandomStream::new(13, "mecn-router");
    let mut mirror = rng.clone();
    for avg in [2.0, 5.0, 7.5, 10.0, 12.5, 14.9, 15.0, 30.0] {
        for i in 0..300 {
            q.core.set_avg(avg);
            let fate = offer(|p| q.admit(0, occ(avg as u32), p, &mut rng), Ecn::Ect1);
            let expected = if avg < MIN_TH {
                MecnLevel::NoCongestion
            } else if avg >= MAX_TH {
                MecnLevel::Moderate
            } else {
                let p1 = max_p1 * (avg - MIN_TH) / (MAX_TH - MIN_TH);
                let p2 = if avg >= MID_TH {
                    max_p2 * (avg - MID_TH) / (MAX_TH - MID_TH)
                } else {
                    0.0
                };
                let u = mirror.uniform();
                if u < p2 {
                    MecnLevel::Moderate
                } else if u < p2 + p1 {
                    MecnLevel::Incipient
                } else {
                    MecnLevel::NoCongestion
                }
            };
            assert_eq!(fate, Fate::Level(expected), "avg {avg}, packet {i}");
        }
    }
}

fn receiver(delack_ns: Option<u64>) -> TcpReceiver {
    TcpReceiver::new(ReceiverConfig {
        flow: 0,
        epoch: 1,
        src: 1,
        dst: 0,
        rwnd_bytes: 1 << 20,
        sack: false,
        dsack: false,
        timestamps: false,
        ecn: false,
        mecn: true,
        delack_timeout_ns: delack_ns,
        delack_segments: 2,
        mss: 1000,
    })
}

fn segment(n: u64, ecn: Ecn) -> Packet {
    Packet {
        kind: PacketKind::TcpData,
        flow: 0,
        epoch: 1,
        src: 0,
        dst: 1,
        seq: n * 1000,
        payload_len: 1000,
        flags: flags::ACK,
        ecn,
        ..Default::default()
    }
}

/// §2.2: "The receiver reflects the bit marking in the IP header, to the
/// TCP ACK ... we make use of 3 combination of the 2 bits 8, 9 in the
/// reserved field of the TCP header"; §3.2: "The reflection of the
/// congestion bits at the receiver is done, in the same way as in MECN".
/// With an ACK per segment, each ACK carries its segment's level; a
/// segment sent not ECN-capable (`00`) gives an ACK with nothing to report.
/// The echo never sets RFC 3168's ECE.
#[test]
fn s2_2_each_ack_reflects_its_segments_level_in_bits_8_and_9() {
    let mut r = receiver(None);
    let mut out = Vec::new();
    let levels = [
        Ecn::Ect1,
        Ecn::Ect0,
        Ecn::Ce,
        Ecn::Ect1,
        Ecn::NotEct,
        Ecn::Ce,
        Ecn::Ect1,
    ];
    for (n, &ecn) in levels.iter().enumerate() {
        r.on_packet(0, &segment(n as u64, ecn), &mut out);
    }
    let echoed: Vec<Option<MecnLevel>> = out.iter().map(echoed_level).collect();
    assert_eq!(
        echoed,
        vec![
            Some(MecnLevel::NoCongestion),
            Some(MecnLevel::Incipient),
            Some(MecnLevel::Moderate),
            Some(MecnLevel::NoCongestion),
            None,
            Some(MecnLevel::Moderate),
            Some(MecnLevel::NoCongestion),
        ]
    );
    assert!(out.iter().all(|a| !a.has_flag(flags::ECE)));
}

/// The document does not say what an ACK for two segments reflects, nor
/// whether the echo is held until the source's "congestion window reduced"
/// combination arrives (as RFC 3168's ECE is). Our choice: each ACK
/// reflects the highest level among the segments it is the first ACK
/// after, and the next ACK starts afresh (§3.2's filtering context stores
/// one feedback per ACK, "the last ten congestion feedback values"; an
/// echo held for a round trip would fill it with copies of one mark).
#[test]
fn an_ack_for_two_segments_reflects_the_higher_level_and_is_not_held() {
    let mut r = receiver(Some(200_000_000));
    let mut out = Vec::new();
    for (n, ecn) in [
        Ecn::Ect0,
        Ecn::Ect1,
        Ecn::Ect1,
        Ecn::Ect1,
        Ecn::Ect1,
        Ecn::Ce,
    ]
    .into_iter()
    .enumerate()
    {
        r.on_packet(0, &segment(n as u64, ecn), &mut out);
    }
    let echoed: Vec<Option<MecnLevel>> = out.iter().map(echoed_level).collect();
    assert_eq!(
        echoed,
        vec![
            Some(MecnLevel::Incipient),
            Some(MecnLevel::NoCongestion),
            Some(MecnLevel::Moderate),
        ]
    );
}
