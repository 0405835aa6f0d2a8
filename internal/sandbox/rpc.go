package sandbox

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/strkey"
	"github.com/stellar/go-stellar-sdk/xdr"
)

// maxRPCBody bounds what the simulator reads of a request (stellar-rpc's own limit is similar).
const maxRPCBody = 10 << 20

// JSON-RPC error codes stellar-rpc (jrpc2) uses.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// rpcMethod is one JSON-RPC method. handle gets the request's fault when it is one of the
// chain kinds (tryagain, nocommit, archived, nocontract, contracterror), else nil.
type rpcMethod struct {
	handle    func(s *Sandbox, params json.RawMessage, f *Fault) (any, *rpcError)
	malformed string // a result of the wrong shape (kind=malformed)
}

// plain adapts a method that no fault kind changes.
func plain(h func(*Sandbox, json.RawMessage) (any, *rpcError)) func(*Sandbox, json.RawMessage, *Fault) (any, *rpcError) {
	return func(s *Sandbox, params json.RawMessage, _ *Fault) (any, *rpcError) { return h(s, params) }
}

var rpcMethods = map[string]rpcMethod{
	protocol.GetHealthMethodName:           {plain((*Sandbox).rpcGetHealth), `"healthy"`},
	protocol.GetNetworkMethodName:          {plain((*Sandbox).rpcGetNetwork), `{"passphrase":42,"protocolVersion":"twenty-three"}`},
	protocol.GetLatestLedgerMethodName:     {plain((*Sandbox).rpcGetLatestLedger), `{"id":7,"sequence":"latest","protocolVersion":[]}`},
	protocol.GetTransactionMethodName:      {plain((*Sandbox).rpcGetTransaction), `{"status":200,"ledger":"yesterday","envelopeXdr":{"tx":null}}`},
	protocol.SimulateTransactionMethodName: {(*Sandbox).rpcSimulateTransaction, `{"latestLedger":"soon","results":{"xdr":42},"minResourceFee":[]}`},
	protocol.SendTransactionMethodName:     {(*Sandbox).rpcSendTransaction, `{"status":202,"hash":["pending"],"latestLedger":"now"}`},
	protocol.GetLedgerEntriesMethodName:    {plain((*Sandbox).rpcGetLedgerEntries), `{"entries":{"xdr":42},"latestLedger":"soon"}`},
	protocol.GetEventsMethodName:           {plain((*Sandbox).rpcGetEvents), `{"events":{"type":7},"latestLedger":"soon"}`},
}

type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func (s *Sandbox) rpcService() *service {
	return &service{s: s, name: ServiceRPC, keys: rpcKeys, serve: s.rpcServe, fault: s.rpcFault}
}

// readBody buffers the request body and puts it back, so the keys and the handler both see it.
func readBody(r *http.Request) []byte {
	b, _ := io.ReadAll(io.LimitReader(r.Body, maxRPCBody))
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b
}

// rpcKeys are the JSON-RPC methods a request calls (several for a batch); a request that is
// not JSON-RPC has the key "" and matches only the target *.
func rpcKeys(r *http.Request) []string {
	body := bytes.TrimSpace(readBody(r))
	var calls []struct{ Method string }
	if len(body) > 0 && body[0] == '[' {
		_ = json.Unmarshal(body, &calls)
	} else {
		var one struct{ Method string }
		if json.Unmarshal(body, &one) == nil {
			calls = append(calls, one)
		}
	}
	var keys []string
	for _, c := range calls {
		keys = append(keys, c.Method)
	}
	if len(keys) == 0 {
		keys = []string{""}
	}
	return keys
}

func (s *Sandbox) rpcServe(w http.ResponseWriter, r *http.Request) { s.rpcHandle(w, r, nil) }

// rpcFault renders the faults that depend on the service: a plain-text HTTP status (as
// gateways in front of stellar-rpc send), and per-call malformed results or error objects.
func (s *Sandbox) rpcFault(w http.ResponseWriter, r *http.Request, f *Fault) {
	if f.Kind == KindStatus {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(f.Status)
		_, _ = io.WriteString(w, strconv.Itoa(f.Status)+" "+http.StatusText(f.Status)+"\n")
		return
	}
	s.rpcHandle(w, r, f)
}

