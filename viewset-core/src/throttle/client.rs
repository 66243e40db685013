//! The client address an anonymous caller is counted by: the connection's peer, or, when the peer is a trusted
//! proxy, the nearest address to its left in `Forwarded` (else `X-Forwarded-For`) that is not a trusted proxy.
//! A header from anyone else is ignored, so a client cannot pick its own bucket by sending one.

use std::net::IpAddr;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The rightmost hops of a forwarding header that are read: a header flood costs no more than this.
const MAX_HOPS: usize = 32;

/// The bucket key of the address `peer` (of the connection) stands for, with `trusted` proxies.
///
/// An IPv4-mapped IPv6 address counts as its IPv4 address; an IPv6 address counts as its /64 network (one host
/// usually holds a whole /64, and could otherwise draw a new budget per address). Without a peer (the server was
/// not started with `into_make_service_with_connect_info::<SocketAddr>()`, or an in-process call), every
/// anonymous caller shares the key `ip:unknown`.
pub(crate) fn client_key(peer: Option<IpAddr>, headers: &HeaderMap, trusted: &[IpNet]) -> String {
    match peer.map(|peer| client_address(peer.to_canonical(), headers, trusted)) {
        Some(IpAddr::V6(v6)) => {
            let network = ipnet::Ipv6Net::new(v6, 64).expect("64 is a valid prefix").trunc();
            format!("ip:{network}")
        }
        Some(v4) => format!("ip:{v4}"),
        None => "ip:unknown".to_string(),
    }
}

fn client_address(peer: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let is_trusted = |addr: &IpAddr| trusted.iter().any(|net| net.contains(addr));
    if !is_trusted(&peer) {
        return peer;
    }
    let hops = forwarded_hops(headers);
    let mut client = peer;
    for hop in hops.iter().rev().take(MAX_HOPS) {
        // A hop that is not an address (`unknown`, an obfuscated name): the trusted proxy to its right is as far
        // as the chain can be followed.
        let Some(addr) = hop.map(|a| a.to_canonical()) else { return client };
        client = addr;
        if !is_trusted(&addr) {
            return addr;
        }
    }
    client
}

/// The hops of `Forwarded` (`for=`), or of `X-Forwarded-For` when there is no `Forwarded`, left to right, each
/// parsed (`None` when not an address).
fn forwarded_hops(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let values = |name: &str| headers.get_all(name).iter().filter_map(|v| v.to_str().ok()).collect::<Vec<_>>();
    let forwarded = values("forwarded");
    if !forwarded.is_empty() {
        return forwarded
            .iter()
            .flat_map(|v| v.split(','))
            .map(|element| {
                element.split(';').find_map(|pair| {
                    let (name, value) = pair.trim().split_once('=')?;
                    name.trim().eq_ignore_ascii_case("for").then(|| parse_hop(value))
                })?
            })
            .collect();
    }
    values("x-forwarded-for").iter().flat_map(|v| v.split(',')).map(parse_hop).collect()
}

/// One hop: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1`, `[2001:db8::1]:4711`, optionally quoted.
fn parse_hop(text: &str) -> Option<IpAddr> {
    let text = text.trim().trim_matches('"');
    if let Ok(addr) = text.parse::<IpAddr>() {
        return Some(addr);
    }
    if let Some(rest) = text.strip_prefix('[') {
        return rest.split_once(']')?.0.parse().ok();
    }
    let (host, port) = text.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    host.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(*name, value.parse().unwrap());
        }
        map
    }

    fn key(peer: &str, pairs: &[(&'static str, &str)], trusted: &[&str]) -> String {
        let trusted: Vec<IpNet> = trusted.iter().map(|t| t.parse().unwrap()).collect();
        client_key(Some(peer.parse().unwrap()), &headers(pairs), &trusted)
    }

    #[test]
    fn headers_count_only_from_trusted_proxies() {
        let spoofed = [("x-forwarded-for", "6.6.6.6")];
        assert_eq!(key("203.0.113.9", &spoofed, &[]), "ip:203.0.113.9", "no proxy trusted");
        assert_eq!(key("203.0.113.9", &spoofed, &["10.0.0.0/8"]), "ip:203.0.113.9", "peer not a proxy");
        let chain = [("x-forwarded-for", "6.6.6.6, 198.51.100.7"), ("x-forwarded-for", "10.0.0.2")];
        assert_eq!(key("10.0.0.1", &chain, &["10.0.0.0/8"]), "ip:198.51.100.7", "the client's own entry is skipped");
        let fwd =
            [("forwarded", "for=6.6.6.6, for=\"[2001:db8:1:2::9]:4711\";proto=https"), ("x-forwarded-for", "1.1.1.1")];
        assert_eq!(key("10.0.0.1", &fwd, &["10.0.0.0/8"]), "ip:2001:db8:1:2::/64", "Forwarded first, IPv6 as /64");
        let all_trusted = [("x-forwarded-for", "10.0.0.7, 10.0.0.8")];
        assert_eq!(key("10.0.0.1", &all_trusted, &["10.0.0.0/8"]), "ip:10.0.0.7");
        let garbage = [("x-forwarded-for", "1.2.3.4, nonsense")];
        assert_eq!(key("10.0.0.1", &garbage, &["10.0.0.0/8"]), "ip:10.0.0.1", "not followed past a non-address");
    }

    #[test]
    fn one_address_in_every_form_is_one_key() {
        assert_eq!(key("::ffff:192.0.2.1", &[], &[]), "ip:192.0.2.1");
        assert_eq!(key("2001:db8::1", &[], &[]), key("2001:db8::ffff", &[], &[]));
        let mapped = [("x-forwarded-for", "[::ffff:198.51.100.7]:80")];
        assert_eq!(key("127.0.0.1", &mapped, &["127.0.0.1/32"]), "ip:198.51.100.7");
        let flood = vec![("x-forwarded-for", "10.0.0.3"); 500];
        assert_eq!(key("10.0.0.1", &flood, &["10.0.0.0/8"]), "ip:10.0.0.3", "a flood reads 32 hops at most");
        assert_eq!(client_key(None, &HeaderMap::new(), &[]), "ip:unknown");
    }
}
