// Package nullrpc is the floor `make bench` measures the endpoint against: it decodes the JSON-RPC
// envelope and writes the bytes the endpoint wrote for the same request with the request's id
// spliced in, never re-encoding them, as a server with pre-encoded answers would not. It imports
// only the standard library, so the processes built on it (test/bench/cmd/floor and null) start as
// fast as Go does; bench.Null is the same code in process.
package nullrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Answer is a fixed JSON-RPC response cut around its id.
type Answer struct {
	head, tail []byte
}

// New cuts response, one JSON-RPC response object as the endpoint wrote it (trailing newline
// and all), around the value of its top-level "id" member.
func New(response []byte) (*Answer, error) {
	dec := json.NewDecoder(bytes.NewReader(response))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("nullrpc: not a JSON object: %.200s", response)
	}
	var hasAnswer bool
	start, end := -1, -1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("nullrpc: %w", err)
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("nullrpc: member %q: %w", key, err)
		}
		switch key {
		case "id":
			// A RawMessage holds the value's bytes verbatim, so they end where the decoder is.
			end = int(dec.InputOffset())
			start = end - len(value)
			if !bytes.Equal(response[start:end], value) {
				return nil, errors.New("nullrpc: could not locate the id")
			}
		case "result", "error":
			hasAnswer = true
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') || len(bytes.TrimSpace(response[dec.InputOffset():])) > 0 {
		return nil, fmt.Errorf("nullrpc: not one JSON object: %.200s", response)
	}
	if start < 0 || !hasAnswer {
		return nil, fmt.Errorf("nullrpc: not a JSON-RPC response with an id: %.200s", response)
	}
	return &Answer{head: bytes.Clone(response[:start]), tail: bytes.Clone(response[end:])}, nil
}

// envelope is the request as the floor decodes it: every member a server must read.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// Respond decodes body and appends the fixed answer under its id to dst; false when body is
// not a JSON-RPC 2.0 request with an id.
func (a *Answer) Respond(dst, body []byte) ([]byte, bool) {
	var env envelope
	if json.Unmarshal(body, &env) != nil || env.JSONRPC != "2.0" || len(env.ID) == 0 {
		return dst, false
	}
	dst = append(dst, a.head...)
	dst = append(dst, env.ID...)
	return append(dst, a.tail...), true
}

// Len is the size of the answer without its id.
func (a *Answer) Len() int { return len(a.head) + len(a.tail) }

// Handler serves the answer over net/http: every POST body gets it, anything unreadable a 400.
func (a *Answer) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var out []byte
		ok := err == nil
		if ok {
			out, ok = a.Respond(make([]byte, 0, a.Len()+16), body)
		}
		if !ok {
			http.Error(w, "not a JSON-RPC request", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(out)
	})
}