// rpcHandle is stellar-rpc's HTTP bridge: POST / with application/json, single or batch.
func (s *Sandbox) rpcHandle(w http.ResponseWriter, r *http.Request, f *Fault) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "application/json" {
		w.WriteHeader(http.StatusUnsupportedMediaType)
		return
	}
	body := bytes.TrimSpace(readBody(r))
	if len(body) > 0 && body[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(body, &raws); err != nil {
			writeRPC(w, rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{Code: codeParseError, Message: "invalid JSON request message"}})
			return
		}
		if len(raws) == 0 {
			writeRPC(w, rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{Code: codeInvalidRequest, Message: "empty request batch"}})
			return
		}
		var out []rpcResponse
		for _, raw := range raws {
			if resp := s.rpcCall(raw, f); resp != nil {
				out = append(out, *resp)
			}
		}
		if len(out) == 0 {
			w.WriteHeader(http.StatusNoContent) // only notifications: nothing to answer
			return
		}
		writeRPC(w, out)
		return
	}
	resp := s.rpcCall(body, f)
	if resp == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeRPC(w, resp)
}

// rpcCall answers one JSON-RPC request; nil means it was a notification.
func (s *Sandbox) rpcCall(raw json.RawMessage, f *Fault) *rpcResponse {
	fail := func(id json.RawMessage, code int, msg string) *rpcResponse {
		if len(id) == 0 {
			id = json.RawMessage("null")
		}
		return &rpcResponse{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: code, Message: msg}}
	}
	var req rpcRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return fail(nil, codeParseError, "invalid JSON request message")
	}
	switch {
	case req.JSONRPC != "2.0":
		return fail(req.ID, codeInvalidRequest, "invalid version marker")
	case req.Method == "":
		return fail(req.ID, codeInvalidRequest, "empty method name")
	case len(req.ID) > 0 && !validID(req.ID):
		return fail(nil, codeInvalidRequest, "invalid request ID")
	}
	if len(req.ID) == 0 { // a notification: run nothing, answer nothing
		return nil
	}
	if f != nil && matchTarget(f.Target, req.Method) {
		switch f.Kind {
		case KindRPCError:
			msg := f.Message
			if msg == "" {
				msg = rpcErrorText(f.Code)
			}
			return fail(req.ID, f.Code, msg)
		case KindMalformed:
			result := `"unexpected"`
			if m, ok := rpcMethods[req.Method]; ok {
				result = m.malformed
			}
			return &rpcResponse{JSONRPC: "2.0", ID: req.ID, Result: json.RawMessage(result)}
		}
	}
	m, ok := rpcMethods[req.Method]
	if !ok {
		return fail(req.ID, codeMethodNotFound, "method not found")
	}
	var chainFault *Fault
	if f != nil && isChainKind(f.Kind) && matchTarget(f.Target, req.Method) {
		chainFault = f
	}
	result, rerr := m.handle(s, req.Params, chainFault)
	if rerr != nil {
		return &rpcResponse{JSONRPC: "2.0", ID: req.ID, Error: rerr}
	}
	b, err := json.Marshal(result)
	if err != nil {
		return fail(req.ID, codeInternalError, err.Error())
	}
	return &rpcResponse{JSONRPC: "2.0", ID: req.ID, Result: b}
}

