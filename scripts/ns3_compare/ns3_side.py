"""ns-3 (3.44 PyPI wheel, cppyy) side of the differential audit.

Topology S --access-- R --bottleneck-- D, bulk TCP S->D.  The whole scenario is
C++ (cppyy.cppdef) so that traces are exact; Python only passes parameters.
Output: a text trace with one event per line (time in ns):
  tx  <t> <seq0> <len> <retx>      sender socket Tx (data segments; seq0 from 0 = airtcp offset)
  ack <t> <ack0> <sackblocks>      sender socket Rx (ACK arrivals), ack0 from 0
  cwnd <t> <bytes> ; ssth <t> <bytes> ; state <t> <old> <new> ; rto <t> <ns>
  qdrop <t> <seq0>                 bottleneck device queue drop
  edrop <t> <seq0>                 error-model drop at D's device
  sink <t> <bytes>                 bytes delivered to the app
"""
import os
import sys

from ns import ns  # noqa: E402
import cppyy  # noqa: E402

CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/applications-module.h"
#include "ns3/traffic-control-module.h"
#include <fstream>
#include <set>
#include <sstream>

namespace ns3diff {
using namespace ns3;
static std::ofstream* g_out = nullptr;
static uint64_t g_sink = 0;

static int64_t Now() { return Simulator::Now().GetNanoSeconds(); }

// Drops the k-th (1-based) packet of >100 bytes (data) the device receives,
// and/or each data packet with probability per (own RNG stream).
class DataDropModel : public ErrorModel {
public:
  std::set<uint32_t> list; uint32_t n = 0; double per = 0; Ptr<UniformRandomVariable> rv;
  bool DoCorrupt(Ptr<Packet> p) override {
    if (p->GetSize() <= 100) return false;
    ++n;
    bool drop = list.count(n) > 0;
    if (!drop && per > 0 && rv->GetValue() < per) drop = true;
    if (drop) {
      Ptr<Packet> c = p->Copy(); PppHeader ppp; c->RemoveHeader(ppp); Ipv4Header ip; c->RemoveHeader(ip);
      TcpHeader th; c->PeekHeader(th);
      *g_out << "edrop " << Now() << " " << (th.GetSequenceNumber().GetValue() - 1) << "\n";
    }
    return drop;
  }
  void DoReset() override { n = 0; }
};

static void TxTr(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s) {
  if (p->GetSize() == 0) return;
  // retransmission: seq below highTxMark at send time is decided by caller in post-processing
  *g_out << "tx " << Now() << " " << (h.GetSequenceNumber().GetValue() - 1) << " " << p->GetSize() << "\n";
}
static void RxTr(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s) {
  if (!(h.GetFlags() & TcpHeader::ACK)) return;
  *g_out << "ack " << Now() << " " << (int64_t)(h.GetAckNumber().GetValue()) - 1;
  if (h.HasOption(TcpOption::SACK)) {
    Ptr<const TcpOptionSack> s2 = DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK));
    for (auto& b : s2->GetSackList()) *g_out << " " << (b.first.GetValue()-1) << "-" << (b.second.GetValue()-1);
  }
  *g_out << "\n";
}
static void CwndTr(uint32_t o, uint32_t n) { *g_out << "cwnd " << Now() << " " << n << "\n"; }
static void CwndInflTr(uint32_t o, uint32_t n) { *g_out << "cwndinfl " << Now() << " " << n << "\n"; }
static void SsthTr(uint32_t o, uint32_t n) { *g_out << "ssth " << Now() << " " << n << "\n"; }
static void StateTr(TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n) {
  *g_out << "state " << Now() << " " << TcpSocketState::TcpCongStateName[o] << " " << TcpSocketState::TcpCongStateName[n] << "\n"; }
