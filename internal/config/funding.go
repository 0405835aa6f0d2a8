package config

import (
	"net/url"
	"strings"

	"github.com/mindvault/mcp-endpoint/internal/netaddr"
)

// EnvFundingURL is the page that lets a user add USDC to a wallet (a faucet, an exchange, an
// on-ramp): a URL template whose {address} and {network} the endpoint fills in.
const EnvFundingURL = "MINDVAULT_FUNDING_URL"

// fundingURL reads MINDVAULT_FUNDING_URL: https, or http on a loopback host, with no
// placeholder but {address} and {network} and no user info (it is shown to users, and a
// credential in it would be shown too).
func (l *loader) fundingURL() string {
	s, ok := l.raw(EnvFundingURL)
	if !ok {
		return ""
	}
	filled := strings.NewReplacer("{address}", "G", "{network}", "testnet").Replace(s)
	if strings.ContainsAny(filled, "{}") {
		l.bad(EnvFundingURL, "may hold only the placeholders {address} and {network}")
		return ""
	}
	u, err := url.Parse(filled)
	if err != nil || strings.ContainsAny(filled, " \t\r\n") || u.Host == "" || u.User != nil || len(s) > 1024 ||
		(u.Scheme != "https" && !(u.Scheme == "http" && netaddr.LoopbackHost(u.Hostname()))) {
		l.bad(EnvFundingURL, "must be an https URL (http only on a loopback host) of at most 1024 characters, without user info")
		return ""
	}
	return s
}

// FundingLink is the funding page for a wallet address on this network, or "" when none is
// configured. Both values are escaped, so neither can change the URL's shape.
func (c *Config) FundingLink(address string) string {
	if c.FundingURL == "" {
		return ""
	}
	return strings.NewReplacer("{address}", url.QueryEscape(address), "{network}", url.QueryEscape(string(c.Network))).Replace(c.FundingURL)
}
