package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// defaultMaxBody bounds a body when no limit is configured.
const defaultMaxBody = 1 << 20

// unreadableMessage answers a body that could not be read (the connection broke mid-body).
const unreadableMessage = "Parse error: the body could not be read"

// limitBody reads the whole body, at most max bytes (defaultMaxBody when max <= 0), before
// anything else sees it: a larger body gets 413 and one that cannot be read 400, so the
// handler behind works on bytes in memory and no request can make it hold more than max.
// http.MaxBytesReader also tells the server to close a connection whose body was cut short.
func limitBody(max int64) func(http.Handler) http.Handler {
	if max <= 0 {
		max = defaultMaxBody
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := readBody(http.MaxBytesReader(w, r.Body, max), r.ContentLength, max)
			if err != nil {
				if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
					refuse(w, r, http.StatusRequestEntityTooLarge, CodeInvalidRequest, fmt.Sprintf("Request Entity Too Large: the body exceeds %d bytes", max))
					return
				}
				refuse(w, r, http.StatusBadRequest, CodeParseError, unreadableMessage)
				return
			}
			r2 := *r // a middleware must not modify the request it was given
			r2.Body = &memBody{Reader: bytes.NewReader(body), b: body}
			next.ServeHTTP(w, &r2)
		})
	}
}

// readBody reads r to its end into one buffer of the declared length (plus the byte that
// finds the end) when the request declares one within max, instead of growing from 512 bytes.
func readBody(r io.Reader, declared, max int64) ([]byte, error) {
	if declared <= 0 || declared > max {
		return io.ReadAll(r)
	}
	b := make([]byte, 0, declared+1)
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) { // longer than declared: let it grow (MaxBytesReader still bounds it)
			b = append(b, 0)[:len(b)]
		}
	}
}

// memBody is a body limitBody read into memory. The server takes its bytes as they are
// (bodyBytes) instead of reading them into a second buffer.
type memBody struct {
	*bytes.Reader
	b []byte
}

// Close implements io.Closer.
func (*memBody) Close() error { return nil }

// bodyBytes returns the request's body: the bytes limitBody read when no one has read from it
// since, else whatever is left to read.
func bodyBytes(r *http.Request) ([]byte, error) {
	if mb, ok := r.Body.(*memBody); ok && mb.Len() == len(mb.b) {
		return mb.b, nil
	}
	return io.ReadAll(r.Body)
}