static void RtoTr(Time o, Time n) { *g_out << "rto " << Now() << " " << n.GetNanoSeconds() << "\n"; }
static void RttTr(Time o, Time n) { *g_out << "srtt " << Now() << " " << n.GetNanoSeconds() << "\n"; }
static void QDrop(Ptr<const Packet> p) {
  Ptr<Packet> c = p->Copy(); PppHeader ppp; c->RemoveHeader(ppp); Ipv4Header ip; c->RemoveHeader(ip);
  TcpHeader th; c->PeekHeader(th);
  *g_out << "qdrop " << Now() << " " << (th.GetSequenceNumber().GetValue() - 1) << " " << c->GetSize() << "\n";
}
static void QDropIp(Ptr<const Packet> p) {   // TC layer: packet without PPP header, with IP header? try both
  Ptr<Packet> c = p->Copy(); Ipv4Header ih; c->RemoveHeader(ih); TcpHeader th; c->PeekHeader(th);
  *g_out << "qdrop " << Now() << " " << (th.GetSequenceNumber().GetValue() - 1) << " " << c->GetSize() << "\n";
}
static void SinkRx(Ptr<const Packet> p, const Address& a) { g_sink += p->GetSize(); *g_out << "sink " << Now() << " " << g_sink << "\n"; }

static void Hook() {
  std::string b = "/NodeList/0/$ns3::TcpL4Protocol/SocketList/0/";
  Config::ConnectWithoutContext(b + "Tx", MakeCallback(&TxTr));
  Config::ConnectWithoutContext(b + "Rx", MakeCallback(&RxTr));
  Config::ConnectWithoutContext(b + "CongestionWindow", MakeCallback(&CwndTr));
  Config::ConnectWithoutContext(b + "CongestionWindowInflated", MakeCallback(&CwndInflTr));
  Config::ConnectWithoutContext(b + "SlowStartThreshold", MakeCallback(&SsthTr));
  Config::ConnectWithoutContext(b + "CongState", MakeCallback(&StateTr));
  Config::ConnectWithoutContext(b + "RTO", MakeCallback(&RtoTr));
  Config::ConnectWithoutContext(b + "RTT", MakeCallback(&RttTr));
}

