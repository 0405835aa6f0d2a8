package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
)

// The JSON clients (the MindVault API, Horizon, Stellar RPC) read answers the same way: a
// 2xx body must be the one JSON value its route promises. json.Unmarshal alone would take
// null, or an array where an object belongs, as a zero value; a client must report such an
// answer as MALFORMED_RESPONSE instead of passing the zero value on as the service's word.

// DecodeObject decodes b, which must be one JSON object, into v.
func DecodeObject(b []byte, v any) error { return decodeJSON(b, '{', "not a JSON object", v) }

// DecodeArray decodes b, which must be one JSON array, into v.
func DecodeArray(b []byte, v any) error { return decodeJSON(b, '[', "not a JSON array", v) }

func decodeJSON(b []byte, open byte, wrong string, v any) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != open {
		return errors.New(wrong)
	}
	return json.Unmarshal(b, v)
}

// Get is a GET of path: a read, retried per the service's policy. route names it in logs and
// metrics.
func Get(path, route string) Request {
	return Request{Method: http.MethodGet, Path: path, Route: route, Read: true}
}

// Fetch sends req and returns its answer when the status is 2xx; any other status is the
// service's StatusError.
func (s *Service) Fetch(ctx context.Context, req Request) (*Response, error) {
	resp, err := s.Do(ctx, req)
	if err != nil {
		return nil, err
	}
	if !resp.OK() {
		return nil, s.StatusError(resp)
	}
	return resp, nil
}

// Object fetches req and decodes its answer, one JSON object, into a T that valid accepts (nil
// accepts any); any other 2xx answer is MALFORMED_RESPONSE.
func Object[T any](ctx context.Context, s *Service, req Request, valid func(*T) bool, wrong string) (*T, error) {
	resp, err := s.Fetch(ctx, req)
	if err != nil {
		return nil, err
	}
	return DecodeAnswer(s, resp, valid, wrong)
}

// DecodeAnswer decodes a 2xx answer, one JSON object, into a T that valid accepts (valid nil
// accepts any); any other answer is MALFORMED_RESPONSE, saying what is wrong with it.
func DecodeAnswer[T any](s *Service, resp *Response, valid func(*T) bool, wrong string) (*T, error) {
	v := new(T)
	if DecodeObject(resp.Body, v) != nil || (valid != nil && !valid(v)) {
		return nil, s.Malformed(resp, wrong)
	}
	return v, nil
}
