// Package netaddr holds the address rules more than one layer applies: what a loopback host is
// (the only place the endpoint talks plain http, or lets a browser origin in by default), and
// what an OAuth issuer URL may look like. One definition, so the configuration check, the
// issuer client and the origin guard cannot disagree.
package netaddr

import (
	"net"
	"net/url"
	"strings"
)

// LoopbackHost reports a host name of 127.0.0.0/8, ::1 or localhost.
func LoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// LoopbackHTTP reports an http URL whose host is a loopback host.
func LoopbackHTTP(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme == "http" && LoopbackHost(u.Hostname())
}

// Issuer accepts an OAuth issuer: an absolute https URL, or http on a loopback host (tests and
// local development), without query, fragment or user info.
func Issuer(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || u.Opaque != "" {
		return false
	}
	return u.Scheme == "https" || (u.Scheme == "http" && LoopbackHost(u.Hostname()))
}
