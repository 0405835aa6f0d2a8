package errmap

import (
	"regexp"
	"strconv"
	"strings"
)

// contractNames is the vault-registry error table (docs/errors.md "Refinements by downstream").
// Numbers 1–23 are stable in every deployment; numbers >= 24 differ, so only configuration
// (Facts.ContractNames) may name them.
var contractNames = map[int]string{
	1: "AlreadyRegistered", 2: "NotFound", 3: "InvalidPrice", 4: "MetadataTooLong", 5: "InvalidTag",
	6: "Unauthorized", 7: "PendingAdminNotSet", 8: "PendingAdminAlreadySet", 9: "SameAdmin",
	10: "TermsHashTooLong", 11: "InvalidResourceId", 12: "InvalidMetadataPointer", 13: "EmptyMetadata",
	14: "AlreadyOwner", 15: "NoPendingTransfer", 16: "ReservedId", 17: "PriceExceedsMax",
	18: "AdminNotSet", 19: "NotVerifier", 20: "InvalidVerificationTransition", 21: "AlreadyFrozen",
	22: "MetadataFrozen", 23: "DuplicateInRepair",
}

// maxStableContractError is the last number whose name is fixed across deployments.
const maxStableContractError = 23

// ContractErrorName returns the vault-registry name of error number n: the stable table for 1–23,
// then the configured extra names, else "Unknown".
func ContractErrorName(n int, extra map[int]string) string {
	if name, ok := contractNames[n]; ok {
		return name
	}
	if n > maxStableContractError {
		if name, ok := extra[n]; ok && identRE.MatchString(name) {
			return name
		}
	}
	return "Unknown"
}

// contractCode maps a registry error number to its code (docs/errors.md "Refinements by downstream").
func contractCode(n int) string {
	switch n {
	case 1:
		return CodeAlreadyRegistered
	case 2:
		return CodeNotFound
	case 14:
		return CodeAlreadyOwner
	case 6:
		return CodeContractUnauthorized
	case 3, 4, 5, 11, 12, 13, 16, 17:
		return CodeContractInvalidInput
	}
	return CodeContractError
}

// tokenNames are the Stellar Asset Contract errors (the USDC token during payment simulation).
var tokenNames = map[int]string{
	1: "InternalError", 2: "OperationNotSupported", 3: "AlreadyInitialized", 4: "Unauthorized",
	5: "Authentication", 6: "AccountMissing", 7: "AccountIsNotClassic", 8: "NegativeAmount",
	9: "Allowance", 10: "BalanceError", 11: "BalanceDeauthorized", 12: "Overflow", 13: "TrustlineMissing",
}

func tokenErrorName(n int) string {
	if name, ok := tokenNames[n]; ok {
		return name
	}
	return "Unknown"
}

func tokenCode(n int) string {
	switch n {
	case 10:
		return CodeInsufficientUSDC
	case 13:
		return CodeTrustlineMissing
	case 6:
		return CodeAccountMissing
	}
	return CodePaymentRejected
}

var (
	contractNumRE = regexp.MustCompile(`Error\(\s*Contract\s*,\s*#(\d{1,9})\s*\)`)
	hostPairRE    = regexp.MustCompile(`Error\(\s*([A-Za-z]{1,32})\s*,\s*([A-Za-z]{1,48})\s*\)`)
	identRE       = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)
)

// contractNumber extracts N from the first "Error(Contract, #N)" in a simulation error string.
func contractNumber(s string) int {
	m := contractNumRE.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return 0
	}
	return n
}

// hostErrorName returns the first non-contract "Error(Type, Code)" pair, the value-free part of a
// host error; simulation strings also carry event logs with call arguments, which must not leave.
func hostErrorName(s string) string {
	for _, m := range hostPairRE.FindAllStringSubmatch(s, 8) {
		if m[1] != "Contract" {
			return "Error(" + m[1] + ", " + m[2] + ")"
		}
	}
	return ""
}

// isMissingValue spots a missing contract instance: the host reports Error(Storage, MissingValue).
func isMissingValue(s string) bool {
	for _, m := range hostPairRE.FindAllStringSubmatch(s, 8) {
		if m[1] == "Storage" && m[2] == "MissingValue" {
			return true
		}
	}
	return false
}

func isArchived(s string) bool {
	l := strings.ToLower(s)
	return strings.Contains(l, "restorepreamble") || strings.Contains(l, "archived")
}

// resultCodeClass maps the Horizon result codes of docs/errors.md "Refinements by downstream"
// (plus the obvious siblings).
var resultCodeClass = map[string]string{
	"op_underfunded":          CodeInsufficientBalance,
	"tx_insufficient_balance": CodeInsufficientBalance,
	"op_no_trust":             CodeTrustlineMissing,
	"op_src_no_trust":         CodeTrustlineMissing,
	"tx_bad_auth":             CodeTxBadAuth,
	"op_bad_auth":             CodeTxBadAuth,
	"tx_bad_seq":              CodeTxBadSequence,
	"tx_too_late":             CodeTxExpired,
	"tx_no_source_account":    CodeAccountMissing,
	"entry_archived":          CodeStateArchived,
}

// rpcServerCodes are the Stellar RPC JSON-RPC codes that mean the node itself is failing.
var rpcServerCodes = map[int]bool{-32603: true, -32001: true, -32003: true, -32098: true}

// x402ReasonCode refines an x402 errorReason/invalidReason; everything not named is a rejection.
func x402ReasonCode(reason string) string {
	switch reason {
	case "insufficient_funds":
		return CodeInsufficientUSDC
	case "payment_required":
		return CodePaymentRequired
	}
	return CodePaymentRejected
}
