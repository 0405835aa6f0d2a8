package sandbox

import (
	"encoding/json"
	"fmt"

	protocol "github.com/stellar/go-stellar-sdk/protocols/rpc"
	"github.com/stellar/go-stellar-sdk/xdr"

	"github.com/mindvault/mcp-endpoint/internal/clients/soroban"
)

// maxLedgerKeys is how many keys one getLedgerEntries request may ask for (stellar-rpc's limit).
const maxLedgerKeys = 200

// rpcGetLedgerEntries answers getLedgerEntries for the key kind the sandbox keeps as ledger
// entries of its own: an address's authorization nonce (ContractData of the address, key
// ScvLedgerKeyNonce, temporary). A consumed nonce is present, with liveUntilLedgerSeq its
// signature's expiration ledger and lastModifiedLedgerSeq the ledger that consumed it, while
// the latest ledger is at most liveUntilLedgerSeq; a nonce never consumed, or whose entry
// has expired, is absent, as the real server leaves out keys it does not find. Keys of any
// other kind are refused with invalid params naming the index, so a caller never mistakes an
// entry the sandbox does not model for one that does not exist.
func (s *Sandbox) rpcGetLedgerEntries(params json.RawMessage) (any, *rpcError) {
	var req protocol.GetLedgerEntriesRequest
	if e := decodeParams(params, &req); e != nil {
		return nil, e
	}
	if e := checkFormat(req.Format); e != nil {
		return nil, e
	}
	if len(req.Keys) > maxLedgerKeys {
		return nil, &rpcError{Code: codeInvalidParams,
			Message: fmt.Sprintf("key count (%d) exceeds maximum supported (%d)", len(req.Keys), maxLedgerKeys)}
	}
	keys := make([]nonceKey, len(req.Keys))
	for i, raw := range req.Keys {
		var k xdr.LedgerKey
		if err := xdr.SafeUnmarshalBase64(raw, &k); err != nil {
			return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("cannot unmarshal key value %s at index %d", raw, i)}
		}
		if k.Type == xdr.LedgerEntryTypeTtl {
			return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf("cannot unmarshal key value %s at index %d: TTL ledger keys are not allowed", raw, i)}
		}
		nk, ok := nonceOf(k)
		if !ok {
			return nil, &rpcError{Code: codeInvalidParams, Message: fmt.Sprintf(
				"ledger key at index %d (%s): the MindVault sandbox answers getLedgerEntries for nonce entries only (ContractData of an address, key ScvLedgerKeyNonce, temporary)", i, k.Type)}
		}
		keys[i] = nk
	}
	unlock := s.lockChain()
	defer unlock()
	latest := s.LatestLedger()
	resp := protocol.GetLedgerEntriesResponse{Entries: []protocol.LedgerEntryResult{}, LatestLedger: latest}
	for _, nk := range keys {
		e, live := s.world.pay.sac.liveNonce(nk, latest)
		if !live {
			continue
		}
		key := nonceLedgerKey(nk)
		cd := key.ContractData
		data := xdr.LedgerEntryData{Type: xdr.LedgerEntryTypeContractData, ContractData: &xdr.ContractDataEntry{
			Contract: cd.Contract, Key: cd.Key, Durability: cd.Durability, Val: soroban.Void()}}
		keyB64, err := xdr.MarshalBase64(key)
		if err != nil {
			return nil, &rpcError{Code: codeInternalError, Message: err.Error()}
		}
		dataB64, err := xdr.MarshalBase64(data)
		if err != nil {
			return nil, &rpcError{Code: codeInternalError, Message: err.Error()}
		}
		liveUntil := e.liveUntil
		resp.Entries = append(resp.Entries, protocol.LedgerEntryResult{KeyXDR: keyB64, DataXDR: dataB64,
			LastModifiedLedger: e.lastModified, LiveUntilLedgerSeq: &liveUntil})
	}
	return resp, nil
}

// nonceOf reads a nonce entry's ledger key: ContractData of an address (account or
// contract), key ScvLedgerKeyNonce, temporary durability.
func nonceOf(k xdr.LedgerKey) (nonceKey, bool) {
	cd := k.ContractData
	if k.Type != xdr.LedgerEntryTypeContractData || cd == nil || cd.Key.Type != xdr.ScValTypeScvLedgerKeyNonce ||
		cd.Key.NonceKey == nil || cd.Durability != xdr.ContractDataDurabilityTemporary {
		return nonceKey{}, false
	}
	if t := cd.Contract.Type; t != xdr.ScAddressTypeScAddressTypeAccount && t != xdr.ScAddressTypeScAddressTypeContract {
		return nonceKey{}, false // muxed, claimable-balance and pool addresses authorize nothing
	}
	addr, err := cd.Contract.String()
	if err != nil {
		return nonceKey{}, false
	}
	return nonceKey{addr, int64(cd.Key.NonceKey.Nonce)}, true
}
