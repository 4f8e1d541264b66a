//! Protocol checksums: IPv4 headers; TCP, UDP, ICMPv4 and ICMPv6 over IPv4
//! and IPv6 with their pseudo-headers; incremental updates (RFC 1624).
