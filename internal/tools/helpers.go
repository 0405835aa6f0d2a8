package tools

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mindvault/mcp-endpoint/errmap"
)

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// failure is a failure the endpoint found itself: its detail is also its error's text.
func failure(f errmap.Facts) error { return errmap.Wrap(errors.New(f.Detail), f) }

// refusal is a payment refused before anything was signed or sent.
func refusal(code, detail, next string) error {
	return failure(errmap.Facts{Source: errmap.SourceX402, Code: code, Detail: detail, Next: next, ExecutionStarted: false})
}

// summary is line 1 of a mapped failure and its category as format places them ("%s (%s)",
// or "%s, %s" inside a parenthesis): enough to act on. With the operation given, neither the
// tool nor a default source reaches them (an error with a status names its own source).
func (c *Call) summary(format string, err error, operation string) string {
	f := errmap.FromError(err, errmap.Call{Operation: operation, Secrets: c.secretValues()})
	line, _, _ := strings.Cut(f.Text, "\n")
	return fmt.Sprintf(format, line, f.Diagnostic.Category)
}

// parallel runs independent downstream calls at once and waits for all of them.
func parallel(fns ...func()) {
	var wg sync.WaitGroup
	for _, fn := range fns {
		wg.Go(fn)
	}
	wg.Wait()
}

func isStatus(err error, status int) bool {
	f, ok := errmap.FactsOf(err)
	return ok && f.Status == status
}

// nonNil makes an absent list an empty one, so outputs say [] rather than null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func isCode(err error, code string) bool {
	f, ok := errmap.FactsOf(err)
	return ok && f.Code == code
}

// ProfileWallet is the wallet a result is about: its profile, address and network.
type ProfileWallet struct {
	Profile string `json:"profile"`
	Address string `json:"address"`
	Network string `json:"network"`
}

func (d *Deps) profileWallet(profile, address string) ProfileWallet {
	return ProfileWallet{Profile: profile, Address: address, Network: string(d.Config.Network)}
}
