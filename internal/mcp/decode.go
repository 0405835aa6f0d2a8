package mcp

// decode reads body as a JSON-RPC envelope: the one decoding a request gets (onDecode, set
// by tests, counts them).
func (s *Server) decode(body []byte) (req request, isResponse bool, bad *envelopeError) {
	if s.onDecode != nil {
		s.onDecode()
	}
	return decodeEnvelope(body)
}
