package config

import "testing"

func TestFundingURL(t *testing.T) {
	const addr = "GABCDEFGHIJKLMNOPQRSTUVWXYZ234567ABCDEFGHIJKLMNOPQRSTUVW"
	for _, tc := range []struct {
		name, value string
		ok          bool
		link        string // FundingLink(addr) on testnet
	}{
		{"unset", "", true, ""},
		{"https template", "https://faucet.example.org/?address={address}&network={network}", true,
			"https://faucet.example.org/?address=" + addr + "&network=testnet"},
		{"no placeholders", "https://exchange.example.org/deposit", true, "https://exchange.example.org/deposit"},
		{"path placeholder", "https://ramp.example.org/{network}/{address}", true, "https://ramp.example.org/testnet/" + addr},
		{"loopback http", "http://127.0.0.1:9000/fund?to={address}", true, "http://127.0.0.1:9000/fund?to=" + addr},
		{"remote http", "http://faucet.example.org/?a={address}", false, ""},
		{"other placeholder", "https://faucet.example.org/?a={address}&k={secret}", false, ""},
		{"stray brace", "https://faucet.example.org/?a={address", false, ""},
		{"user info", "https://user:pass@faucet.example.org/{address}", false, ""},
		{"not a URL", "faucet", false, ""},
		{"javascript", "javascript:alert({address})", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := load(map[string]string{EnvFundingURL: tc.value}, false)
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok %v", err, tc.ok)
			}
			if got := c.FundingLink(addr); got != tc.link {
				t.Errorf("FundingLink = %q, want %q", got, tc.link)
			}
		})
	}
	// Substituted values are escaped: a network name cannot add query parameters.
	c := &Config{FundingURL: "https://f.example.org/?n={network}&a={address}", Network: "x&admin=1"}
	if got, want := c.FundingLink("G A"), "https://f.example.org/?n=x%26admin%3D1&a=G+A"; got != want {
		t.Errorf("FundingLink = %q, want %q", got, want)
	}
}