func validID(id json.RawMessage) bool {
	switch id[0] {
	case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// rpcErrorText is the message stellar-rpc (jrpc2) sends with a code.
func rpcErrorText(code int) string {
	switch code {
	case codeParseError:
		return "parse error"
	case codeInvalidRequest:
		return "invalid request"
	case codeMethodNotFound:
		return "method not found"
	case codeInvalidParams:
		return "invalid parameters"
	case codeInternalError:
		return "internal error"
	case -32001:
		return "request exceeded processing limit threshold"
	case -32003:
		return "request failed to process due to internal issue"
	case -32098:
		return "system error"
	case -32097:
		return "request cancelled"
	case -32096:
		return "deadline exceeded"
	}
	return "server error"
}

func writeRPC(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// decodeParams reads by-name parameters; absent or null parameters leave v at its zero value.
func decodeParams(raw json.RawMessage, v any) *rpcError {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '{' {
		return &rpcError{Code: codeInvalidParams, Message: "invalid parameters: expected an object of named parameters"}
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &rpcError{Code: codeInvalidParams, Message: "invalid parameters: " + err.Error()}
	}
	return nil
}

func (s *Sandbox) rpcGetHealth(json.RawMessage) (any, *rpcError) {
	latest := s.LatestLedger()
	oldest := s.oldestLedger(latest)
	return protocol.GetHealthResponse{
		Status:       "healthy",
		LatestLedger: latest, LatestLedgerCloseTime: s.closeTime(latest),
		OldestLedger: oldest, OldestLedgerCloseTime: s.closeTime(oldest),
		LedgerRetentionWindow: retentionWindow,
	}, nil
}

func (s *Sandbox) rpcGetNetwork(json.RawMessage) (any, *rpcError) {
	return protocol.GetNetworkResponse{Passphrase: s.Passphrase, ProtocolVersion: protocolVersion}, nil
}

// ledgerHash is a ledger's id; derived from the sequence so the chain links up.
func ledgerHash(seq uint32) xdr.Hash {
	return seedHash("ledger/" + strconv.FormatUint(uint64(seq), 10))
}

func (s *Sandbox) ledgerHeader(seq uint32) xdr.LedgerHeaderHistoryEntry {
	return xdr.LedgerHeaderHistoryEntry{Hash: ledgerHash(seq), Header: xdr.LedgerHeader{
		LedgerVersion:      protocolVersion,
		PreviousLedgerHash: ledgerHash(seq - 1),
		ScpValue:           xdr.StellarValue{TxSetHash: xdr.Hash(sha256.Sum256(nil)), CloseTime: xdr.TimePoint(s.closeTime(seq))},
		LedgerSeq:          xdr.Uint32(seq),
		TotalCoins:         1_000_000_000_000_000_000,
		BaseFee:            100,
		BaseReserve:        5_000_000,
		MaxTxSetSize:       1000,
	}}
}

func (s *Sandbox) rpcGetLatestLedger(json.RawMessage) (any, *rpcError) {
	seq := s.LatestLedger()
	hdr := s.ledgerHeader(seq)
	meta := xdr.LedgerCloseMeta{V: 2, V2: &xdr.LedgerCloseMetaV2{
		LedgerHeader: hdr,
		TxSet:        xdr.GeneralizedTransactionSet{V: 1, V1TxSet: &xdr.TransactionSetV1{PreviousLedgerHash: ledgerHash(seq - 1)}},
	}}
	hdrB64, err := xdr.MarshalBase64(hdr)
	if err != nil {
		return nil, &rpcError{Code: codeInternalError, Message: err.Error()}
	}
	metaB64, err := xdr.MarshalBase64(meta)
	if err != nil {
		return nil, &rpcError{Code: codeInternalError, Message: err.Error()}
	}
	h := ledgerHash(seq)
	return protocol.GetLatestLedgerResponse{
		Hash: hex.EncodeToString(h[:]), ProtocolVersion: protocolVersion, Sequence: seq,
		LedgerCloseTime: s.closeTime(seq), LedgerHeader: hdrB64, LedgerMetadata: metaB64,
	}, nil
}

func (s *Sandbox) rpcGetTransaction(params json.RawMessage) (any, *rpcError) {
	var req protocol.GetTransactionRequest
	if e := decodeParams(params, &req); e != nil {
		return nil, e
	}
	if e := checkFormat(req.Format); e != nil {
		return nil, e
	}
	if len(req.Hash) != 64 {
		return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("unexpected hash length (%d)", len(req.Hash))}
	}
	raw, err := hex.DecodeString(req.Hash)
	if err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: "incorrect hash: " + err.Error()}
	}
	latest := s.LatestLedger()
	oldest := s.oldestLedger(latest)
	resp := protocol.GetTransactionResponse{
		LatestLedger: latest, LatestLedgerCloseTime: s.closeTime(latest),
		OldestLedger: oldest, OldestLedgerCloseTime: s.closeTime(oldest),
	}
	resp.TransactionHash = strings.ToLower(req.Hash)
	unlock := s.lockChain()
	tx, ok := s.world.txs[hex.EncodeToString(raw)]
	unlock() // recorded transactions never change
	if !ok || tx.ledger < oldest || tx.ledger > latest {
		resp.Status = protocol.TransactionStatusNotFound
		return resp, nil
	}
	resp.Status = protocol.TransactionStatusFailed
	if tx.success {
		resp.Status = protocol.TransactionStatusSuccess
	}
	resp.ApplicationOrder = tx.order
	resp.EnvelopeXDR, resp.ResultXDR, resp.ResultMetaXDR = tx.envelope, tx.result, tx.meta
	resp.DiagnosticEventsXDR = tx.events
	resp.Ledger = tx.ledger
	resp.LedgerCloseTime = s.closeTime(tx.ledger)
	return resp, nil
}

