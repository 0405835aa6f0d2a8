package tools

import "testing"

// TestVerificationOfReadsLeniently: the paid verification's answer is read once the fee is
// paid, so a field that is not the verdict never fails it: a confidence sent as a string
// ("0.91") or unreadable still gives the verdict; only a missing isOriginal proves none.
func TestVerificationOfReadsLeniently(t *testing.T) {
	for _, tc := range []struct {
		body string
		ok   bool
		conf float64
	}{
		{`{"isOriginal":true,"confidence":0.91,"flags":["ok"],"usage":{"totalTokens":450}}`, true, 0.91},
		{`{"isOriginal":true,"confidence":"0.91","flags":[]}`, true, 0.91},
		{`{"isOriginal":false,"confidence":{"x":1}}`, true, 0},
		{`{"confidence":0.91}`, false, 0},
	} {
		v, ok := verificationOf([]byte(tc.body))
		if ok != tc.ok || (ok && v.Confidence != tc.conf) {
			t.Errorf("%s: %+v %v", tc.body, v, ok)
		}
	}
}
