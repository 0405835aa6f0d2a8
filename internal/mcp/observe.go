package mcp

import (
	"net/http"
	"time"

	"github.com/mindvault/mcp-endpoint/internal/obs"
)

// observe gives each request its correlation id (the invocation's, or a new one) and a
// downstream trace, and writes its one log line and its metrics once the answer is out. It
// wraps the guards too, so a refused request is logged like any other.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		st := stateOf(r.Context())
		if st.id == "" {
			st.id = newID()
		}
		e := &entry{id: st.id}
		st.entry = e
		ctx, trace := obs.WithTrace(withState(r.Context(), st))
		defer func() {
			d := time.Since(start)
			e.calls = trace.Calls()
			s.log(ctx, e, d)
			obs.WriteEMF(s.Metrics, start, e.metric, e.outcome, d, e.calls)
		}()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// refuse answers a request the HTTP rules turn away with an id-less JSON-RPC error.
func refuse(w http.ResponseWriter, r *http.Request, status, code int, msg string) {
	writeRPCError(w, stateOf(r.Context()).entry, nil, status, code, msg, nil)
}

// refusePlain answers a request that is not for the MCP endpoint with a plain JSON object.
func refusePlain(w http.ResponseWriter, r *http.Request, status int, msg string) {
	e := stateOf(r.Context()).entry
	e.status = status
	writeJSON(w, e, status, map[string]string{"error": msg})
}