// maxEventsLimit is getEvents' largest page, as stellar-rpc's default configuration has it.
const maxEventsLimit = 10000

// rpcGetEvents answers getEvents over the applied transactions' contract events: startLedger
// within retention (else the error stellar-rpc gives), endLedger exclusive, the request's
// filters matched as stellar-rpc matches them, oldest first, at most limit (default 100).
func (s *Sandbox) rpcGetEvents(params json.RawMessage) (any, *rpcError) {
	var req protocol.GetEventsRequest
	if e := decodeParams(params, &req); e != nil {
		return nil, e
	}
	if err := req.Valid(maxEventsLimit); err != nil {
		return nil, &rpcError{Code: codeInvalidParams, Message: err.Error()}
	}
	latest := s.LatestLedger()
	oldest := s.oldestLedger(latest)
	if req.StartLedger < oldest || req.StartLedger > latest {
		return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("startLedger must be between the oldest ledger: %d and the latest ledger: %d for this rpc instance", oldest, latest)}
	}
	end := latest + 1
	if req.EndLedger != 0 && req.EndLedger < end {
		end = req.EndLedger
	}
	limit := uint(100)
	if req.Pagination != nil && req.Pagination.Limit > 0 {
		limit = req.Pagination.Limit
	}
	unlock := s.lockChain()
	var txs []*seededTx
	for _, t := range s.world.txs {
		if t.ledger >= req.StartLedger && t.ledger < end && len(t.contract) > 0 {
			txs = append(txs, t)
		}
	}
	unlock()
	slices.SortFunc(txs, func(a, b *seededTx) int {
		if a.ledger != b.ledger {
			return int(a.ledger) - int(b.ledger)
		}
		return int(a.order) - int(b.order)
	})
	resp := protocol.GetEventsResponse{Events: []protocol.EventInfo{}, LatestLedger: latest, OldestLedger: oldest,
		LatestLedgerCloseTime: s.closeTime(latest), OldestLedgerCloseTime: s.closeTime(oldest)}
	for _, t := range txs {
		for i, ev := range t.contract {
			diag := xdr.DiagnosticEvent{InSuccessfulContractCall: true, Event: ev}
			match := len(req.Filters) == 0
			for _, f := range req.Filters {
				if f.Matches(diag) {
					match = true
					break
				}
			}
			if !match || uint(len(resp.Events)) >= limit {
				continue
			}
			info := protocol.EventInfo{EventType: protocol.EventTypeContract, Ledger: int32(t.ledger),
				LedgerClosedAt: time.Unix(s.closeTime(t.ledger), 0).UTC().Format(time.RFC3339),
				ID:             fmt.Sprintf("%019d-%010d", uint64(t.ledger)<<32|uint64(t.order)<<12, i), TxIndex: uint32(t.order),
				TransactionHash: t.hash, InSuccessfulContractCall: true}
			if ev.ContractId != nil {
				info.ContractID = strkey.MustEncode(strkey.VersionByteContract, ev.ContractId[:])
			}
			if ev.Body.V0 != nil {
				for _, topic := range ev.Body.V0.Topics {
					b, _ := xdr.MarshalBase64(topic)
					info.TopicXDR = append(info.TopicXDR, b)
				}
				info.ValueXDR, _ = xdr.MarshalBase64(ev.Body.V0.Data)
			}
			resp.Events = append(resp.Events, info)
		}
	}
	return resp, nil
}
