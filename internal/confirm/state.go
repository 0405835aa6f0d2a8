package confirm

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Version is the requestState format written by Seal; Open refuses every other.
const Version = 1

// TTL is how long a requestState stays valid after it is issued.
const TTL = 5 * time.Minute

// MaxStateBytes bounds the requestState Open looks at; a real one is well under 2 KiB.
const MaxStateBytes = 8 << 10

// prefix starts every requestState of this Version; the MAC covers it.
const prefix = "mv1."

var b64 = base64.RawURLEncoding.Strict()

// Binding is the call a requestState is valid for: tool, arguments, caller, profile, network.
type Binding struct {
	Tool     string `json:"tool"`
	ArgsHash string `json:"args"`   // hex SHA-256 of the canonical arguments (ArgsHash)
	Caller   string `json:"caller"` // auth.Caller; stored hashed
	Profile  string `json:"profile"`
	Network  string `json:"network"`
}

// ArgsHash is the hash a Binding carries for a tool's canonical (decoded, marshalled) arguments.
func ArgsHash(tool string, canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil))
}

// callerDigest keeps the caller's identity out of the state while still binding it.
func callerDigest(caller string) string {
	sum := sha256.Sum256([]byte("mindvault/confirm/caller\x00" + caller))
	return hex.EncodeToString(sum[:])
}

// payload is the signed content of a requestState; its Binding's Caller is callerDigest's.
type payload struct {
	V int `json:"v"`
	Binding
	Approved Approval `json:"approved"`
	Issued   int64    `json:"iat"`
	Expires  int64    `json:"exp"`
	Nonce    string   `json:"nonce"`
}

// Reason says why Open refused a requestState.
type Reason string

// The reasons of an InvalidState.
const (
	ReasonNoKey     Reason = "this endpoint has no confirmation key, so it cannot have issued it"
	ReasonMalformed Reason = "it is not a requestState this endpoint issues"
	ReasonSignature Reason = "it was altered, or signed with another key"
	ReasonExpired   Reason = "it has expired (a confirmation is valid for 5 minutes)"
	ReasonOtherCall Reason = "it belongs to another call (another tool, other arguments, another caller, profile or network)"
)

// InvalidState is a requestState that Open refused; nothing may be done on its strength.
type InvalidState struct{ Reason Reason }

func (e *InvalidState) Error() string { return "requestState is not valid: " + string(e.Reason) }

// Seal signs the approval of a call into a requestState: "mv1." + base64url(payload) + "." +
// base64url(HMAC-SHA256(key, everything before the last dot)); nothing in it is secret.
func (k *Settings) Seal(b Binding, a Approval) (string, error) {
	var key []byte
	if k.CanAsk() {
		key = k.signingKey()
	}
	if len(key) < MinKeyBytes {
		return "", errors.New("no confirmation key")
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:]) // never fails: the runtime crashes rather than return an error
	now := k.now()
	b.Caller = callerDigest(b.Caller)
	p := payload{V: Version, Binding: b, Approved: a, Issued: now.Unix(), Expires: now.Add(TTL).Unix(), Nonce: b64.EncodeToString(nonce[:])}
	body, _ := json.Marshal(p) // strings and numbers: it cannot fail
	signed := prefix + b64.EncodeToString(body)
	return signed + "." + b64.EncodeToString(mac(key, signed)), nil
}

func mac(key []byte, signed string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(signed))
	return m.Sum(nil)
}

// Open verifies a requestState for the call b: the MAC first, in constant time, then the
// format, the expiry and every binding (a rotated key is refused like an alteration).
func (k *Settings) Open(state string, b Binding) (Approval, error) {
	var key []byte
	if k != nil {
		key = k.signingKey()
	}
	if len(key) < MinKeyBytes {
		return Approval{}, &InvalidState{ReasonNoKey}
	}
	if len(state) > MaxStateBytes || !strings.HasPrefix(state, prefix) {
		return Approval{}, &InvalidState{ReasonMalformed}
	}
	dot := strings.LastIndexByte(state, '.')
	if dot < len(prefix) {
		return Approval{}, &InvalidState{ReasonMalformed}
	}
	signed, sig := state[:dot], state[dot+1:]
	got, err := b64.DecodeString(sig)
	if err != nil || len(got) != sha256.Size || b64.EncodeToString(got) != sig || !hmac.Equal(got, mac(key, signed)) {
		return Approval{}, &InvalidState{ReasonSignature}
	}
	// Signed by this key: from here on the content is this endpoint's own.
	enc := signed[len(prefix):]
	body, err := b64.DecodeString(enc)
	if err != nil || b64.EncodeToString(body) != enc {
		return Approval{}, &InvalidState{ReasonMalformed}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var p payload
	if dec.Decode(&p) != nil || dec.More() || p.V != Version {
		return Approval{}, &InvalidState{ReasonMalformed}
	}
	now := k.now().Unix()
	if now >= p.Expires || p.Expires-p.Issued > int64(TTL/time.Second) {
		return Approval{}, &InvalidState{ReasonExpired}
	}
	b.Caller = callerDigest(b.Caller)
	if p.Binding != b {
		return Approval{}, &InvalidState{ReasonOtherCall}
	}
	a := p.Approved
	a.Nonce = p.Nonce
	return a, nil
}
