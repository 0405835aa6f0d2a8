package netaddr

import (
	"net/url"
	"testing"
)

func TestRules(t *testing.T) {
	for _, tc := range []struct {
		s                      string
		host, loopHTTP, issuer bool
	}{
		{"http://127.0.0.1:9000", true, true, true},
		{"http://127.5.6.7/x", true, true, true},
		{"http://[::1]:80", true, true, true},
		{"http://LocalHost:1", true, true, true},
		{"https://login.example.com", false, false, true},
		{"http://login.example.com", false, false, false},
		{"https://login.example.com/?x=1", false, false, false},
		{"https://user@login.example.com", false, false, false},
		{"https://login.example.com/#f", false, false, false},
		{"ftp://127.0.0.1", true, false, false},
		{"http://10.0.0.1", false, false, false},
	} {
		u := tc.s
		parsed, _ := url.Parse(u)
		h := parsed.Hostname()
		if LoopbackHost(h) != tc.host || LoopbackHTTP(u) != tc.loopHTTP || Issuer(u) != tc.issuer {
			t.Errorf("%s: host %v http %v issuer %v, want %v %v %v", u, LoopbackHost(h), LoopbackHTTP(u), Issuer(u), tc.host, tc.loopHTTP, tc.issuer)
		}
	}
}