int Run(std::string outPath, double accRateBps, double accDelayS, double btlRateBps, double btlDelayS,
        uint32_t qlimit, uint32_t mss, uint32_t iw, bool sack, bool ts, uint32_t delackCount,
        std::string cc, std::string recovery, double durationS, std::string dropList, double per,
        uint32_t seed, uint32_t rcvbuf, bool limitedTx, double dataScale, double ackScale, std::string extra) {
  std::ofstream out(outPath); g_out = &out; g_sink = 0;
  RngSeedManager::SetSeed(1); RngSeedManager::SetRun(seed);
  Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(cc)));
  Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TypeId::LookupByName(recovery)));
  Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
  Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(iw));
  Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delackCount));
  Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
  Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1u << 26));
  Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(rcvbuf));
  Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(100));
  Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
  Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(ts));
  Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1)));
  Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MilliSeconds(1)));
  Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(limitedTx));

  { std::istringstream es(extra); std::string kv;
    while (std::getline(es, kv, ';')) { auto p = kv.find('='); if (p == std::string::npos) continue;
      Config::SetDefault(kv.substr(0, p), StringValue(kv.substr(p + 1))); } }
  NodeContainer n; n.Create(3);
  PointToPointHelper acc; acc.SetDeviceAttribute("DataRate", DataRateValue(DataRate((uint64_t)accRateBps)));
  acc.SetChannelAttribute("Delay", TimeValue(Seconds(accDelayS)));
  acc.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize("1000p")));
  PointToPointHelper btl; btl.SetDeviceAttribute("DataRate", DataRateValue(DataRate((uint64_t)btlRateBps)));
  btl.SetChannelAttribute("Delay", TimeValue(Seconds(btlDelayS)));
  std::ostringstream q; q << qlimit << "p";
  btl.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(QueueSize(q.str())));
  NetDeviceContainer d1 = acc.Install(n.Get(0), n.Get(1));
  NetDeviceContainer d2 = btl.Install(n.Get(1), n.Get(2));
  InternetStackHelper st; st.Install(n);
  Ipv4AddressHelper a; a.SetBase("10.1.1.0", "255.255.255.0"); a.Assign(d1);
  a.SetBase("10.1.2.0", "255.255.255.0"); Ipv4InterfaceContainer i2 = a.Assign(d2);
  TrafficControlHelper tch; tch.Uninstall(d1); tch.Uninstall(d2);   // no qdisc: device DropTail only
  Ipv4GlobalRoutingHelper::PopulateRoutingTables();

  Ptr<DataDropModel> em = CreateObject<DataDropModel>();
  em->per = per; em->rv = CreateObject<UniformRandomVariable>(); em->rv->SetStream(7);
  { std::istringstream ss(dropList); uint32_t k; while (ss >> k) em->list.insert(k); }
  d2.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));
  bool okq = d2.Get(0)->GetObject<PointToPointNetDevice>()->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&QDrop));
  bool okm = n.Get(1)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext("TcDrop", MakeCallback(&QDropIp));
  if (!okq || !okm) { out << "end 0 0\n"; return 1; }
  // align framing: ns-3 adds a 2-byte PPP header; scale each direction's rate so that a
  // 1000-byte-payload data segment (1042 B) and a pure ACK (42 B) take airtcp's 1040 B / 40 B time
  d1.Get(0)->SetAttribute("DataRate", DataRateValue(DataRate((uint64_t)(accRateBps * dataScale))));
  d2.Get(0)->SetAttribute("DataRate", DataRateValue(DataRate((uint64_t)(btlRateBps * dataScale))));
  d1.Get(1)->SetAttribute("DataRate", DataRateValue(DataRate((uint64_t)(accRateBps * ackScale))));
  d2.Get(1)->SetAttribute("DataRate", DataRateValue(DataRate((uint64_t)(btlRateBps * ackScale))));

  BulkSendHelper bs("ns3::TcpSocketFactory", InetSocketAddress(i2.GetAddress(1), 9));
  bs.SetAttribute("SendSize", UintegerValue(mss));
  ApplicationContainer sa = bs.Install(n.Get(0)); sa.Start(Seconds(0)); sa.Stop(Seconds(durationS));
  PacketSinkHelper sk("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
  ApplicationContainer ka = sk.Install(n.Get(2)); ka.Start(Seconds(0)); ka.Stop(Seconds(durationS + 1));
  ka.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
  Simulator::Schedule(NanoSeconds(1), &Hook);
  Simulator::Stop(Seconds(durationS));
  Simulator::Run();
  out << "end " << Now() << " " << g_sink << "\n";
  Simulator::Destroy();
  out.close(); g_out = nullptr;
  return 0;
}
}  // namespace ns3diff
"""

cppyy.cppdef(CPP)


def run(out, acc_rate=10e6, acc_delay=0.002, btl_rate=1.5e6, btl_delay=0.02, qlimit=20, mss=1000,
        iw=4, sack=False, ts=False, delack=2, cc="ns3::TcpNewReno", recovery="ns3::TcpClassicRecovery",
        duration=10.0, drops=(), per=0.0, seed=1, rcvbuf=1_000_000, limited_tx=True, align_framing=True, extra=""):
    ds = (mss + 42) / (mss + 40) if align_framing else 1.0
    as_ = 42 / 40 if align_framing else 1.0
    return cppyy.gbl.ns3diff.Run(out, acc_rate, acc_delay, btl_rate, btl_delay, qlimit, mss, iw, sack, ts,
                                 delack, cc, recovery, duration, " ".join(map(str, drops)), per, seed,
                                 rcvbuf, limited_tx, ds, as_, extra)


if __name__ == "__main__":
    import json
    kw = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    run(sys.argv[1], **kw)
