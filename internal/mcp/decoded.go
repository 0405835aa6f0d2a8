package mcp

// decodeHook, when set, is called on every envelope decoding; tests count them.
var decodeHook func()

// decode reads body as a JSON-RPC envelope: the one decoding a request gets.
func decode(body []byte) (req request, isResponse bool, bad *envelopeError) {
	if decodeHook != nil {
		decodeHook()
	}
	return decodeEnvelope(body)
}
